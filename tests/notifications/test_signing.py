"""Signed deliveries (API-CONTRACT.md §8a) posted to a real local receiver and checked with the documented receiver
(notifications.signing.verify); the write-only secret in the settings command, the admin and the logs."""

from __future__ import annotations

import logging
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse
from werkzeug import Response

from assetsvc.models import SiteSettings
from inventory.models import Asset
from inventory.signals import asset_checked_out
from notifications.models import WebhookDelivery
from notifications.signing import verify
from tests.factories import AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, wait_for_idle

SECRET = "s3cret-s3cret-s3cret"
TEST_URL = "admin:assetsvc_sitesettings_send_test_webhook"


@pytest.fixture
def signed(webhook, receiver, settings):
    """``configure(platform)``: the site's webhook at the local receiver with SECRET saved; returns the receiver."""
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "", "WEBHOOK_EVENTS": ""}

    def configure(platform: str = "general", secret: str = SECRET):
        path = HOOK_PATH + ("/workflows/1" if platform == "microsoft" else "")
        webhook(platform, receiver.url_for(path), channel="#it" if platform in {"slack", "general"} else "")
        site = SiteSettings.load()
        site.webhook_secret = secret
        site.save()
        receiver.expect_request(path, method="POST").respond_with_json({"ok": True})
        return receiver

    return configure


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def checkout(admin_user) -> None:
    asset = AssetFactory(asset_tag="TAG-1", name="Laptop")
    with transaction.atomic():
        asset_checked_out.send(sender=Asset, item=asset, actor=admin_user, target=UserFactory(), note="", log=None)
    assert wait_for_idle()


def sent(receiver):
    assert len(receiver.log) == 1, receiver.log
    request = receiver.log[0][0]
    return request.headers, request.get_data()


@pytest.mark.parametrize("platform", ["slack", "general", "google", "microsoft"])
def test_every_platform_is_signed_and_verifies(signed, admin_user, platform):
    receiver = signed(platform)
    checkout(admin_user)
    headers, body = sent(receiver)
    assert abs(int(headers["X-Webhook-Timestamp"]) - time.time()) < 60
    assert headers["X-Webhook-Signature"].startswith("sha256=")
    assert verify(SECRET, headers, body)
    assert WebhookDelivery.objects.get().success


def test_altered_body_wrong_secret_and_replay_are_refused(signed, admin_user):
    receiver = signed("general")
    checkout(admin_user)
    headers, body = sent(receiver)
    assert verify(SECRET, headers, body)
    assert not verify(SECRET, headers, body.replace(b"TAG-1", b"TAG-2"))
    assert not verify("another-secret-of-16+", headers, body)
    # Replayed six minutes later (or with the timestamp moved): refused.
    assert not verify(SECRET, headers, body, now=int(headers["X-Webhook-Timestamp"]) + 360)
    moved = {**dict(headers), "X-Webhook-Timestamp": str(int(headers["X-Webhook-Timestamp"]) + 1)}
    assert not verify(SECRET, moved, body)  # a replay with a fresh timestamp does not match the signature
    assert not verify(SECRET, {}, body)


def test_test_message_is_signed(signed, admin_client):
    receiver = signed("slack")
    admin_client.post(reverse(TEST_URL), follow=True)
    headers, body = sent(receiver)
    assert verify(SECRET, headers, body)


def test_no_secret_no_headers(signed, admin_user):
    receiver = signed("general", secret="")
    checkout(admin_user)
    headers, _body = sent(receiver)
    assert "X-Webhook-Signature" not in headers and "X-Webhook-Timestamp" not in headers


def test_environment_secret_overrides_the_saved_one(signed, admin_user, settings):
    receiver = signed("general")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "environment-secret-1234"}
    checkout(admin_user)
    headers, body = sent(receiver)
    assert verify("environment-secret-1234", headers, body) and not verify(SECRET, headers, body)


def test_short_environment_secret_sends_nothing_and_is_not_logged(signed, admin_user, settings, caplog):
    receiver = signed("general")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "tiny-secret"}
    with caplog.at_level(logging.DEBUG):
        checkout(admin_user)
    assert receiver.log == []
    row = WebhookDelivery.objects.get()
    assert (row.success, row.error) == (False, "InvalidConfiguration")
    assert "WEBHOOK_SECRET" in caplog.text and "tiny-secret" not in caplog.text


