"""``/health`` (liveness) and ``/health/ready`` (readiness): no token, JSON, nothing secret, 503 when a check
fails."""

from __future__ import annotations

import pytest

from assetsvc import health
from assetsvc.registry import STORES

pytestmark = pytest.mark.django_db


@pytest.fixture
def extra_check():
    """Register a readiness check for one test only."""
    added = []

    def add(name, check):
        health.register_readiness_check(name, check)
        added.append(name)

    yield add
    for name in added:
        STORES["readiness_checks"].pop(name, None)


def test_liveness_needs_no_token_and_touches_nothing(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/health")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_readiness_reports_database_and_cache(client):
    response = client.get("/health/ready")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True and body["checks"]["cache"]["ok"] is True
    assert all(isinstance(check["ms"], float) for check in body["checks"].values())


def test_a_failing_check_makes_the_service_unready_without_leaking_its_error(client, extra_check):
    def broken():
        raise ConnectionError("could not connect to server at secret-host:5432 password=hunter2")

    extra_check("broken", broken)
    response = client.get("/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["broken"]["ok"] is False and body["checks"]["broken"]["error"] == "ConnectionError"
    assert "secret-host" not in response.content.decode() and "hunter2" not in response.content.decode()


def test_a_check_that_answers_not_ok_is_reported_as_is(client, extra_check):
    extra_check("backlog", lambda: {"ok": False, "queued": 12, "oldest_age_seconds": 900})
    body = client.get("/health/ready").json()
    assert body["checks"]["backlog"] == {"ok": False, "queued": 12, "oldest_age_seconds": 900,
                                         "ms": body["checks"]["backlog"]["ms"]}


def test_only_get(client):
    assert client.post("/health").status_code == 405
    assert client.post("/health/ready").status_code == 405


def test_a_cache_outage_is_degraded_not_unready(client, settings):
    from django.core.cache import caches

    from tests.live import free_port

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
                                   "OPTIONS": {"socket_connect_timeout": 1}}}
    try:
        response = client.get("/health/ready")
    finally:
        caches["default"].close()
    body = response.json()
    assert response.status_code == 200 and body["status"] == "degraded"
    assert body["checks"]["cache"]["ok"] is False and body["checks"]["database"]["ok"] is True


def test_readiness_reports_the_notification_backlog(client, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from notifications.delivery import deliver_notification

    assert client.get("/health/ready").json()["checks"]["notifications"]["queued"] == 0
    deliver_notification.enqueue(job="{}")  # a notification nobody has delivered yet
    DBTaskResult.objects.update(enqueued_at=timezone.now() - timedelta(seconds=400))
    response = client.get("/health/ready")
    check = response.json()["checks"]["notifications"]
    # Issue 25 item 10: a backlog is the workers' business: the web node stays in service, "degraded" (was 503).
    assert response.status_code == 200 and response.json()["status"] == "degraded" and check["ok"] is False
    assert check["queued"] == 1 and check["oldest_age_seconds"] >= 400 and check["max_age_seconds"] == 300
    worker = client.get("/health/worker")  # the separate check monitoring alerts on
    assert worker.status_code == 503 and worker.json()["status"] == "unavailable"
    assert worker.json()["checks"]["notifications"]["queued"] == 1
    monkeypatch.setenv("WEBHOOK_BACKLOG_MAX_AGE", "3600")
    assert client.get("/health/ready").json()["status"] == "ok"
    assert client.get("/health/worker").status_code == 200


def test_the_readiness_answer_is_reused_briefly(client, settings, django_assert_num_queries, extra_check):
    """Issue 25 item 9: /health/ready is unthrottled; a process computes its answer at most once per
    HEALTH_READY_CACHE_SECONDS, so a flood of probes runs no query, and a change shows once that time has passed."""
    settings.ASSETSVC = {**settings.ASSETSVC, "HEALTH_READY_CACHE_SECONDS": 1}
    health._answer = None
    calls = []
    extra_check("counted", lambda: calls.append(1) or {"ok": True})
    first = client.get("/health/ready")
    with django_assert_num_queries(0):
        again = [client.get("/health/ready") for _ in range(20)]
    assert len(calls) == 1 and all(answer.json() == first.json() for answer in again)
    assert "no-cache" in again[0]["Cache-Control"] or "max-age=0" in again[0]["Cache-Control"]
    health._answer = (health._answer[0] - 1.5, *health._answer[1:])  # as if 1.5 s had passed
    client.get("/health/ready")
    assert len(calls) == 2
