"""A Snipe-IT stand-in: an HTTP server that answers Snipe-IT API v1's read routes over a generated `Dataset`.

Every record is rendered to JSON bytes once when the stand-in starts; a list request only sorts ids (cached per
sort order) and joins the bytes of one page, so 100,000 assets page as fast as 200. It answers like Snipe-IT v8.1.4:
bearer token or 401 `{"error": ...}`, `{"total", "rows"}` pages with `limit` capped at `max_results` (500),
`offset` clamped to `total`, `sort`/`order` (anything but `order=asc` is descending, unknown sorts fall back to
`created_at`), not-found answered with HTTP 200 and `status: "error"`, the 404 fallback, 405 for other verbs.

Switches for tests: `rate_limit_every=N` answers every Nth authenticated request with 429 (and `Retry-After`
unless `retry_after=None`, which is what a real Snipe-IT sends: no header at all); `drift=True` adds a new record
of the kind being listed before answering each page after the first, the way a live Snipe-IT grows while being
read (the new record is the newest, so it shifts every `created_at desc` page by one and bumps `total`).
`hits` counts requests per route (`"GET hardware/{id}"`), `log` keeps `(path, status)` in order.
"""

from __future__ import annotations

import copy
import re
import threading
import time
from collections import Counter
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

import orjson

from tests.snipeit.dataset import dt

if TYPE_CHECKING:
    from tests.snipeit.dataset import Dataset

# Route name -> the model name in Snipe-IT's "<Model> not found" (ModelNotFoundException) message.
LIST_KINDS = {
    "companies": "Company", "departments": "Department", "locations": "Location", "manufacturers": "Manufacturer",
    "suppliers": "Supplier", "categories": "Category", "statuslabels": "Statuslabel", "depreciations": "Depreciation",
    "models": "AssetModel", "fields": "CustomField", "fieldsets": "CustomFieldset", "groups": "Group",
    "users": "User", "hardware": "Asset", "accessories": "Accessory", "consumables": "Consumable",
    "components": "Component", "licenses": "License", "maintenances": "AssetMaintenance", "kits": "PredefinedKit",
}
# Explicit messages some show actions use instead of the generic one.
NOT_FOUND = {
    "hardware": "Asset does not exist.",
    "users": "User does not exist or you do not have permission view them.",
    "components": "Component does not exist.",
    "consumables": "Consumable does not exist.",
}
# Sub-lists: (kind, name) -> paging: "api" (limit/offset like the index), "fifty" (offset 0, limit 50, no cap;
# `accessories/{id}/checkedout`, `components/{id}/assets`), "all" (no paging at all), "seats" (LicenseSeatsController:
# always sorted by `updated_at`, and an offset at or past the end starts again at 0).
SUB_LISTS = {
    ("accessories", "checkedout"): "fifty", ("components", "assets"): "fifty", ("consumables", "users"): "all",
    ("licenses", "seats"): "seats", ("kits", "models"): "all", ("kits", "licenses"): "all",
    ("kits", "consumables"): "all", ("kits", "accessories"): "all", ("hardware", "files"): "api",
    ("users", "files"): "api",
}
SORTABLE = {"id", "name", "created_at", "updated_at", "asset_tag", "username", "serial"}

BASE_404 = ("404 endpoint not found. This is the base URL for the API and does not return anything itself. Please "
            "check the API reference at https://snipe-it.readme.io/reference to find a valid API endpoint.")
FALLBACK_404 = ("404 endpoint not found. Please check the API reference at https://snipe-it.readme.io/reference "
                "to find a valid API endpoint.")


def php_intval(value: str | None) -> int:
    """PHP's intval() on a query string value: the leading integer, else 0."""
    match = re.match(r"\s*([+-]?\d+)", value or "")
    return int(match.group(1)) if match else 0


def envelope(status: str, messages: Any, payload: Any = None) -> dict[str, Any]:
    return {"status": status, "messages": messages, "payload": payload}


