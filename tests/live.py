"""Real processes for the live tests and the drills (issue 12): gunicorn web servers and ``db_worker`` task workers
started against the test database, killed and started again.

The test database is the one pytest-django created (``transactional_db``: the processes only see committed rows).
Every process gets its own cache key prefix per test so rate-limit counters never leak between tests.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import requests
from django.conf import settings as django_settings

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    """The URL of the test database pytest-django created (PostgreSQL or a file SQLite)."""
    db = django_settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = db.get("PASSWORD") or ""
    return f"postgres://{db['USER']}:{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def live_env(**overrides: str) -> dict[str, str]:
    """The environment of a live process: this test's database, a cache prefix of its own, no surprises."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "assetsvc.settings",
        "DATABASE_URL": database_url(),
        "CACHE_KEY_PREFIX": f"live-{uuid.uuid4().hex}",
        "SECRET_KEY": "live-test-only",
        "DEBUG": "false",
    }
    env.update(overrides)
    return {key: value for key, value in env.items() if value is not None}


def child_pids(pid: int) -> list[int]:
    """The direct children of a process (gunicorn's workers of its master), from /proc."""
    children: list[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    for task in task_dir.iterdir() if task_dir.exists() else ():
        try:
            children += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return children


def rss_kib(pid: int) -> int:
    """A process's resident memory in KiB (``VmRSS`` of /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise ValueError(f"no VmRSS for {pid}")


class StderrDrain:
    """Reads a process's stderr in the background, so a chatty process (503 warnings, tracebacks) never blocks on a
    full pipe, and so a test can look for a log line or show the end of the log when it fails."""

    def __init__(self, stream):
        self.lines: list[str] = []
        self._stream = stream
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for line in iter(self._stream.readline, b""):
                self.lines.append(line.decode(errors="replace"))
        except (ValueError, OSError):  # the stream was closed
            pass

    def text(self) -> str:
        return "".join(self.lines)

    def close(self, timeout: float = 5) -> str:
        """Wait for the end of the stream (the process has exited), close it; everything read."""
        self._thread.join(timeout)
        self._stream.close()
        return self.text()


class PortInUse(RuntimeError):
    """gunicorn could not bind its port: another process listens there."""


class Gunicorn:
    """A gunicorn master with ``workers`` worker processes serving the service on a free port."""

    def __init__(self, env: dict[str, str], *, workers: int = 2, threads: int = 4, port: int | None = None,
                 extra_args: tuple[str, ...] = ()):
        self.env = env
        self.workers = workers
        self.threads = threads
        self.port = port or free_port()
        self.port_chosen = port is None
        self.extra_args = extra_args
        self.process: subprocess.Popen | None = None
        self.log: StderrDrain | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Gunicorn:
        """Starts gunicorn and waits for its workers. A free port is only free until someone binds it: with tests in
        parallel (pytest-xdist) another process may take it between ``free_port()`` and gunicorn's bind, so a port
        chosen here is chosen again (twice at most) when gunicorn finds it in use."""
        for attempt in range(3):
            try:
                return self._start(timeout)
            except PortInUse:
                if not self.port_chosen or attempt == 2:
                    raise
                self.port = free_port()
        raise AssertionError("unreachable")

    def _start(self, timeout: float) -> Gunicorn:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "assetsvc.wsgi", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(self.workers), "--threads", str(self.threads), *self.extra_args],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self.log = StderrDrain(self.process.stderr)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = self.log.close()
                self.process = None
                error = PortInUse if "Connection in use" in log or "Address already in use" in log else RuntimeError
                raise error("gunicorn exited: " + log[-2000:])
            try:
                requests.get(f"{self.base}/health", timeout=5)
                if len(self.worker_pids()) >= self.workers:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.2)
        self.kill()
        raise RuntimeError("gunicorn did not start in time")

    def worker_pids(self) -> list[int]:
        return child_pids(self.process.pid) if self.process else []

    def kill(self) -> None:
        """kill -9 of the master and of every worker: a crash, nothing flushed or finished."""
        if self.process is None:
            return
        for pid in self.worker_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.kill()
        self.process.wait(timeout=15)
        self.log.close()
        self.process = None

    def stop(self) -> None:
        """A graceful stop (SIGTERM), killed with its workers if it takes longer than 15 s."""
        if self.process is not None and not terminated(self.process):
            self.kill()
            return
        if self.process is not None:
            self.log.close()
            self.process = None


class DbWorker:
    """One ``manage.py db_worker`` task worker (the notification deliverer), polling every 0.2 s."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        self.process: subprocess.Popen | None = None
        self.log: StderrDrain | None = None

    def start(self) -> DbWorker:
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2", "--no-startup-delay"],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self.log = StderrDrain(self.process.stderr)
        return self

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=15)
            self.log.close()
            self.process = None

    def stop(self) -> str:
        """A graceful stop; the end of the worker's stderr, for failure messages."""
        if self.process is None:
            return ""
        if not terminated(self.process):
            self.process.kill()
            self.process.wait(timeout=15)
        self.process = None
        return self.log.close()[-3000:]


def terminated(process: subprocess.Popen, timeout: float = 15) -> bool:
    """SIGTERM, then wait: whether the process stopped by itself within ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def wait_until(predicate, timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
