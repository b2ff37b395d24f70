"""Password sign-in throttled per account and address by django-axes (issue 30): LOGIN_FAILURE_LIMIT wrong
passwords lock the pair for LOGIN_LOCKOUT_MINUTES, the right password then fails with the lockout page, another
address and another account are not affected, the address is ours (TRUSTED_PROXIES), and the API's bearer tokens
never meet the throttle."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client

from tests.browser.helpers import ADMIN_PASSWORD
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def attempt(user, password, address="192.0.2.10", **headers):
    client = Client(REMOTE_ADDR=address, HTTP_USER_AGENT="pytest-agent", **headers)
    response = client.post("/admin/login/", {"username": user.username, "password": password, "next": "/admin/"})
    return client, response


def signed_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


@pytest.fixture
def admin(db):
    return UserFactory(username="ada", superuser=True)


def test_the_defaults_are_ten_failures_and_fifteen_minutes(settings):
    assert settings.LOGIN_FAILURE_LIMIT == 10 and settings.AXES_FAILURE_LIMIT == 10
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.AUTHENTICATION_BACKENDS[0] == "accounts.twofactor.throttle.ThrottleBackend"


def test_ten_wrong_passwords_lock_the_account_from_that_address_for_the_configured_time(admin, settings):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=2)
    for number in range(1, 10):
        _, response = attempt(admin, "wrong")
        assert response.status_code == 200 and "correct username and password" in response.content.decode(), number
    _, tenth = attempt(admin, "wrong")
    assert tenth.status_code == 429
    _, right = attempt(admin, ADMIN_PASSWORD)
    assert right.status_code == 429 and not signed_in(right)
    page = right.content.decode()
    assert 'id="lockout-message"' in page and "locked for 1 minute" in page
    _, elsewhere = attempt(admin, ADMIN_PASSWORD, address="198.51.100.7")  # another address: its own count
    assert signed_in(elsewhere)
    other = UserFactory(username="grace", superuser=True)
    assert signed_in(attempt(other, ADMIN_PASSWORD)[1])  # another account from the locked address
    time.sleep(2.2)
    client, later = attempt(admin, ADMIN_PASSWORD)
    assert signed_in(later) and client.get("/admin/").status_code == 200


def test_a_right_password_clears_the_failures(admin):
    for _ in range(9):
        attempt(admin, "wrong")
    assert signed_in(attempt(admin, ADMIN_PASSWORD)[1])
    for _ in range(9):
        attempt(admin, "wrong")
    assert signed_in(attempt(admin, ADMIN_PASSWORD)[1])


def test_the_address_is_ours_a_forwarded_for_header_is_ignored_unless_the_proxy_is_trusted(admin, settings):
    for number in range(10):  # a different X-Forwarded-For each time: still one address, REMOTE_ADDR
        attempt(admin, "wrong", HTTP_X_FORWARDED_FOR=f"203.0.113.{number}")
    assert attempt(admin, ADMIN_PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.99")[1].status_code == 429
    settings.ASSETSVC = {**settings.ASSETSVC, "TRUSTED_PROXIES": "192.0.2.10"}
    # Behind the trusted proxy, each client is its own address: a new one is not locked.
    assert signed_in(attempt(admin, ADMIN_PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.99")[1])


def test_the_api_is_not_throttled_by_sign_in_failures(admin, make_client):
    client = make_client(admin)
    for _ in range(10):
        attempt(admin, "wrong", address="127.0.0.1")
    assert client.get("/api/v1/users/me").status_code == 200


def test_zero_failures_switches_the_throttle_off(admin, settings):
    settings.AXES_ENABLED = False
    for _ in range(12):
        attempt(admin, "wrong")
    assert signed_in(attempt(admin, ADMIN_PASSWORD)[1])
