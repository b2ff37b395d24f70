"""Outage drills (issue 12, docs/operations.md), run on the PostgreSQL leg of CI against real gunicorn processes
(``tests/live.py``), each bounded in time:

1. PostgreSQL kills the service's connections (``pg_terminate_backend``) in the middle of a burst of writes: every
   answer is a success or the 503 envelope, the service recovers by itself, and no write is left half done.
2. Redis (the rate limiter's counter) is stopped and started again: requests are served unlimited meanwhile (fail
   open, with the limit headers, never a 500) and the limit counts again once it is back.
3. A flood of 20,000 mixed requests from 8 keep-alive clients against 2 workers: no 5xx, the per-user limit exact,
   worker memory flat and no worker restarted.

Run: ``DATABASE_URL=postgres://... REDIS_URL=redis://... pytest -p no:xdist -s tests/drills/test_outage_drills.py``
(``-s`` prints the figures).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from django.db import connection

from accounts.services import personal_token_issue
from activity.models import ActionLog
from assetsvc.api.exceptions import BUSY
from inventory.models import Asset
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.live import Gunicorn, StderrDrain, free_port, live_env, rss_kib, wait_until

UNAVAILABLE = "The service is temporarily unavailable: its database cannot be reached. Try again shortly."
OUTAGE_ENVELOPE = {"status": "error", "message": UNAVAILABLE, "messages": UNAVAILABLE, "payload": None}
#: No request of a drill may take longer than this: a hang is a failure, not a slow answer.
REQUEST_TIMEOUT = 30
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def serve(env: dict[str, str], **kwargs) -> tuple[Gunicorn, StderrDrain]:
    server = Gunicorn(env, **kwargs).start(timeout=60)
    return server, server.log


def bearer(user) -> dict[str, str]:
    _, raw = personal_token_issue(user=user)
    return {"Authorization": f"Bearer {raw}", "Accept": "application/json"}


def is_json(response: requests.Response) -> bool:
    return response.headers.get("Content-Type", "").startswith("application/json")


# 1. PostgreSQL terminates the service's connections during a burst of writes -----------------------------------------

def terminate_service_backends() -> int:
    """``pg_terminate_backend`` of every other connection to the test database: the gunicorn workers' (this test's
    own connection is spared, so the test can go on checking)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.live
