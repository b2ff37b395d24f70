"""``scripts/supervise``, which ``make serve`` runs the task worker under (issue 25 item 10: a worker that exited
stayed down, and notifications queued silently): a command that exits is started again, and stopping the script
stops the command it runs. Real processes."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUPERVISE = ROOT / "scripts" / "supervise"


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_a_command_that_exits_is_started_again_until_the_script_is_stopped(tmp_path):
    runs = tmp_path / "runs"
    child = f"open({str(runs)!r}, 'a').write('run\\n'); raise SystemExit(3)"
    process = subprocess.Popen([str(SUPERVISE), "--delay", "0.1", sys.executable, "-c", child],
                               stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: runs.exists() and runs.read_text().count("run") >= 3)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=10)
    assert process.returncode == 0
    assert "exited with status 3; starting it again" in err


def test_stopping_the_script_stops_the_command_it_runs(tmp_path):
    pid_file = tmp_path / "pid"
    child = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    process = subprocess.Popen([str(SUPERVISE), sys.executable, "-c", child])
    assert wait_for(lambda: pid_file.exists() and pid_file.read_text().strip())
    pid = int(pid_file.read_text())
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert wait_for(lambda: not Path(f"/proc/{pid}").exists(), timeout=5), "the supervised command outlived the script"


def test_make_serve_runs_the_task_worker_under_supervise():
    serve = (ROOT / "Makefile").read_text().split("\nserve:", 1)[1].split("\n\n", 1)[0]
    assert "scripts/supervise $(BIN)/python manage.py db_worker" in serve
