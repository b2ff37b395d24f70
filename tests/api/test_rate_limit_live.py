"""The rate limit holds across worker processes: two gunicorn workers sharing Redis (PostgreSQL runs only)."""

from __future__ import annotations

import os
import re
import time

import pytest
import requests

from accounts.services import personal_token_issue
from tests.factories import UserFactory
from tests.live import Gunicorn, live_env


@pytest.fixture
def gunicorn_two_workers(transactional_db, tmp_path):
    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "the live rate-limit test needs REDIS_URL (CI sets it with DATABASE_URL)"
    access_log = tmp_path / "access.log"
    server = Gunicorn(live_env(REDIS_URL=redis_url, API_THROTTLE_PER_MINUTE="120"), workers=2, threads=2,
                      extra_args=("--access-logfile", str(access_log), "--access-logformat", "%(p)s %(s)s")).start()
    try:
        yield server.base, access_log
    finally:
        server.stop()


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