def test_terminated_connections_mid_burst_answer_503_or_success_and_leave_no_partial_write(transactional_db):
    from django.conf import settings

    assert settings.DATABASES["default"]["CONN_MAX_AGE"] > 0, "persistent connections make this drill meaningful"
    admin = UserFactory(superuser=True)
    holder = UserFactory()
    model, status = AssetModelFactory(), StatusLabelFactory()
    to_check_out = [AssetFactory(model=model, status=status, asset_tag=f"OUT-{n:03d}") for n in range(90)]
    headers = bearer(admin)
    jobs = []
    for n, asset in enumerate(to_check_out):  # checkouts and creates interleaved
        jobs.append(("checkout", asset.pk, f"/api/v1/hardware/{asset.pk}/checkout",
                     {"checkout_to_type": "user", "assigned_user": holder.pk, "note": "drill"}))
        jobs.append(("create", f"NEW-{n:03d}", "/api/v1/hardware",
                     {"asset_tag": f"NEW-{n:03d}", "model_id": model.pk, "status_id": status.pk}))

    server, drain = serve(live_env(API_THROTTLE_PER_MINUTE="100000", DB_CONNECT_TIMEOUT="3"), workers=2, threads=4)
    answers: dict[tuple[str, object], requests.Response | Exception] = {}
    done = threading.Semaphore(0)
    local = threading.local()

    def send(job):
        kind, key, path, body = job
        session = getattr(local, "session", None) or requests.Session()
        local.session = session
        try:
            answers[kind, key] = session.post(f"{server.base}{path}", json=body, headers=headers,
                                              timeout=REQUEST_TIMEOUT)
        except requests.RequestException as exc:
            answers[kind, key] = exc
        done.release()

    terminated = []
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=6) as pool:
            futures = [pool.submit(send, job) for job in jobs]
            # Mid-burst: after 20 answers, then every 15 more, while requests are in flight.
            for wave in range(4):
                for _ in range(20 if wave == 0 else 15):
                    assert done.acquire(timeout=REQUEST_TIMEOUT * 2), "the burst stopped answering"
                terminated.append(terminate_service_backends())
            for future in futures:
                future.result(timeout=REQUEST_TIMEOUT * 3)
        burst_seconds = time.monotonic() - started

        # Recovery by itself: the next requests, on every worker thread's (re-opened) connection, succeed.
        time.sleep(0.5)
        with requests.Session() as session:
            after = [session.get(f"{server.base}/api/v1/hardware?limit=1", headers=headers, timeout=REQUEST_TIMEOUT)
                     for _ in range(24)]
        assert [response.status_code for response in after] == [200] * 24, [r.text[:200] for r in after]
    finally:
        server.stop()

    failures = {key: answer for key, answer in answers.items() if isinstance(answer, Exception)}
    assert not failures, f"requests without an answer (a hang or a dropped connection): {failures}"
    statuses = Counter(answer.status_code for answer in answers.values())
    print(f"\n[outage drill] {len(jobs)} writes in {burst_seconds:.1f} s, backends terminated per wave {terminated}, "
          f"answers {dict(statuses)}")
    assert sum(terminated) > 0, "the drill terminated nothing"
    assert statuses[503] > 0, "no request was cut off mid-flight: only idle connections were terminated"
    for key, answer in answers.items():
        assert is_json(answer), (key, answer.status_code, answer.text[:300])
        # 409 "busy; try again": a lock wait that gave up (a deadlock between two writers of the burst), rolled back
        # whole, as the handler answers it anywhere; seen once in CI (issue 27's last run). Which lock: to find out.
        assert answer.status_code in (200, 409, 503), (key, answer.status_code, answer.text[:500],
                                                       drain.text()[-3000:])
        if answer.status_code == 503:
            assert answer.json() == OUTAGE_ENVELOPE
        elif answer.status_code == 409:
            assert answer.json()["message"] == BUSY, (key, answer.text[:300], drain.text()[-3000:])
        else:
            assert answer.json()["status"] == "success", (key, answer.text[:300])

    # No partial write. A success is fully written; a 503 is either nothing or (the commit went through and the
    # connection died before the answer was built) fully written: never a half.
    committed_though_503 = 0
    lost_answers = []
    for asset in to_check_out:
        asset.refresh_from_db()
        logs = ActionLog.objects.filter(item_type="asset", item_id=asset.pk, action_type="checkout").count()
        written = (asset.assigned_user_id == holder.pk, asset.checkout_counter == 1, logs == 1)
        assert written in {(True, True, True), (False, False, False)} and asset.checkout_counter <= 1 and logs <= 1, \
            (asset.asset_tag, written, asset.checkout_counter, logs)
        if answers["checkout", asset.pk].status_code == 200:
            assert all(written), asset.asset_tag
        elif answers["checkout", asset.pk].status_code == 409:
            assert not any(written), asset.asset_tag
        elif all(written):
            committed_though_503 += 1
            lost_answers.append(asset.asset_tag)
    created = {asset.asset_tag: asset for asset in Asset.objects.filter(asset_tag__startswith="NEW-")}
    for (kind, tag), answer in answers.items():
        if kind != "create":
            continue
        if answer.status_code == 200:
            assert tag in created and answer.json()["payload"]["id"] == created[tag].pk, tag
        if answer.status_code == 409:
            assert tag not in created, tag  # refused as busy: nothing of it written
        if tag in created:
            assert ActionLog.objects.filter(item_type="asset", item_id=created[tag].pk,
                                            action_type="create").count() == 1, tag
            if answer.status_code == 503:
                committed_though_503 += 1
                lost_answers.append(tag)
    assert not set(created) - {key for kind, key in answers if kind == "create"}
    print(f"[outage drill] committed but answered 503 (the answer was lost with the connection): "
          f"{committed_though_503} {lost_answers}; 503 causes logged: "
          f"{dict(Counter(line.split(': ')[-1].strip() for line in drain.lines if 'Database unavailable' in line))}")
    assert "Internal Server Error" not in drain.text(), drain.text()[-3000:]


# 2. Redis stopped and started again under the rate limiter ------------------------------------------------------------

class RedisServer:
    """A throwaway ``redis-server`` (nothing saved) on a fixed port, to stop and start again."""

    def __init__(self, port: int):
        self.port = port
        self.process: subprocess.Popen | None = None

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        assert wait_until(self.answers, timeout=15), "redis-server did not start"
        return self

    def answers(self) -> bool:
        import redis

        try:
            return redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=1).ping()
        except redis.RedisError:
            return False

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=15)
            self.process = None


