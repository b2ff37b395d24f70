"""A stand-in for the Jamf Pro endpoints that jamf2snipe v1.0.7 and cairn-sync 1.3.1 call (the drills of
docs/jamf2snipe.md): stdlib only, in memory, on 127.0.0.1.

Endpoints:

- ``GET /``: 200 (jamf2snipe's "is Jamf up" probe);
- ``POST /api/v1/auth/token`` (basic auth): ``{"token", "expires"}``; every other route wants that bearer token;
- Classic API (jamf2snipe): ``GET /JSSResource/computers`` and ``/JSSResource/mobiledevices`` (lists),
  ``GET /JSSResource/computers/id/N`` and ``/JSSResource/mobiledevices/id/N`` (records with the ``general``,
  ``location``, ``hardware`` and ``network`` subsets), ``PUT`` of the same (jamf2snipe writes Snipe-IT's asset tag
  back as XML; answered 201 and kept);
- Jamf Pro API (cairn-sync): ``GET /api/v1/computers-inventory?page=&page-size=`` (``{totalCount, results}``);
- ``POST /_standin/phase`` ``{"phase": N}``: switch the inventory the next reads see (below).

Phases: 1 is the first inventory (report dates in the past). 2 is a later inventory: report dates a day after
now, new OS versions, a department. 3: two days after now, other OS versions, one department emptied (jamf2snipe
then sends ``""``). Run alone: ``python scripts/drills/jamf_standin.py --port 9100 --phase 1``.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

USERNAME = "drill"
PASSWORD = "drill-password"  # noqa: S105 - a stand-in's fixed credentials

COMPUTERS = [
    {"id": 1, "name": "mac-anna", "serial": "C02DRILL0001", "model": "MacBook Pro (14-inch, 2023)",
     "model_identifier": "Mac14,9", "mac": "A4:83:E7:10:00:01", "ram": 16384},
    {"id": 2, "name": "mac-ben", "serial": "C02DRILL0002", "model": "MacBook Pro (14-inch, 2023)",
     "model_identifier": "Mac14,9", "mac": "A4:83:E7:10:00:02", "ram": 32768},
    {"id": 3, "name": "mac-cleo", "serial": "C02DRILL0003", "model": "MacBook Air (M2, 2022)",
     "model_identifier": "Mac14,2", "mac": "a4:83:e7:10:00:03", "ram": 8192},
]
MOBILES = [
    {"id": 1, "name": "ipad-front-desk", "serial": "DMPDRILL0001", "model": "iPad Air (5th generation)",
     "model_identifier": "iPad13,16", "imei": "35 209911 123456 7"},
]
OS_BY_PHASE = {1: ("14.6.1", "23G93"), 2: ("15.1", "24B83"), 3: ("15.1.1", "24B91")}
IPADOS_BY_PHASE = {1: "17.6", 2: "18.1", 3: "18.1.1"}
DEPARTMENT_BY_PHASE = {1: "", 2: "Sales", 3: ""}


def report_date(phase: int, now: dt.datetime | None = None) -> str:
    """Jamf's ``report_date`` text (UTC, ``YYYY-MM-DD HH:MM:SS``): jamf2snipe compares it as a string with Snipe-IT's
    ``updated_at.datetime``. Phase 1 lies in the past; later phases lie ``phase - 1`` days after now."""
    now = now or dt.datetime.now(dt.UTC)
    when = dt.datetime(2025, 1, 15, 9, 30, tzinfo=dt.UTC) if phase == 1 else now + dt.timedelta(days=phase - 1)
    return when.strftime("%Y-%m-%d %H:%M:%S")


def expected_values(phase: int) -> dict[str, dict[str, object]]:
    """What the Jamf record of each serial says in ``phase``: the drills compare the service's values with this."""
    out: dict[str, dict[str, object]] = {}
    for computer in COMPUTERS:
        out[computer["serial"]] = {"name": computer["name"], "mac_address": computer["mac"],
                                   "os_version": OS_BY_PHASE[phase][0], "os_build": OS_BY_PHASE[phase][1],
                                   "total_ram_mb": computer["ram"], "department": DEPARTMENT_BY_PHASE[phase],
                                   "model": computer["model"]}
    for mobile in MOBILES:
        out[mobile["serial"]] = {"name": mobile["name"], "imei": mobile["imei"], "os_version": IPADOS_BY_PHASE[phase],
                                 "model": mobile["model"]}
    return out


