"""The rate limit holds across worker processes: two gunicorn workers sharing Redis (PostgreSQL runs only)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests
from django.conf import settings as django_settings

from accounts.services import personal_token_issue
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def gunicorn_two_workers(transactional_db, tmp_path):
    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "the live rate-limit test needs REDIS_URL (CI sets it with DATABASE_URL)"
    db = django_settings.DATABASES["default"]
    port = free_port()
    access_log = tmp_path / "access.log"
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db.get('PASSWORD') or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": redis_url,
        "CACHE_KEY_PREFIX": f"live-{uuid.uuid4().hex}",
        "SECRET_KEY": "live-test-only",
        "API_THROTTLE_PER_MINUTE": "120",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "assetsvc.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2",
         "--threads", "2", "--access-logfile", str(access_log), "--access-logformat", "%(p)s %(s)s"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            requests.get(f"{base}/api/v1/users/me", timeout=5)
            break
        except requests.RequestException:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("gunicorn did not start: " + process.stderr.read().decode()[-2000:])
    try:
        yield base, access_log
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.postgres
@pytest.mark.live
def test_121st_request_is_429_across_two_workers(gunicorn_two_workers):
    base, access_log = gunicorn_two_workers
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    headers = {"Authorization": f"Bearer {raw}", "Connection": "close"}

    first = requests.get(f"{base}/api/v1/users/me", headers=headers, timeout=10)
    if int(first.headers["X-RateLimit-Reset"]) < 45:  # let the burst fit in one fixed window, even on a busy CI
        time.sleep(int(first.headers["X-RateLimit-Reset"]) + 0.5)
        first = requests.get(f"{base}/api/v1/users/me", headers=headers, timeout=10)
    started = time.monotonic()
    used = 120 - int(first.headers["X-RateLimit-Remaining"])
    statuses = [first.status_code]
    windows = {first.headers["X-RateLimit-Reset-Timestamp"]}
    for _ in range(120 - used):
        response = requests.get(f"{base}/api/v1/users/me", headers=headers, timeout=10)
        statuses.append(response.status_code)
        windows.add(response.headers["X-RateLimit-Reset-Timestamp"])
    limited = requests.get(f"{base}/api/v1/users/me", headers=headers, timeout=10)
    elapsed = time.monotonic() - started
    stamps = [int(w) for w in windows]
    assert max(stamps) - min(stamps) <= 2, f"the burst crossed a window ({elapsed:.1f} s): {sorted(stamps)}"

    assert set(statuses) == {200}
    assert limited.status_code == 429, (elapsed, limited.headers)
    assert limited.json() == {"message": "Too Many Requests"}
    assert limited.headers["X-RateLimit-Remaining"] == "0"
    assert int(limited.headers["Retry-After"]) >= 1
    # The requests really were spread over both worker processes.
    time.sleep(0.5)
    log = access_log.read_text()
    pids = {line.split()[0] for line in log.splitlines() if re.match(r"^<\d+> \d{3}$", line)}
    assert len(pids) == 2, f"expected two worker pids in the access log, got {pids}: {log[:300]!r}"
