"""Drill: the real jamf2snipe (v1.0.7) against the service, with custom fields (docs/jamf2snipe.md).

    .venv/bin/python scripts/drills/jamf2snipe_drill.py PATH/TO/jamf2snipe-checkout [--python PYTHON] [--keep]

Starts the service (fresh SQLite database in a temporary directory, ``API_DATE_FORMAT=snipeit``) and the Jamf
stand-in (``jamf_standin.py``: 3 computers, 1 iPad), seeds a manufacturer, categories, a deployable status label,
custom fields and two fieldsets through the API, writes jamf2snipe's ``settings.conf`` (the custom columns mapped,
``computer_custom_fieldset_id`` and ``mobile_custom_fieldset_id`` set so the models jamf2snipe creates get the
fieldsets) and runs jamf2snipe three times: run 1 creates the assets (jamf2snipe's create sends no mapped keys),
run 2 sees newer Jamf report dates and PATCHes the custom fields (text, a number), run 3 sees newer dates again with
new OS versions and an emptied department (jamf2snipe sends ``""`` and expects ``null`` back). Checks: each device
created once, models carry the fieldsets, the custom fields hold the Jamf values, jamf2snipe logged no ERROR and no
"Unable to update". Prints PASS/FAIL lines; exit status 0 when all passed. jamf2snipe needs ``requests``: it runs
with our .venv's python unless ``--python`` names another.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jamf_standin  # noqa: E402 - beside this script
from _service import PYTHON, Service, all_assets, custom_values, report, seed  # noqa: E402

SETTINGS = """\
[jamf]
url = {jamf}
username = {jamf_user}
password = {jamf_password}

[snipe-it]
url = {snipe}
apikey = {token}
manufacturer_id = {manufacturer}
defaultStatus = {status}
computer_model_category_id = {computer_category}
mobile_model_category_id = {mobile_category}
computer_custom_fieldset_id = {computer_fieldset}
mobile_custom_fieldset_id = {mobile_fieldset}

[computers-api-mapping]
name = general name
{mac_address} = general mac_address
{os_version} = hardware os_version
{total_ram_mb} = hardware total_ram_mb
{department} = location department

[mobile_devices-api-mapping]
name = general name
{imei} = network imei
{os_version} = general os_version
"""


def set_phase(jamf_url: str, phase: int) -> None:
    request = urllib.request.Request(f"{jamf_url}/_standin/phase", data=json.dumps({"phase": phase}).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=5).close()  # noqa: S310 - 127.0.0.1 only


def run_jamf2snipe(python: str, script: Path, workdir: Path, number: int) -> tuple[int, str]:
    done = subprocess.run([python, str(script), "--verbose"], cwd=workdir, capture_output=True, text=True,  # noqa: S603
                          timeout=300, check=False)
    output = done.stdout + done.stderr
    (workdir / f"jamf2snipe-run{number}.log").write_text(output)
    return done.returncode, output


def problems(output: str) -> list[str]:
    return [line for line in output.splitlines()
            if line.startswith("ERROR") or "Unable to update" in line or "Traceback" in line]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a jamf2snipe checkout (the directory holding 'jamf2snipe')")
    parser.add_argument("--python", default=PYTHON, help="the python that runs jamf2snipe (needs requests)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, database)")
    args = parser.parse_args()
    script = args.checkout / "jamf2snipe"
    if not script.is_file():
        raise SystemExit(f"no jamf2snipe script in {args.checkout}")
    version = subprocess.run([args.python, str(script), "--version"], capture_output=True, text=True,  # noqa: S603
                             cwd=args.checkout, check=False).stdout.strip() or "?"
    workdir = Path(tempfile.mkdtemp(prefix="jamf2snipe-drill-"))
    jamf_server, inventory = jamf_standin.serve()
    jamf_url = f"http://127.0.0.1:{jamf_server.server_address[1]}"
    checks: list[tuple[str, bool, str]] = []
    counts = "no run"
    try:
        with Service(workdir) as svc:
            ids = seed(svc.api)
            columns = ids["columns"]
            (workdir / "settings.conf").write_text(SETTINGS.format(
                jamf=jamf_url, jamf_user=jamf_standin.USERNAME, jamf_password=jamf_standin.PASSWORD,
                snipe=svc.base, token=svc.api.token, **{k: v for k, v in ids.items() if k != "columns"}, **columns))
            runs = {}
            for number, phase in ((1, 1), (2, 2), (3, 3)):
                set_phase(jamf_url, phase)
                runs[number] = run_jamf2snipe(args.python, script, workdir, number)
                code, output = runs[number]
                bad = problems(output)
                checks.append((f"run {number} (Jamf phase {phase}) exits 0 without ERROR or failed update",
                               code == 0 and not bad, f"exit {code}" + (f"; {bad[:3]}" if bad else "")))
                if number == 1:
                    assets = all_assets(svc.api)
                    checks.append(("run 1 creates the 4 devices", len(assets) == 4, f"{len(assets)} assets"))
            updated = sum(line.count("Sucessfully updated") for line in runs[2][1].splitlines())
            checks.append(("run 2 PATCHes the mapped keys and jamf2snipe finds every answer equal",
                           updated == 3 * 4 + 2, f"{updated} 'Sucessfully updated' lines"))
            emptied = [line for line in runs[3][1].splitlines() if "Sucessfully updated" in line
                       and columns["department"] in line and "None" in line]
            checks.append(("run 3 sends the emptied department as \"\" and reads null back", len(emptied) == 3,
                           f"{len(emptied)} of 3"))

            assets = all_assets(svc.api)
            serials = [asset["serial"] for asset in assets]
            expected = jamf_standin.expected_values(3)
            once = sorted(serials) == sorted(expected)
            checks.append(("each device exists exactly once after 3 runs", once, f"{len(assets)} assets: {serials}"))
            models = svc.api.rows("models?limit=500")
            fieldsets = {model["model_number"]: (model.get("fieldset") or {}).get("id") for model in models}
            want_sets = {c["model_identifier"]: ids["computer_fieldset"] for c in jamf_standin.COMPUTERS}
            want_sets.update({m["model_identifier"]: ids["mobile_fieldset"] for m in jamf_standin.MOBILES})
            checks.append(("jamf2snipe created 3 models, each with its fieldset", fieldsets == want_sets,
                           json.dumps(fieldsets)))
            wrong = []
            for asset in assets:
                jamf = expected.get(asset["serial"], {})
                values = custom_values(asset)
                for key, column in columns.items():
                    if key in jamf and values.get(column) != str(jamf[key]):
                        wrong.append(f"{asset['serial']} {column}={values.get(column)!r} (Jamf {jamf[key]!r})")
                if asset["name"] != jamf.get("name"):
                    wrong.append(f"{asset['serial']} name={asset['name']!r}")
            checks.append(("the custom fields hold the Jamf values of the last run", not wrong, "; ".join(wrong[:4])))
            tags = dict(inventory.asset_tags)
            checks.append(("jamf2snipe wrote the asset tags back to Jamf", len(tags) == 4, json.dumps(
                {f"{kind}/{jamf_id}": tag for (kind, jamf_id), tag in tags.items()})))
            counts = f"{len(assets)} assets, {len(models)} models, {updated} values confirmed in run 2"
    finally:
        jamf_server.shutdown()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return report(f"jamf2snipe {version} drill ({counts})"
                  + (f"; logs in {workdir}" if args.keep else ""), checks)


if __name__ == "__main__":
    sys.exit(main())
