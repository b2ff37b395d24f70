"""Drill: the real cairn-sync (1.3.1) against the service, with nested ``custom_fields`` (docs/jamf2snipe.md).

    .venv/bin/python scripts/drills/cairn_drill.py [PATH/TO/cairn] [--keep]

Without a path it installs cairn-sync 1.3.1 from PyPI into a temporary venv under /tmp (never into ours). Starts the
service (fresh SQLite database, ``API_DATE_FORMAT=snipeit``) and the Jamf stand-in, whose Jamf Pro API
(``/api/v1/computers-inventory``) is cairn's ``jamf`` source; seeds the catalogue, the custom fields and the
computers' fieldset, and the two asset models (cairn finds a model by name and never creates one), writes cairn's
``config.yaml`` (default field map: labels "Operating System", "OS Version", "OS Build", "MAC Address", "Logged In
Users", "Last Seen", "Source") and runs ``cairn sync`` twice: run 1 creates (POST /hardware with nested
``custom_fields``), run 2 sees new OS versions and updates (PUT /hardware/{id}). Under API-CONTRACT.md §11.1 the
labels that name a field of the model ("OS Version", "MAC Address") are written and the others skipped with a note
in the success text. Checks: run summaries (3 created, then 3 updated, none failed), no ERROR logged, each device
once, the two named fields hold the Jamf values. Prints PASS/FAIL lines; exit status 0 when all passed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jamf_standin  # noqa: E402 - beside this script
from _service import Service, all_assets, custom_values, report, seed  # noqa: E402

CAIRN_VERSION = "1.3.1"
CONFIG = """\
mode: fleet
incremental: true
state_path: {state}
sources:
  jamf:
    enabled: true
    url: {jamf}
    username: {jamf_user}
    password: {jamf_password}
sinks:
  snipeit:
    enabled: true
    url: {snipe}/api/v1
    token: {token}
    status_id: {status}
notifiers: {{}}
"""
SUMMARY = re.compile(r"created: (\d+)\s+updated: (\d+)\s+skipped: (\d+)\s+failed: (\d+)")


def install_cairn(into: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(into)], check=True)  # noqa: S603
    subprocess.run([str(into / "bin" / "pip"), "install", "--quiet", f"cairn-sync=={CAIRN_VERSION}"],  # noqa: S603
                   check=True)
    return into / "bin" / "cairn"


def set_phase(jamf_url: str, phase: int) -> None:
    request = urllib.request.Request(f"{jamf_url}/_standin/phase", data=json.dumps({"phase": phase}).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=5).close()  # noqa: S310 - 127.0.0.1 only


def run_cairn(cairn: Path, workdir: Path, number: int) -> tuple[int, str, tuple[int, ...] | None]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("CAIRN_", "GHOST_", "TEAMS_"))}
    done = subprocess.run([str(cairn), "--config", str(workdir / "config.yaml"), "sync"], cwd=workdir,  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False, env=env)
    output = done.stdout + done.stderr
    (workdir / f"cairn-run{number}.log").write_text(output)
    match = SUMMARY.search(output)
    return done.returncode, output, tuple(int(n) for n in match.groups()) if match else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cairn", nargs="?", type=Path, help=f"a cairn {CAIRN_VERSION} executable (default: install "
                        "cairn-sync into a temporary venv under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, database)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="cairn-drill-"))
    cairn = args.cairn or install_cairn(workdir / "cairn-venv")
    # The distribution's version (cairn-sync 1.3.1 reports "cairn 1.3.0" from --version).
    version = subprocess.run([str(cairn.parent / "python"), "-c", "import importlib.metadata as m; "  # noqa: S603
                              "print(m.version('cairn-sync'))"], capture_output=True, text=True,
                             check=False).stdout.strip() or "?"
    jamf_server, _inventory = jamf_standin.serve()
    jamf_url = f"http://127.0.0.1:{jamf_server.server_address[1]}"
    checks: list[tuple[str, bool, str]] = []
    counts = "no run"
    try:
        with Service(workdir) as svc:
            ids = seed(svc.api)
            columns = ids["columns"]
            for name in sorted({c["model"] for c in jamf_standin.COMPUTERS}):
                svc.api.create("models", {"name": name, "category_id": ids["computer_category"],
                                          "manufacturer_id": ids["manufacturer"],
                                          "fieldset_id": ids["computer_fieldset"]})
            config = workdir / "config.yaml"
            config.write_text(CONFIG.format(
                state=workdir / "cairn-state.json", jamf=jamf_url, jamf_user=jamf_standin.USERNAME,
                jamf_password=jamf_standin.PASSWORD, snipe=svc.base, token=svc.api.token, status=ids["status"]))
            config.chmod(0o600)
            want = {1: (3, 0, 0, 0), 2: (0, 3, 0, 0)}
            for number in (1, 2):
                set_phase(jamf_url, number)
                code, output, summary = run_cairn(cairn, workdir, number)
                errors = [line for line in output.splitlines() if "[ERROR]" in line or "Traceback" in line]
                checks.append((f"run {number}: created/updated/skipped/failed = {want[number]}, exit 0, no ERROR",
                               code == 0 and summary == want[number] and not errors,
                               f"exit {code}, summary {summary}" + (f"; {errors[:2]}" if errors else "")))
                if number == 1:  # the create wrote the nested values of the first inventory
                    os_column, first = columns["os_version"], jamf_standin.expected_values(1)
                    created = {a["serial"]: custom_values(a).get(os_column) for a in all_assets(svc.api)}
                    checks.append(("run 1 writes \"OS Version\" from the nested custom_fields of the create",
                                   created == {serial: first[serial]["os_version"] for serial in created}
                                   and len(created) == 3, json.dumps(created)))
            assets = all_assets(svc.api)
            expected = jamf_standin.expected_values(2)
            computers = {c["serial"] for c in jamf_standin.COMPUTERS}
            serials = [asset["serial"] for asset in assets]
            checks.append(("each computer exists exactly once", sorted(serials) == sorted(computers),
                           f"{len(assets)} assets: {serials}"))
            wrong = []
            for asset in assets:
                values, jamf = custom_values(asset), expected.get(asset["serial"], {})
                # cairn writes MAC addresses upper-cased (its NormalizedDevice canonicalises them).
                want = {"os_version": jamf.get("os_version"), "mac_address": str(jamf.get("mac_address")).upper()}
                for key in ("os_version", "mac_address"):
                    if values.get(columns[key]) != want[key]:
                        wrong.append(f"{asset['serial']} {columns[key]}={values.get(columns[key])!r} "
                                     f"(expected {want[key]!r})")
                for key in ("total_ram_mb", "department"):  # no label of cairn's map names them
                    if values.get(columns[key]) != "":
                        wrong.append(f"{asset['serial']} {columns[key]}={values.get(columns[key])!r} (expected '')")
                if asset["name"] != jamf.get("name") or (asset.get("model") or {}).get("name") != jamf.get("model"):
                    wrong.append(f"{asset['serial']} name={asset['name']!r} model={asset.get('model')!r}")
            checks.append(("\"OS Version\" and \"MAC Address\" hold the Jamf values of run 2, other fields empty",
                           not wrong, "; ".join(wrong[:4])))
            counts = f"{len(assets)} assets created once, then updated"
    finally:
        jamf_server.shutdown()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return report(f"cairn-sync {version} drill ({counts})" + (f"; logs in {workdir}" if args.keep else ""), checks)


if __name__ == "__main__":
    sys.exit(main())
