"""Per-user rate limit of the specification's Limits section and API-CONTRACT.md §5."""

from __future__ import annotations

import time

import pytest

from accounts.services import personal_token_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ME = "/api/v1/users/me"


def start_of_window(client, headroom: int = 15, **extra):
    """Counters use fixed 60-second windows; wait for a fresh one if this one ends too soon for the burst.
    Returns the answer to one request made in the window the test then works in."""
    response = client.get(ME, **extra)
    if int(response["X-RateLimit-Reset"]) < headroom:
        time.sleep(int(response["X-RateLimit-Reset"]) + 0.2)
        response = client.get(ME, **extra)
    return response


def test_headers_on_every_api_answer(token_client, api_client):
    broken = token_client.post("/api/v1/account/personal-access-tokens", "{x", content_type="application/json")
    for response in (token_client.get(ME), api_client.get(ME), token_client.get("/api/v1/nope"), broken):
        assert response["X-RateLimit-Limit"] == "120"
        assert 0 <= int(response["X-RateLimit-Remaining"]) < 120
        assert 1 <= int(response["X-RateLimit-Reset"]) <= 60
        reset_at = time.time() + int(response["X-RateLimit-Reset"])
        assert abs(int(response["X-RateLimit-Reset-Timestamp"]) - reset_at) < 3
        assert "Retry-After" not in response


def test_the_121st_request_in_a_minute_is_429(make_client):
    client = make_client(UserFactory())
    first = start_of_window(client)
    already = 120 - int(first["X-RateLimit-Remaining"])
    for _ in range(120 - already):
        response = client.get(ME)
        assert response.status_code == 200
    assert response["X-RateLimit-Remaining"] == "0"
    limited = client.get(ME)
    assert limited.status_code == 429
    assert limited.json() == {"message": "Too Many Requests"}
    assert limited["X-RateLimit-Remaining"] == "0"
    assert limited["X-RateLimit-Limit"] == "120"
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert limited["Retry-After"] == limited["X-RateLimit-Reset"]


def test_limit_is_per_user_across_tokens_and_enforced_before_processing(make_client, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 5}
    owner = UserFactory()
    first = make_client(owner)
    assert start_of_window(first)["X-RateLimit-Remaining"] == "4"  # request 1 of this window
    second = make_client(owner)  # another token of the same user
    for _ in range(2):
        assert first.get(ME).status_code == 200
        assert second.get(ME).status_code == 200
    # 5 used: the next request, even a write, is refused before it runs.
    response = second.post("/api/v1/account/personal-access-tokens", {"name": "not created"}, format="json")
    assert response.status_code == 429
    from accounts.models import PersonalAccessToken

    assert not PersonalAccessToken.objects.filter(name="not created").exists()
    # Another user is unaffected.
    assert make_client(UserFactory()).get(ME).status_code == 200


def test_requests_without_a_valid_token_are_limited_per_ip(api_client, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 3}
    first = start_of_window(api_client, HTTP_AUTHORIZATION="Bearer nope")
    assert first.status_code == 401 and first["X-RateLimit-Remaining"] == "2"
    statuses = [api_client.get(ME, HTTP_AUTHORIZATION="Bearer nope").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]
    other_ip = api_client.get(ME, REMOTE_ADDR="10.1.1.1")
    assert other_ip.status_code == 401
    # A valid user's bucket is separate from the IP's.
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200


def test_setting_changes_the_limit(make_client, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 7}
    response = make_client(UserFactory()).get(ME)
    assert response["X-RateLimit-Limit"] == "7"
    assert response["X-RateLimit-Remaining"] == "6"


def test_non_api_paths_are_not_limited(client):
    response = client.get("/admin/login/")
    assert "X-RateLimit-Limit" not in response


def test_the_plain_http_refusal_is_counted_and_carries_the_headers(make_client, settings):
    """Issue 12 item 7: under ``APP_FORCE_TLS`` the 403 is an ``/api/v1`` answer like any other."""
    settings.APP_FORCE_TLS = True
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 5}
    client = make_client(UserFactory())
    first = start_of_window(client, secure=True)
    assert first.status_code == 200 and first["X-RateLimit-Remaining"] == "4"
    refused = client.get(ME)
    assert refused.status_code == 403
    assert refused.json()["message"] == "HTTPS is required for the API."
    assert refused["X-RateLimit-Limit"] == "5"
    assert refused["X-RateLimit-Remaining"] == "3"
    assert "X-RateLimit-Reset" in refused and "X-RateLimit-Reset-Timestamp" in refused
    assert "Retry-After" not in refused
    assert client.get(ME, secure=True)["X-RateLimit-Remaining"] == "2"  # the refusal was counted


def test_a_lock_time_out_is_409_without_retry_after(token_client, monkeypatch):
    """``Retry-After`` belongs to 429 alone (the specification's header table); the busy answer says to retry."""
    from django.db import OperationalError

    from accounts.api.views import CurrentUserView

    def locked(self, request):
        raise OperationalError("database is locked")

    monkeypatch.setattr(CurrentUserView, "get", locked)
    response = token_client.get(ME)
    assert response.status_code == 409
    assert response.json()["message"] == "The item is busy; try again."
    assert "Retry-After" not in response
    assert response["X-RateLimit-Limit"] == "120"