class Inventory:
    """The stand-in's state: the phase, the tokens it issued, the asset tags written back, the requests seen."""

    def __init__(self, phase: int = 1):
        self.phase = phase
        self.now = dt.datetime.now(dt.UTC)
        self.tokens: set[str] = set()
        self.asset_tags: dict[tuple[str, int], str] = {}
        self.requests: list[str] = []
        self.lock = threading.Lock()

    def computer(self, item: dict) -> dict:
        os_version, os_build = OS_BY_PHASE[self.phase]
        return {
            "general": {
                "id": item["id"], "name": item["name"], "serial_number": item["serial"], "udid": f"UDID-C-{item['id']}",
                "asset_tag": self.asset_tags.get(("computers", item["id"]), ""), "barcode_1": "", "barcode_2": "",
                "mac_address": item["mac"], "alt_mac_address": "", "ip_address": f"10.20.0.{item['id']}",
                "platform": "Mac", "report_date": report_date(self.phase, self.now),
                "last_contact_time": report_date(self.phase, self.now),
            },
            "location": {"username": "", "realname": "", "email_address": "", "department": DEPARTMENT_BY_PHASE[
                self.phase], "building": "", "room": ""},
            "purchasing": {"po_number": "", "vendor": "", "warranty_expires": ""},
            "hardware": {"make": "Apple", "model": item["model"], "model_identifier": item["model_identifier"],
                         "os_name": "macOS", "os_version": os_version, "os_build": os_build,
                         "processor_type": "Apple M2", "total_ram_mb": item["ram"], "total_ram": item["ram"],
                         "storage": [{"disk": "disk0", "drive_capacity_mb": 500277}]},
            "extension_attributes": [],
        }

    def mobile(self, item: dict) -> dict:
        return {
            "general": {
                "id": item["id"], "name": item["name"], "serial_number": item["serial"],
                "asset_tag": self.asset_tags.get(("mobiledevices", item["id"]), ""), "model": item["model"],
                "model_identifier": item["model_identifier"], "os_type": "iPadOS",
                "os_version": IPADOS_BY_PHASE[self.phase], "last_inventory_update": report_date(self.phase, self.now),
            },
            "location": {"username": "", "department": DEPARTMENT_BY_PHASE[self.phase]},
            "network": {"imei": item["imei"], "carrier": ""},
            "extension_attributes": [],
        }

    def inventory_record(self, item: dict) -> dict:
        """A computer as the Jamf Pro API's ``computers-inventory`` shows it (cairn-sync's source)."""
        os_version, os_build = OS_BY_PHASE[self.phase]
        contact = report_date(self.phase, self.now).replace(" ", "T") + "Z"
        return {
            "id": str(item["id"]), "udid": f"UDID-C-{item['id']}",
            "general": {"name": item["name"], "lastContactTime": contact, "reportDate": contact,
                        "assetTag": self.asset_tags.get(("computers", item["id"]))},
            "hardware": {"serialNumber": item["serial"], "macAddress": item["mac"], "altMacAddress": None,
                         "model": item["model"], "modelIdentifier": item["model_identifier"], "make": "Apple"},
            "operatingSystem": {"name": "macOS", "version": os_version, "build": os_build},
            "userAndLocation": {"username": None, "realname": None, "email": None,
                                "departmentId": None},
        }