def fresh_window_burst(session: requests.Session, url: str, headers: dict[str, str], limit: int):
    """Spends the rest of the caller's budget and one more request, in one fixed window: the answers after the
    first (which waits for a fresh window when the current one is about to end)."""
    first = session.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
    if int(first.headers["X-RateLimit-Reset"]) < 10:
        time.sleep(int(first.headers["X-RateLimit-Reset"]) + 0.5)
        first = session.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
    assert first.status_code == 200, first.text
    left = int(first.headers["X-RateLimit-Remaining"])
    burst = [session.get(url, headers=headers, timeout=REQUEST_TIMEOUT) for _ in range(left + 1)]
    windows = {answer.headers["X-RateLimit-Reset-Timestamp"] for answer in [first, *burst]}
    stamps = sorted(int(stamp) for stamp in windows)
    assert stamps[-1] - stamps[0] <= 2, f"the burst crossed a window: {stamps}"
    return left, burst


@pytest.mark.postgres
@pytest.mark.live
def test_redis_stopped_fails_open_and_the_limit_is_back_after_a_restart(transactional_db):
    limit = 5
    headers = bearer(UserFactory(superuser=True))
    redis_server = RedisServer(free_port()).start()
    server, drain = serve(live_env(REDIS_URL=f"redis://127.0.0.1:{redis_server.port}/0",
                                   API_THROTTLE_PER_MINUTE=str(limit)), workers=2, threads=4)
    url = f"{server.base}/api/v1/users/me"
    started = time.monotonic()
    try:
        with requests.Session() as session:
            # Limited while Redis runs.
            left, burst = fresh_window_burst(session, url, headers, limit)
            assert [answer.status_code for answer in burst] == [200] * left + [429]
            assert burst[-1].json() == {"message": "Too Many Requests"} and int(burst[-1].headers["Retry-After"]) >= 1

            # Redis stopped: every request is served, unlimited, with the limit headers; never a 500.
            redis_server.kill()
            down = [session.get(url, headers=headers, timeout=REQUEST_TIMEOUT) for _ in range(3 * limit)]
            assert [answer.status_code for answer in down] == [200] * (3 * limit), [a.text[:200] for a in down]
            assert all(answer.headers["X-RateLimit-Limit"] == str(limit)
                       and answer.headers["X-RateLimit-Remaining"] == str(limit) for answer in down)
            anonymous = session.get(f"{server.base}/api/v1/hardware", timeout=REQUEST_TIMEOUT)
            assert anonymous.status_code == 401 and is_json(anonymous)
            assert wait_until(lambda: "Rate limiter unavailable" in drain.text(), timeout=5), drain.text()[-2000:]

            # Redis back on the same port (empty): the limit counts again, by itself.
            redis_server.start()
            left, burst = fresh_window_burst(session, url, headers, limit)
            assert left < limit, "the first request after the restart was counted"
            assert [answer.status_code for answer in burst] == [200] * left + [429]
            assert [int(answer.headers["X-RateLimit-Remaining"]) for answer in burst] == [*range(left - 1, -1, -1),
                                                                                          0]
    finally:
        server.stop()
        redis_server.kill()
    print(f"\n[redis drill] {time.monotonic() - started:.1f} s")
    assert "Internal Server Error" not in drain.text()


# 3. A flood: 20,000 mixed requests from 8 clients against 2 workers ---------------------------------------------------

FLOOD_REQUESTS = 20_000
FLOOD_CLIENTS = 8
#: Every user's budget. The flood spreads the ordinary users' requests so that none of them (nor the anonymous
#: callers' shared address bucket) sends that many in the whole flood: their not being limited is certain, not a
#: matter of speed. One user sends more than the budget within one window and must be refused exactly beyond it.
FLOOD_BUDGET = 1000
FLOOD_USERS = 40
LIMITED_REQUESTS = 1200
WARM_UP = 2_000
RSS_GROWTH_LIMIT_KIB = 20 * 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (``/proc/PID/stat``), to tell the service's own cost per request
    from the time lost to other processes on a shared machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.postgres