class SnipeitStandin:
    """Serve a `Dataset` as Snipe-IT API v1 on 127.0.0.1 (see the module docstring)."""

    def __init__(self, dataset: Dataset, *, token: str, rate_limit_every: int | None = None,
                 retry_after: int | None = 1, drift: bool = False, max_results: int = 500,
                 host: str = "127.0.0.1", port: int = 0, delay: float = 0.0):
        self.dataset = dataset
        #: Seconds each answer waits (a slow Snipe-IT: the crash drill needs a run that lasts long enough to kill).
        self.delay = delay
        self.token = token
        self.rate_limit_every = rate_limit_every
        self.retry_after = retry_after
        self.drift = drift
        self.max_results = max_results
        self.address = (host, port)
        self.hits: Counter[str] = Counter()
        self.log: list[tuple[str, int]] = []
        self.drifted: dict[str, list[int]] = {}
        self._lock = threading.Lock()
        self._authenticated = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        # Mutable copies: drift adds records without touching the (possibly shared) dataset.
        self._rows = {kind: dict(rows) for kind, rows in dataset.rows.items()}
        self._blobs = {kind: {i: _json(r) for i, r in rows.items()} for kind, rows in self._rows.items()}
        self._sub_blobs = {key: [_json(r) for r in rows] for key, rows in dataset.sub.items()}
        self._orders: dict[tuple[str, str, str, str], list[int]] = {}
        # Two shows that differ from the list's record in Snipe-IT: `users/me` and `companies/{id}` load no counts.
        self._me = _json(_zero_counts(self._rows["users"][dataset.superuser_id]))
        self._show_blobs = {"companies": {i: _json(_zero_counts(r)) for i, r in self._rows["companies"].items()}}

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self) -> SnipeitStandin:
        standin = self

        class Handler(_Handler):
            owner = standin

        self._server = ThreadingHTTPServer(self.address, Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="snipeit-standin", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> SnipeitStandin:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The base URL, as an operator would pass it to `--url` (the API lives under `/api/v1`)."""
        assert self._server is not None, "start() the stand-in first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- answering ---------------------------------------------------------------------------------------------

    def answer(self, method: str, target: str, headers: Any) -> tuple[int, dict[str, str], bytes, str]:
        """(status, headers, body, route) for one request; the route is the pattern counted in `hits`."""
        parts = urlsplit(target)
        path = unquote(parts.path).rstrip("/")
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        route = self._route_name(path)
        if method not in ("GET", "HEAD"):
            return 405, {}, _json(envelope("error", "Method not allowed")), route
        if headers.get("Authorization", "") != f"Bearer {self.token}":
            return 401, {}, _json({"error": "Unauthorized or unauthenticated."}), route
        with self._lock:
            self._authenticated += 1
            limited = self.rate_limit_every and self._authenticated % self.rate_limit_every == 0
        if limited:
            extra = {"Retry-After": str(self.retry_after)} if self.retry_after is not None else {}
            return 429, extra, _json(envelope("error", "Too many requests")), route
        if self.delay:
            time.sleep(self.delay)
        status, extra, body = self._dispatch(path, query)
        return status, {"X-RateLimit-Limit": "120", **extra}, body, route

    @staticmethod
    def _route_name(path: str) -> str:
        rest = path.removeprefix("/api/v1").strip("/")
        return re.sub(r"(?<=/)\d+(?=/|$)", "{id}", rest) or "/"

    def _dispatch(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if not path.startswith("/api/v1"):
            return 404, {}, _json({"status": "error", "message": FALLBACK_404, "payload": None})
        parts = path.removeprefix("/api/v1").strip("/").split("/") if path != "/api/v1" else []
        if not parts:
            return 404, {}, _json({"status": "error", "message": BASE_404, "payload": None})
        if parts == ["version"]:
            return 200, {}, _json({"version": "v8.1.4"})
        if parts == ["users", "me"]:
            return 200, {}, self._me
        if parts == ["reports", "activity"]:
            status, _, body = self._list("activity", query)
            return status, {"Content-Type": "application/json;charset=utf8"}, body  # ReportsController's own header
        kind = parts[0]
        if kind in LIST_KINDS:
            if len(parts) == 1:
                return self._list(kind, query)
            if parts[1].isdigit():
                ident = int(parts[1])
                if len(parts) == 2:
                    return self._show(kind, ident)
                if len(parts) == 3 and (kind, parts[2]) in SUB_LISTS:
                    return self._sub_list(kind, ident, parts[2], query)
                if len(parts) == 4 and parts[2] == "file" and parts[3].isdigit() and kind in ("hardware", "users"):
                    return self._download(kind, ident, int(parts[3]))
        return 404, {}, _json({"status": "error", "message": FALLBACK_404, "payload": None})

    def _show(self, kind: str, ident: int) -> tuple[int, dict[str, str], bytes]:
        blob = self._show_blobs.get(kind, self._blobs[kind]).get(ident)
        if blob is None:
            return 200, {}, _json(envelope("error", NOT_FOUND.get(kind, f"{LIST_KINDS[kind]} not found")))
        return 200, {}, blob

    def _page(self, blobs: list[bytes], total: int) -> bytes:
        return b'{"total":%d,"rows":[%s]}' % (total, b",".join(blobs))

    def _limits(self, query: dict[str, str], total: int) -> tuple[int, int]:
        raw_limit = php_intval(query.get("limit"))
        limit = abs(raw_limit) if raw_limit != 0 and raw_limit <= self.max_results else self.max_results
        offset = max(0, php_intval(query.get("offset")))
        return min(offset, total), limit

    def _list(self, kind: str, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.drift and php_intval(query.get("offset")) > 0:
            self._drift(kind)
        ids = self._ordered(kind, self._filter_key(kind, query), query.get("sort", ""), query.get("order", ""))
        offset, limit = self._limits(query, len(ids))
        blobs = self._blobs[kind]
        return 200, {}, self._page([blobs[i] for i in ids[offset:offset + limit]], len(ids))

    def _filter_key(self, kind: str, query: dict[str, str]) -> str:
        """The few index filters the importer needs, as Snipe-IT applies them."""
        if kind == "hardware":
            if query.get("status") in ("Deleted", "Archived"):
                return query["status"]
            if query.get("status_id", "").isdigit():
                return f"status_id={int(query['status_id'])}"
            return "" if self.dataset.show_archived_in_list else "hide-archived"
        if kind == "users" and query.get("deleted") == "true":
            return "Deleted"
        if kind == "activity" and query.get("action_type"):
            return f"action_type={query['action_type']}"
        return ""

    def _matches(self, kind: str, key: str, row: dict[str, Any]) -> bool:
        deleted = bool(row.get("deleted_at"))
        if key == "Deleted":
            return deleted
        if kind in ("hardware", "users", "models", "manufacturers", "licenses") and deleted:
            return False
        if key == "Archived":
            return row["status_label"]["status_type"] == "archived"
        if key == "hide-archived":
            return row["status_label"]["status_type"] != "archived"
        if key.startswith("status_id="):
            return row["status_label"]["id"] == int(key.split("=")[1])
        if key.startswith("action_type="):
            return row["action_type"] == key.split("=", 1)[1]
        return True

    def _ordered(self, kind: str, key: str, sort: str, order: str) -> list[int]:
        sort = sort.removeprefix("custom_fields.")
        sort = sort if sort in SORTABLE else "created_at"
        direction = "asc" if order == "asc" else "desc"
        cache_key = (kind, key, sort, direction)
        with self._lock:
            ids = self._orders.get(cache_key)
            if ids is None:
                rows = self._rows[kind]
                chosen = [r for r in rows.values() if self._matches(kind, key, r)]
                if sort == "id":
                    chosen.sort(key=lambda r: r["id"], reverse=direction == "desc")
                else:
                    chosen.sort(key=lambda r: r["id"])  # ties keep id order, as MySQL usually does
                    chosen.sort(key=lambda r: _sort_value(r.get(sort)), reverse=direction == "desc")
                ids = self._orders[cache_key] = [r["id"] for r in chosen]
        return ids

    def _drift(self, kind: str) -> None:
        """Add a newest record of this kind, like a colleague creating one while the import reads."""
        with self._lock:
            rows = self._rows[kind]
            if not rows:
                return
            alive = [i for i, r in rows.items() if not r.get("deleted_at")]
            if not alive:
                return
            row = copy.deepcopy(rows[max(alive)])
            row["id"] = max(rows) + 2
            n = len(self.drifted.setdefault(kind, [])) + 1
            stamp = dt(datetime(2026, 1, 16, 8, 0, 0) + timedelta(minutes=n))
            row["created_at"] = row["updated_at"] = stamp
            for name_key in ("name", "asset_tag", "username"):
                if isinstance(row.get(name_key), str):
                    row[name_key] = f"{row[name_key]} drift {n}"
            unique = {f["db_column"] for f in self.dataset.raw["fields"].values() if f["is_unique"]}
            for value in (row.get("custom_fields") or {}).values():
                if value["field"] in unique:  # a copy must not break a unique field
                    value["value"] = ""
            rows[row["id"]] = row
            self._blobs[kind][row["id"]] = _json(row)
            self.drifted[kind].append(row["id"])
            self._orders = {k: v for k, v in self._orders.items() if k[0] != kind}

    def _sub_list(self, kind: str, ident: int, name: str, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if ident not in self._blobs[kind]:
            if (kind, name) == ("licenses", "seats"):
                message = "License does not exist or you do not have permission to view it."
            else:
                message = f"{LIST_KINDS[kind]} not found"  # findOrFail()
            return 200, {}, _json(envelope("error", message))
        blobs = self._sub_blobs.get((kind, ident, name), [])
        paging = SUB_LISTS[(kind, name)]
        if paging == "seats":
            seats = self.dataset.sub.get((kind, ident, name), [])
            order = sorted(range(len(seats)), key=lambda i: (seats[i]["updated_at"]["datetime"], seats[i]["id"]),
                           reverse=query.get("order") != "asc")
            offset, limit = self._limits(query, len(seats))
            offset = 0 if offset >= len(seats) else offset
            return 200, {}, self._page([blobs[i] for i in order[offset:offset + limit]], len(seats))
        if paging == "all":
            return 200, {}, self._page(blobs, len(blobs))
        if paging == "fifty":
            offset = max(0, php_intval(query.get("offset")))
            limit = php_intval(query.get("limit")) or 50
            return 200, {}, self._page(blobs[offset:offset + limit], len(blobs))
        offset, limit = self._limits(query, len(blobs))
        page = blobs[offset:offset + limit]
        # AssetFilesController counts the page it took, not the query: `total` is the page's length.
        total = len(page) if name == "files" else len(blobs)
        return 200, {}, self._page(page, total)

    def _download(self, kind: str, ident: int, file_id: int) -> tuple[int, dict[str, str], bytes]:
        found = self.dataset.files.get((kind, ident, file_id))
        if found is None:
            message = f"No matching record for that asset/file [{file_id}]"
            return 404, {}, _json(envelope("error", message))
        filename, content = found
        return 200, {"Content-Type": "application/octet-stream",
                     "Content-Disposition": f'attachment; filename="{filename}"'}, content


def _zero_counts(row: dict[str, Any]) -> dict[str, Any]:
    return {k: 0 if k.endswith("_count") else v for k, v in row.items()}


def _sort_value(value: Any) -> Any:
    if isinstance(value, dict):  # date objects sort by their machine-readable part
        return value.get("datetime") or value.get("date") or ""
    return "" if value is None else value


def _json(data: Any) -> bytes:
    return orjson.dumps(data)  # a project dependency; renders 100,000 assets several times faster than json


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the importer's session reuses connections
    owner: SnipeitStandin

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        status, headers, body, route = self.owner.answer(self.command, self.path, self.headers)
        with self.owner._lock:
            self.owner.hits[f"{self.command} {route}"] += 1
            self.owner.log.append((self.path, status))
        self.send_response(status)
        self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass


def main(argv: list[str] | None = None) -> None:
    """`python -m tests.snipeit.standin --assets 1000`: serve a data set by hand, to try the importer against it."""
    import argparse
    import os

    from tests.snipeit.dataset import generate

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--assets", type=int, default=200)
    parser.add_argument("--log-rows", type=int, default=1000)
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--rate-limit-every", type=int, default=None)
    parser.add_argument("--drift", action="store_true")
    args = parser.parse_args(argv)
    token = os.environ.get("SNIPEIT_TOKEN", "snipeit-test-token-not-a-secret")
    dataset = generate(seed=args.seed, assets=args.assets, log_rows=args.log_rows)
    standin = SnipeitStandin(dataset, token=token, rate_limit_every=args.rate_limit_every, drift=args.drift,
                             port=args.port).start()
    print(f"Snipe-IT stand-in at {standin.url} (token from SNIPEIT_TOKEN or the test default); Ctrl-C stops it")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        standin.stop()


if __name__ == "__main__":
    main()
