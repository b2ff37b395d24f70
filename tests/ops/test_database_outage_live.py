"""The API while its database cannot be reached (issue 12, docs/operations.md): a real gunicorn process whose
``DATABASE_URL`` points at a port nobody listens on answers every ``/api/v1`` request with the 503 error envelope,
quickly and as JSON, while ``/health`` stays alive and ``/health/ready`` reports the database."""

from __future__ import annotations

import time

import pytest
import requests

from tests.live import Gunicorn, free_port, live_env

UNAVAILABLE = "The service is temporarily unavailable: its database cannot be reached. Try again shortly."


@pytest.fixture
def server_without_database():
    env = live_env(DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/nowhere", DB_CONNECT_TIMEOUT="2",
                   REDIS_URL=None)
    server = Gunicorn(env, workers=1, threads=2).start()
    yield server.base
    server.stop()


@pytest.mark.parametrize(("method", "path"), [
    ("get", "/api/v1/hardware"),  # the token is looked up first: the outage is met in the middleware
    ("get", "/api/v1/users/me"),
    ("post", "/api/v1/hardware"),
])
def test_every_api_request_answers_the_503_envelope_quickly(server_without_database, method, path):
    started = time.monotonic()
    response = getattr(requests, method)(f"{server_without_database}{path}",
                                         headers={"Authorization": "Bearer not-checked-yet"}, json={}, timeout=15)
    elapsed = time.monotonic() - started
    assert response.status_code == 503, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json() == {"status": "error", "message": UNAVAILABLE, "messages": UNAVAILABLE, "payload": None}
    assert elapsed < 6
    # Like every /api/v1 answer it carries the rate-limit headers: the request could not be counted.
    assert response.headers["X-RateLimit-Remaining"] == response.headers["X-RateLimit-Limit"]
    assert "Retry-After" not in response.headers


def test_health_stays_alive_and_readiness_reports_the_database(server_without_database):
    assert requests.get(f"{server_without_database}/health", timeout=5).json() == {"status": "ok"}
    response = requests.get(f"{server_without_database}/health/ready", timeout=15)
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"]["ok"] is False and body["checks"]["cache"]["ok"] is True
    assert "nowhere" not in response.text and "postgres://" not in response.text