@pytest.mark.live
def test_flood_of_20000_mixed_requests(transactional_db):
    assert os.environ.get("REDIS_URL"), "the flood needs REDIS_URL (the workers share the rate-limit counter)"
    users = [UserFactory(superuser=True) for _ in range(FLOOD_USERS)]
    tokens = [bearer(user) for user in users]
    limited = bearer(UserFactory(superuser=True))
    model, status, location = AssetModelFactory(), StatusLabelFactory(), LocationFactory()
    companies = [CompanyFactory() for _ in range(3)]
    assets = [AssetFactory(model=model, status=status, company=companies[n % 3]) for n in range(12)]
    invalid = {"Authorization": "Bearer not-a-token", "Accept": "application/json"}

    # (method, path, body, headers index or None/"invalid", expected status)
    reads = [
        ("get", "/api/v1/hardware?limit=5", 200), ("get", "/api/v1/users?limit=5", 200),
        ("get", "/api/v1/companies", 200), ("get", "/api/v1/locations", 200), ("get", "/api/v1/models", 200),
        ("get", "/api/v1/statuslabels", 200), ("get", "/api/v1/users/me", 200),
        *[("get", f"/api/v1/hardware/{asset.pk}", 200) for asset in assets[:4]],
        ("get", f"/api/v1/companies/{companies[0].pk}", 200), ("get", f"/api/v1/models/{model.pk}", 200),
        ("get", "/api/v1/no-such-endpoint", 404),
    ]
    rng = random.Random(12)
    plan: list[list[tuple]] = [[] for _ in range(FLOOD_CLIENTS)]
    per_client = FLOOD_REQUESTS // FLOOD_CLIENTS
    sequence = 0
    created = 0
    for client in range(FLOOD_CLIENTS):
        for position in range(per_client):
            if position < LIMITED_REQUESTS // FLOOD_CLIENTS:  # first, all together: seconds, well inside a window
                plan[client].append(("limited", "get", "/api/v1/users/me", None, limited, None))
                continue
            roll = rng.random()
            who = tokens[sequence % FLOOD_USERS]
            sequence += 1
            if roll < 0.01:
                plan[client].append(("anonymous", "get", "/api/v1/hardware", None, {}, 401))
            elif roll < 0.02:
                plan[client].append(("invalid token", "get", "/api/v1/users/me", None, invalid, 401))
            elif roll < 0.03:
                created += 1
                plan[client].append(("create", "post", "/api/v1/hardware",
                                     {"asset_tag": f"FLOOD-{created:05d}", "model_id": model.pk,
                                      "status_id": status.pk, "rtd_location_id": location.pk}, who, 200))
            elif roll < 0.035:  # invalid input: Snipe-IT's 200 error envelope (API_ERROR_STATUS=compat)
                plan[client].append(("invalid input", "post", "/api/v1/hardware", {"asset_tag": ""}, who, 200))
            elif roll < 0.04:
                plan[client].append(("bad json", "post", "/api/v1/hardware", b"{not json", who, 422))
            elif roll < 0.06:
                plan[client].append(("missing", "get", "/api/v1/hardware/99999999", None, who, 200))
            else:
                method, path, expected = rng.choice(reads)
                plan[client].append(("read", method, path, None, who, expected))
    assert sum(len(requests_) for requests_ in plan) == FLOOD_REQUESTS
    anonymous_total = sum(1 for requests_ in plan for entry in requests_ if entry[0] in ("anonymous", "invalid token"))
    assert anonymous_total < FLOOD_BUDGET and FLOOD_REQUESTS / FLOOD_USERS < FLOOD_BUDGET

    server, drain = serve(live_env(API_THROTTLE_PER_MINUTE=str(FLOOD_BUDGET)), workers=2, threads=4)
    try:
        pids = sorted(server.worker_pids())
        assert len(pids) == 2
        with requests.Session() as session:  # the limited user's burst starts in a fresh window, with room
            first = session.get(f"{server.base}/api/v1/users/me", headers=limited, timeout=REQUEST_TIMEOUT)
            if int(first.headers["X-RateLimit-Reset"]) < 30:  # the burst takes ~10 s at ~100 req/s
                time.sleep(int(first.headers["X-RateLimit-Reset"]) + 0.5)
                first = session.get(f"{server.base}/api/v1/users/me", headers=limited, timeout=REQUEST_TIMEOUT)
        limited_left = int(first.headers["X-RateLimit-Remaining"])
        limited_reset = int(first.headers["X-RateLimit-Reset"])

        results: list[list[tuple]] = [[] for _ in range(FLOOD_CLIENTS)]
        answered = [0]
        lock = threading.Lock()
        rss_warm: dict[int, int] = {}

        def run(client: int) -> None:
            with requests.Session() as session:
                for kind, method, path, body, who, expected in plan[client]:
                    sent = time.monotonic()
                    if isinstance(body, bytes):
                        response = session.request(method, f"{server.base}{path}", data=body, timeout=REQUEST_TIMEOUT,
                                                    headers={**who, "Content-Type": "application/json"})
                    else:
                        response = session.request(method, f"{server.base}{path}", json=body, headers=who,
                                                   timeout=REQUEST_TIMEOUT)
                    results[client].append((kind, path, expected, response.status_code, time.monotonic() - sent,
                                            response.headers.get("X-RateLimit-Reset-Timestamp"),
                                            response.headers.get("X-RateLimit-Remaining"),
                                            is_json(response), time.monotonic() - started))
                    with lock:
                        answered[0] += 1
                        if answered[0] == WARM_UP:
                            rss_warm.update({pid: rss_kib(pid) for pid in pids})

        cpu_before = sum(cpu_seconds(pid) for pid in pids)
        client_cpu_before = sum(os.times()[:2])
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=FLOOD_CLIENTS) as pool:
            for future in [pool.submit(run, client) for client in range(FLOOD_CLIENTS)]:
                future.result(timeout=600)
        elapsed = time.monotonic() - started
        rss_end = {pid: rss_kib(pid) for pid in pids}
        server_cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
        client_cpu = sum(os.times()[:2]) - client_cpu_before
        pids_after = sorted(server.worker_pids())
    finally:
        server.stop()

    answers = [answer for client in results for answer in client]
    assert len(answers) == FLOOD_REQUESTS
    latencies = sorted(answer[4] for answer in answers)
    print(f"\n[flood] {FLOOD_REQUESTS} requests, {FLOOD_CLIENTS} clients, 2 workers x 4 threads: {elapsed:.1f} s, "
          f"{FLOOD_REQUESTS / elapsed:.0f} req/s; latency p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
          f"p95 {latencies[int(len(latencies) * 0.95)] * 1000:.0f} ms, p99 "
          f"{latencies[int(len(latencies) * 0.99)] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms")
    print(f"[flood] CPU: workers {server_cpu:.1f} s ({server_cpu / FLOOD_REQUESTS * 1000:.1f} ms a request, "
          f"{server_cpu / elapsed:.2f} of the 2 CPUs), the 8 clients {client_cpu:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"[flood] RSS KiB after {WARM_UP} requests {rss_warm}, at the end {rss_end}; answers "
          f"{dict(Counter(answer[3] for answer in answers))}")

    assert not [answer for answer in answers if answer[3] >= 500], "5xx answers"
    assert all(answer[7] for answer in answers), "an /api/v1 answer that is not JSON"
    unexpected = Counter((kind, path, expected, got) for kind, path, expected, got, *_ in answers
                         if kind != "limited" and got != expected)
    assert not unexpected, unexpected
    assert min(int(answer[6]) for answer in answers if answer[0] != "limited" and answer[6] is not None) > 0

    limited_answers = [answer for answer in answers if answer[0] == "limited"]
    assert len(limited_answers) == LIMITED_REQUESTS
    print(f"[flood] the limited user's {LIMITED_REQUESTS} requests were answered within "
          f"{max(answer[8] for answer in limited_answers):.1f} s of the start (window left: {limited_reset} s)")
    windows = sorted({int(answer[5]) for answer in limited_answers}
                     | {int(first.headers["X-RateLimit-Reset-Timestamp"])})
    assert windows[-1] - windows[0] <= 2, f"the limited user's burst crossed a window: {windows}"
    assert Counter(answer[3] for answer in limited_answers) == {200: limited_left, 429: LIMITED_REQUESTS - limited_left}

    assert pids_after == pids, f"a worker was restarted: {pids} -> {pids_after}"
    for pid in pids:
        assert rss_end[pid] - rss_warm[pid] < RSS_GROWTH_LIMIT_KIB, (pid, rss_warm[pid], rss_end[pid])
    assert Asset.objects.filter(asset_tag__startswith="FLOOD-").count() == created
    assert "Traceback" not in drain.text(), drain.text()[-3000:]
