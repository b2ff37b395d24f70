"""Time ``manage.py import_snipeit`` of a whole generated Snipe-IT against the stand-in (issue 31; docs/performance.md,
"Switching from Snipe-IT").

    .venv/bin/python benchmarks/import_snipeit.py [--assets 100000] [--log-rows 200000] [--custom-fields 10] \
        [--database-url postgres://postgres@127.0.0.1:5432/assetsvc_bench_snipeit] [--verify]

Generates the data set (``tests/snipeit/dataset.py``: users are a fifth of the assets, ~10 % maintenances, files,
every kind), serves it from the stand-in in this process (``tests/snipeit/standin.py``, answers pre-rendered), drops
and re-creates the database, migrates it, then runs the real command in a child process, as an operator would, and
prints its wall-clock time, each kind's time (from the command's log lines), the report and the peak memory of the
child (its ``VmHWM``). With ``--verify`` it then times ``import_snipeit --verify`` too. The database is dropped at
the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

TOKEN = "snipeit-bench-token-not-a-secret"
KIND_LINE = re.compile(r"^(\S+ \S+) INFO inventory\.snipeit (read (\S+): |snipeit import: (\S+): )")


def _env(url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "bench-only", "DEBUG": "false",
            "SNIPEIT_TOKEN": TOKEN, "DJANGO_SETTINGS_MODULE": "assetsvc.settings"}


def _kind_times(log: str) -> list[tuple[str, float]]:
    """Seconds per kind: from the previous kind's last line to this kind's "snipeit import: KIND" line."""
    times: list[tuple[str, float]] = []
    previous: datetime | None = None
    for line in log.splitlines():
        match = KIND_LINE.match(line)
        if not match:
            continue
        stamp = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f")
        if previous is None:
            previous = stamp
        if match.group(4):
            times.append((match.group(4), (stamp - previous).total_seconds()))
            previous = stamp
    return times


def _run_measured(argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``argv`` and return it with its peak RSS in KiB, read from ``/proc/PID/status`` (``VmHWM``) while it runs:
    ``RUSAGE_CHILDREN`` would count the fork of this process, which holds the whole served data set, before exec."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=err, text=True)
        peak = 0
        while child.poll() is None:
            try:
                status = Path(f"/proc/{child.pid}/status").read_text()
                peak = max(peak, int(re.search(r"VmHWM:\s+(\d+)", status).group(1)))  # type: ignore[union-attr]
            except (OSError, AttributeError):
                pass
            time.sleep(0.5)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, child.returncode, out.read(), err.read()), peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=int, default=100_000)
    parser.add_argument("--log-rows", type=int, default=200_000)
    parser.add_argument("--custom-fields", type=int, default=10)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/assetsvc_bench_snipeit")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    from run import drop_database, reset_database  # benchmarks/run.py: the same database handling as `make bench`

    from tests.snipeit.dataset import generate
    from tests.snipeit.standin import SnipeitStandin

    kind = "sqlite" if args.database_url.startswith("sqlite") else "postgresql"
    started = time.monotonic()
    dataset = generate(seed=args.seed, assets=args.assets, log_rows=args.log_rows, custom_fields=args.custom_fields)
    print(f"data set: {args.assets} assets, {len(dataset.raw['users'])} users, {args.log_rows} log rows, "
          f"{args.custom_fields} custom fields; generated in {time.monotonic() - started:.1f} s", flush=True)
    reset_database(args.database_url, kind)
    env = _env(args.database_url)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    with SnipeitStandin(dataset, token=TOKEN) as standin:
        print(f"stand-in at {standin.url}; importing into {args.database_url.rsplit('/', 1)[-1]} ({kind})",
              flush=True)
        started = time.monotonic()
        done, peak = _run_measured([sys.executable, "manage.py", "import_snipeit", "--url", standin.url], env)
        took = time.monotonic() - started
        print(done.stdout)
        if done.returncode != 0:
            print(done.stderr[-5000:])
            raise SystemExit(f"import_snipeit failed ({done.returncode})")
        print(f"import_snipeit: {took:.1f} s wall clock ({took / 60:.2f} min), its peak RSS {peak / 1024:.0f} MiB")
        for name, seconds in _kind_times(done.stderr):
            print(f"  {name:<14} {seconds:8.1f} s")
        if args.verify:
            started = time.monotonic()
            verified = subprocess.run([sys.executable, "manage.py", "import_snipeit", "--url", standin.url,
                                       "--verify"], cwd=ROOT, env=env, capture_output=True, text=True)
            print(verified.stdout[-3000:])
            print(f"import_snipeit --verify: {time.monotonic() - started:.1f} s, exit {verified.returncode}")
    if not args.keep:
        drop_database(args.database_url, kind)


if __name__ == "__main__":
    main()