class Handler(BaseHTTPRequestHandler):
    server_version = "JamfStandIn/1.0"
    inventory: Inventory  # set on the subclass that serve() builds

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def _send(self, status: int, body: object | None = None, content_type: str = "application/json") -> None:
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _authorised(self) -> bool:
        header = self.headers.get("Authorization", "")
        return header.startswith("Bearer ") and header[7:] in self.inventory.tokens

    def _route(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/") or "/"
        inv = self.inventory
        with inv.lock:
            inv.requests.append(f"{method} {path}")
        if method == "GET" and path == "/":
            return self._send(200, b"<html><body>Jamf Pro stand-in</body></html>", "text/html")
        if method == "POST" and path == "/api/v1/auth/token":
            self._body()
            expected = base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
            if self.headers.get("Authorization", "") != f"Basic {expected}":
                return self._send(401, {"httpStatus": 401, "errors": []})
            token = secrets.token_urlsafe(24)
            expires = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=30)
            with inv.lock:
                inv.tokens.add(token)
            return self._send(200, {"token": token, "expires": expires.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"})
        if method == "POST" and path == "/_standin/phase":
            phase = int(json.loads(self._body() or b"{}").get("phase", 1))
            with inv.lock:
                inv.phase, inv.now = phase, dt.datetime.now(dt.UTC)
            return self._send(200, {"phase": phase})
        if not self._authorised():
            return self._send(401, {"httpStatus": 401, "errors": [{"code": "INVALID_TOKEN"}]})
        if method == "GET" and path == "/JSSResource/computers":
            return self._send(200, {"computers": [{"id": c["id"], "name": c["name"]} for c in COMPUTERS]})
        if method == "GET" and path == "/JSSResource/mobiledevices":
            return self._send(200, {"mobile_devices": [{"id": m["id"], "name": m["name"]} for m in MOBILES]})
        match = re.fullmatch(r"/JSSResource/(computers|mobiledevices)/id/(\d+)", path)
        if match:
            kind, jamf_id = match.group(1), int(match.group(2))
            items = COMPUTERS if kind == "computers" else MOBILES
            item = next((i for i in items if i["id"] == jamf_id), None)
            if item is None:
                return self._send(404, b"<html>Not Found</html>", "text/html")
            if method == "PUT":
                tag = re.search(rb"<asset_tag>(.*?)</asset_tag>", self._body())
                if tag is None:
                    return self._send(409, b"<html>Conflict</html>", "text/html")
                with inv.lock:
                    inv.asset_tags[(kind, jamf_id)] = tag.group(1).decode()
                return self._send(201, f"<{kind[:-1]}><id>{jamf_id}</id></{kind[:-1]}>".encode(), "application/xml")
            if kind == "computers":
                return self._send(200, {"computer": inv.computer(item)})
            return self._send(200, {"mobile_device": inv.mobile(item)})
        if method == "GET" and path == "/api/v1/computers-inventory":
            query = parse_qs(parts.query)
            page, size = int(query.get("page", ["0"])[0]), int(query.get("page-size", ["100"])[0])
            rows = [inv.inventory_record(c) for c in COMPUTERS]
            return self._send(200, {"totalCount": len(rows), "results": rows[page * size:(page + 1) * size]})
        return self._send(404, {"httpStatus": 404, "errors": [{"code": "NOT_FOUND", "path": path}]})

    def do_GET(self):  # noqa: N802 - http.server's names
        self._route("GET")

    def do_POST(self):  # noqa: N802
        self._route("POST")

    def do_PUT(self):  # noqa: N802
        self._route("PUT")


def serve(port: int = 0, phase: int = 1) -> tuple[ThreadingHTTPServer, Inventory]:
    """Start the stand-in in a daemon thread; returns the server (``server_address[1]`` is the port) and its state."""
    inventory = Inventory(phase)
    handler = type("BoundHandler", (Handler,), {"inventory": inventory})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, inventory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--phase", type=int, default=1, choices=sorted(OS_BY_PHASE))
    args = parser.parse_args()
    inventory = Inventory(args.phase)
    handler = type("BoundHandler", (Handler,), {"inventory": inventory})
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    print(f"Jamf stand-in on http://127.0.0.1:{args.port} (user {USERNAME!r}, password {PASSWORD!r}), "
          f"phase {args.phase}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
