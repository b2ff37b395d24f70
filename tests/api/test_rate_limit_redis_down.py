"""The rate limiter when its counter's store (Redis) cannot be reached (issue 12, docs/operations.md): requests are
served, not refused and never a 500, with the limit headers and one warning a minute per process."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import caches

from assetsvc.api import middleware
from tests.live import free_port


@pytest.fixture
def redis_down(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
                                   "OPTIONS": {"socket_connect_timeout": 1}}}
    middleware.ApiRateLimitMiddleware._warned_at = 0.0
    yield
    caches["default"].close()


@pytest.mark.django_db
def test_requests_are_served_unlimited_with_a_warning(redis_down, token_client, caplog, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 2}
    with caplog.at_level(logging.WARNING, logger="assetsvc.api"):
        answers = [token_client.get("/api/v1/users/me") for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200] * 4  # beyond the limit of 2: nothing counts
    assert all(answer["X-RateLimit-Limit"] == "2" and answer["X-RateLimit-Remaining"] == "2" for answer in answers)
    warnings = [record for record in caplog.records if "Rate limiter unavailable" in record.getMessage()]
    assert len(warnings) == 1


@pytest.mark.django_db
def test_anonymous_callers_get_401_not_500(redis_down, api_client):
    response = api_client.get("/api/v1/hardware")
    assert response.status_code == 401 and response.json()["message"] == "Unauthenticated."