def test_secret_is_never_logged_or_stored(signed, admin_user, caplog):
    receiver = signed("general")
    receiver.clear()
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("boom", status=500)
    with caplog.at_level(logging.DEBUG):
        checkout(admin_user)
    row = WebhookDelivery.objects.get()
    assert row.error == "HTTP 500"
    stored = " ".join(str(value) for value in WebhookDelivery.objects.values().get().values())
    headers, _ = sent(receiver)
    assert SECRET not in stored and headers["X-Webhook-Signature"] not in stored
    assert SECRET not in caplog.text and "sha256=" not in caplog.text


def test_huge_answer_body_is_not_read(signed, admin_user):
    receiver = signed("general")
    receiver.clear()
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_response(
        Response(b"x" * (10 * 1024 * 1024), status=200, content_type="text/plain"))
    started = time.monotonic()
    checkout(admin_user)
    row = WebhookDelivery.objects.get()
    assert (row.success, row.status_code) == (True, 200)
    assert time.monotonic() - started < 5


def test_unresolvable_endpoint_is_a_clear_error(webhook, admin_user, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "", "WEBHOOK_EVENTS": ""}
    webhook("slack", "http://no-such-host.invalid/hook")
    checkout(admin_user)
    row = WebhookDelivery.objects.get()
    assert (row.success, row.status_code, row.error) == (False, None, "ConnectionError")


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_settings_command_masks_and_refuses_short_secrets(db):
    out, _ = run("site_settings", "show")
    assert "webhook_secret = \n" in out
    out, _ = run("site_settings", "set", "webhook_secret", "  " + SECRET + "  ")
    assert out == "webhook_secret = ********\n" and SECRET not in out
    assert SiteSettings.load().webhook_secret == SECRET
    assert "webhook_secret = ********\n" in run("site_settings", "show")[0]
    with pytest.raises(CommandError, match="webhook_secret.*16") as refused:
        run("site_settings", "set", "webhook_secret", "short-one")
    assert "short-one" not in str(refused.value)
    assert SiteSettings.load().webhook_secret == SECRET
    run("site_settings", "set", "webhook_secret", "")
    assert SiteSettings.load().webhook_secret == ""


def test_admin_secret_is_a_password_field_never_filled(admin_client, admin_user):
    site = SiteSettings.load()
    site.webhook_secret = SECRET
    site.save()
    url = reverse("admin:assetsvc_sitesettings_change", args=[1])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b'type="password" name="webhook_secret"' in page.content and SECRET.encode() not in page.content
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and value is not False}
    data.update({"webhook_platform": "slack", "webhook_endpoint": "", "webhook_secret": "",
                 "webhook_events": ["asset.checked_out"]})
    data = {key: value for key, value in data.items() if key not in {"id", "updated_at"}}
    assert admin_client.post(url, data).status_code == 302  # blank: kept
    site.refresh_from_db()
    assert site.webhook_secret == SECRET and site.webhook_events == "asset.checked_out"
    response = admin_client.post(url, {**data, "webhook_secret": "short"})
    assert response.status_code == 200 and b"16" in response.content  # refused
    assert admin_client.post(url, {**data, "webhook_secret": "a-brand-new-secret-x"}).status_code == 302
    site.refresh_from_db()
    assert site.webhook_secret == "a-brand-new-secret-x"
    assert admin_client.post(url, {**data, "clear_webhook_secret": "on"}).status_code == 302
    site.refresh_from_db()
    assert site.webhook_secret == ""


@pytest.mark.parametrize("timestamp", ["9" * 400, "9" * 5000, "1" + "0" * 20, "١٢٣"])
def test_documented_verify_refuses_absurd_timestamps(timestamp):
    # Issue 25 item 14: an absurd timestamp is refused, never an OverflowError or a ValueError.
    headers = {"X-Webhook-Timestamp": timestamp, "X-Webhook-Signature": "sha256=00"}
    assert verify(SECRET, headers, b"{}") is False


def test_documented_verify_refuses_a_non_ascii_signature():
    headers = {"X-Webhook-Timestamp": str(int(time.time())), "X-Webhook-Signature": "sha256=\xe9"}
    assert verify(SECRET, headers, b"{}") is False
