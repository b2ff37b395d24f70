"""Issue 12 item 5: behind a proxy, the client address comes from ``X-Forwarded-For`` only as far as the
``TRUSTED_PROXIES`` setting trusts it, for both the action log's ``remote_ip`` and the anonymous rate-limit bucket.
Everything is checked through the HTTP API."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from activity.models import ActionLog
from assetsvc.client_address import client_address, parse_trusted_proxies
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ME = "/api/v1/users/me"
PROXY = "10.0.0.5"
ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def trust(settings):
    def _trust(value: str) -> None:
        settings.ASSETSVC = {**settings.ASSETSVC, "TRUSTED_PROXIES": value}

    return _trust


def logged_address(token_client, name: str, **extra) -> str:
    response = token_client.post("/api/v1/suppliers", {"name": name}, format="json", **extra)
    assert response.json()["status"] == "success", response.content
    return ActionLog.objects.filter(item_type="supplier").latest("pk").remote_ip


def remaining(api_client, fresh_window: bool = False, **extra) -> int:
    """What is left in the caller's anonymous bucket after one more request. ``fresh_window``: first make sure the
    bucket's fixed 60-second window does not end during the test's next few requests."""
    response = api_client.get(ME, HTTP_AUTHORIZATION="Bearer nope", **extra)
    if fresh_window and int(response["X-RateLimit-Reset"]) < 5:
        time.sleep(int(response["X-RateLimit-Reset"]) + 0.2)
        response = api_client.get(ME, HTTP_AUTHORIZATION="Bearer nope", **extra)
    assert response.status_code == 401
    return int(response["X-RateLimit-Remaining"])


@pytest.mark.parametrize("setting", ["", PROXY, "10.0.0.0/8"])
def test_a_direct_caller_spoofing_the_header_is_its_own_address(token_client, api_client, trust, setting):
    """Without trusted proxies, or when the caller is not one of them, the header changes nothing: not the logged
    address, not the bucket. (A count trusts whoever connects, so with a count the service must not be reachable
    directly: README, docs/operations.md.)"""
    trust(setting)
    spoofed = {"REMOTE_ADDR": "192.0.2.7", "HTTP_X_FORWARDED_FOR": "203.0.113.66"}
    assert logged_address(token_client, f"Spoof {setting}", **spoofed) == "192.0.2.7"
    before = remaining(api_client, fresh_window=True, **spoofed)
    assert remaining(api_client, REMOTE_ADDR="192.0.2.7", HTTP_X_FORWARDED_FOR="198.51.100.1") == before - 1
    assert remaining(api_client, REMOTE_ADDR="192.0.2.7") == before - 2


@pytest.mark.parametrize("setting", ["1", PROXY, "10.0.0.0/8, 2001:db8::/32"])
def test_through_one_trusted_proxy_each_client_is_itself(token_client, api_client, trust, setting, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_THROTTLE_PER_MINUTE": 50}
    trust(setting)
    via = {"REMOTE_ADDR": PROXY}
    assert logged_address(token_client, "Through a proxy", HTTP_X_FORWARDED_FOR="192.0.2.7", **via) == "192.0.2.7"
    first = remaining(api_client, fresh_window=True, HTTP_X_FORWARDED_FOR="192.0.2.7", **via)
    second = remaining(api_client, HTTP_X_FORWARDED_FOR="192.0.2.8", **via)
    assert second == 49  # a fresh bucket: not the proxy's, not the first client's
    assert remaining(api_client, HTTP_X_FORWARDED_FOR="192.0.2.7", **via) == first - 1
    assert remaining(api_client, **via) == 49  # the proxy itself (no header): its own bucket


def test_two_hops_with_a_count_of_one_is_the_right_most_untrusted_address(token_client, trust):
    trust("1")
    address = logged_address(token_client, "Two hops", REMOTE_ADDR=PROXY,
                             HTTP_X_FORWARDED_FOR="203.0.113.66, 192.0.2.7")
    assert address == "192.0.2.7"


def test_a_chain_of_trusted_addresses_is_walked_to_the_first_untrusted_one(token_client, trust):
    trust("10.0.0.0/8")
    address = logged_address(token_client, "Chain", REMOTE_ADDR=PROXY,
                             HTTP_X_FORWARDED_FOR="203.0.113.66, 192.0.2.7, 10.9.9.9")
    assert address == "192.0.2.7"


def test_garbage_in_the_header_never_reaches_the_log(token_client, trust):
    """An entry that is not an address stops the walk at the proxy that passed it on."""
    trust("1")
    assert logged_address(token_client, "Garbage", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="<script>") == PROXY


@pytest.mark.parametrize("meta, setting, expected", [
    ({"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "192.0.2.7:4711"}, "1", "192.0.2.7"),
    ({"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "[2001:db8::7]:443"}, "1", "2001:db8::7"),
    ({"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "192.0.2.7"}, "2", PROXY),  # fewer hops than configured
    ({"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "192.0.2.7, 10.0.0.4"}, "2", "192.0.2.7"),
    ({"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "10.0.0.3, 10.0.0.4"}, "10.0.0.0/8", "10.0.0.3"),
])
def test_address_forms_and_chain_lengths(meta, setting, expected):
    assert client_address(meta, setting) == expected


@pytest.mark.parametrize("value", ["one", "10.0.0.5, not-an-address", "-1", "10.0.0.0/33"])
def test_a_bad_setting_is_refused(value):
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        parse_trusted_proxies(value)


def test_a_bad_setting_fails_at_start_up():
    env = {**os.environ, "TRUSTED_PROXIES": "10.0.0.5, proxy.internal", "DJANGO_SETTINGS_MODULE": "assetsvc.settings"}
    result = subprocess.run([sys.executable, "-c", "import assetsvc.settings"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "ImproperlyConfigured: TRUSTED_PROXIES must be" in result.stderr


@pytest.mark.parametrize(("setting", "remote", "believed"), [
    ("", "192.0.2.7", True),  # APP_FORCE_TLS alone: the header is believed (documented)
    ("1", "192.0.2.7", True),  # a count: the service is reachable only through the proxy
    (PROXY, PROXY, True),
    ("10.0.0.0/8", PROXY, True),
    (PROXY, "192.0.2.7", False),  # a direct caller claiming HTTPS
])
def test_x_forwarded_proto_is_believed_only_from_a_trusted_proxy(make_client, settings, trust, setting, remote,
                                                                 believed):
    settings.APP_FORCE_TLS = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    trust(setting)
    client = make_client(UserFactory())
    response = client.get(ME, REMOTE_ADDR=remote, HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == (200 if believed else 403), response.content
    if not believed:
        assert response.json()["message"] == "HTTPS is required for the API."
