"""What both sync-client drills share: the service on a free port with a fresh SQLite database in a temporary
directory (``API_DATE_FORMAT=snipeit``), a super user with a personal access token, a small JSON client (stdlib
only), and the seed every sync needs (manufacturer, categories, a deployable status label, custom fields in
fieldsets)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Api:
    """A JSON client for ``/api/v1`` with a bearer token; answers ``(status, body)``."""

    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base}/api/v1/{path.lstrip('/')}", data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Accept": "application/json", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - 127.0.0.1 only
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def create(self, path: str, body: dict) -> dict:
        """POST and return the created record's payload; stops the drill on anything but success."""
        status, answer = self.call("POST", path, body)
        if status != 200 or answer.get("status") != "success":
            raise SystemExit(f"seed failed: POST {path} {body} -> {status} {answer}")
        return answer["payload"]

    def rows(self, path: str) -> list[dict]:
        status, answer = self.call("GET", path)
        if status != 200 or "rows" not in answer:
            raise SystemExit(f"GET {path} -> {status} {answer}")
        return answer["rows"]


class Service:
    """The service under test, as a context manager: ``with Service() as svc: svc.api, svc.base, svc.log_path``."""

    def __init__(self, workdir: Path | None = None):
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="sync-drill-"))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = self.workdir / "service.log"
        self.env = {key: value for key, value in os.environ.items() if not key.startswith(("REDIS_", "WEBHOOK_"))}
        self.env.update({
            "DJANGO_SETTINGS_MODULE": "assetsvc.settings",
            "DATABASE_URL": f"sqlite:///{self.workdir / 'db.sqlite3'}",
            "SECRET_KEY": "sync-drill-only",
            "DEBUG": "false",
            "API_DATE_FORMAT": "snipeit",
            "TIME_ZONE": "UTC",
            "API_THROTTLE_PER_MINUTE": "100000",
            "CACHE_KEY_PREFIX": f"drill-{self.port}",
            "LOG_LEVEL": "WARNING",
        })
        self.process: subprocess.Popen | None = None
        self.api: Api | None = None

    def manage(self, *args: str) -> str:
        done = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True,
                              check=False)
        if done.returncode:
            raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def __enter__(self) -> Service:
        self.manage("migrate", "--noinput", "--verbosity", "0")
        self.manage("createsuperuser", "--noinput", "--username", "sync", "--email", "sync@example.com")
        token = self.manage("issue_token", "sync", "--name", "sync drill").strip()
        log = self.log_path.open("w")
        self.process = subprocess.Popen(  # noqa: S603 - our own venv's gunicorn
            [GUNICORN, "assetsvc.wsgi", "--bind", f"127.0.0.1:{self.port}", "--workers", "1", "--threads", "4",
             "--access-logfile", "-"], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/", timeout=2):  # noqa: S310 - 127.0.0.1 only
                    break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.__exit__(None, None, None)
                    raise SystemExit(f"the service did not start; see {self.log_path}") from None
                time.sleep(0.2)
        self.api = Api(self.base, token)
        return self

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()


FIELDS = {
    # key: (name, element, format)
    "mac_address": ("MAC Address", "text", "MAC"),
    "os_version": ("OS Version", "text", "ANY"),
    "total_ram_mb": ("RAM (MB)", "text", "NUMERIC"),
    "department": ("Department", "text", "ANY"),
    "imei": ("IMEI", "text", "ANY"),
}


def seed(api: Api) -> dict:
    """Manufacturer, two categories, a deployable status label, the custom fields, and two fieldsets: computers
    (MAC, OS version, RAM, department) and mobile devices (IMEI, OS version). Returns their ids and column names."""
    ids: dict = {
        "manufacturer": api.create("manufacturers", {"name": "Apple"})["id"],
        "computer_category": api.create("categories", {"name": "Laptops", "category_type": "asset"})["id"],
        "mobile_category": api.create("categories", {"name": "Tablets", "category_type": "asset"})["id"],
        "status": api.create("statuslabels", {"name": "Ready to Deploy", "type": "deployable"})["id"],
        "columns": {},
    }
    field_ids = {}
    for key, (name, element, fmt) in FIELDS.items():
        record = api.create("fields", {"name": name, "element": element, "format": fmt})
        field_ids[key] = record["id"]
        ids["columns"][key] = record["db_column_name"]
    ids["computer_fieldset"] = api.create("fieldsets", {"name": "Jamf computers"})["id"]
    ids["mobile_fieldset"] = api.create("fieldsets", {"name": "Jamf mobile devices"})["id"]
    members = {"computer_fieldset": ("mac_address", "os_version", "total_ram_mb", "department"),
               "mobile_fieldset": ("imei", "os_version")}
    for fieldset, keys in members.items():
        for key in keys:
            status, answer = api.call("POST", f"fields/{field_ids[key]}/associate",
                                      {"fieldset_id": ids[fieldset]})
            if status != 200 or answer.get("status") != "success":
                raise SystemExit(f"seed failed: associate {key} with {fieldset}: {status} {answer}")
    return ids


def all_assets(api: Api) -> list[dict]:
    return api.rows("hardware?limit=500&sort=id&order=asc")


def custom_values(asset: dict) -> dict[str, str]:
    """``{column: value}`` of a read record's ``custom_fields``."""
    return {entry["field"]: entry["value"] for entry in (asset.get("custom_fields") or {}).values()}


def report(title: str, checks: list[tuple[str, bool, str]]) -> int:
    """Print the PASS/FAIL lines and the verdict; the exit status (0 when every check passed)."""
    print(f"== {title}")
    for name, ok, detail in checks:
        print(f"  [{'PASS' if ok else 'FAIL'}] {name}" + (f": {detail}" if detail else ""))
    failed = [name for name, ok, _ in checks if not ok]
    print(f"== {'PASS' if not failed else 'FAIL'}: {len(checks) - len(failed)} of {len(checks)} checks passed")
    sys.stdout.flush()
    return 1 if failed else 0
