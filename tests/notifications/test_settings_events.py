"""The ``webhook_events`` setting (API-CONTRACT.md §8a): the settings command, the environment override, and a
disabled event enqueuing nothing; the any-channel rule and ``#NA`` display (§8)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from assetsvc.models import SiteSettings
from inventory.models import Accessory, Asset
from inventory.signals import accessory_checked_in, asset_audited, asset_checked_in, asset_checked_out
from notifications.config import get_webhook_config
from notifications.events import EVENTS, default_event_names
from notifications.models import WebhookDelivery
from tests.factories import AccessoryFactory, AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, wait_for_idle

DEFAULTS = ",".join(default_event_names())


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def shown(key: str) -> str:
    lines = dict(line.split(" = ", 1) for line in run("site_settings", "show").splitlines())
    return lines[key]


@pytest.fixture
def no_env(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "", "WEBHOOK_EVENTS": ""}


def test_show_default_then_set_replaces_the_list(db, no_env):
    assert shown("webhook_events") == DEFAULTS
    assert run("site_settings", "set", "webhook_events", " asset.audited , asset.checked_out,asset.audited") == \
        "webhook_events = asset.checked_out,asset.audited\n"
    assert shown("webhook_events") == "asset.checked_out,asset.audited"
    assert get_webhook_config().events == {"asset.checked_out", "asset.audited"}
    run("site_settings", "set", "webhook_events", "")
    assert shown("webhook_events") == "" and get_webhook_config().events == frozenset()
    run("site_settings", "set", "webhook_channel", "#it")  # another setting keeps "no event"
    assert shown("webhook_events") == ""


def test_unknown_event_is_refused_as_a_whole(db, no_env):
    run("site_settings", "set", "webhook_events", "asset.audited")
    with pytest.raises(CommandError, match="asset.exploded"):
        run("site_settings", "set", "webhook_events", "asset.checked_out,asset.exploded")
    assert SiteSettings.load().webhook_events == "asset.audited"


def test_every_registry_event_is_accepted(db, no_env):
    names = ",".join(EVENTS)
    run("site_settings", "set", "webhook_events", names)
    assert shown("webhook_events") == names


def test_environment_events_override_and_unknown_invalidates(db, settings, no_env):
    site = SiteSettings.load()
    site.webhook_endpoint, site.webhook_channel = "https://hooks.example.com/x", "#it"
    site.save()
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_EVENTS": "asset.audited"}
    assert get_webhook_config().events == {"asset.audited"} and get_webhook_config().errors() == []
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_EVENTS": "asset.audited,nope"}
    assert any("nope" in error for error in get_webhook_config().errors())


def test_disabled_checkin_events_stop_checkin_deliveries_only(webhook, receiver, admin_user, no_env):
    webhook("general", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    run("site_settings", "set", "webhook_events", ",".join(n for n in default_event_names() if "checked_in" not in n))
    asset, accessory = AssetFactory(asset_tag="TAG-1", name="Laptop"), AccessoryFactory(name="Mouse")
    target = UserFactory()
    with transaction.atomic():
        asset_checked_out.send(sender=Asset, item=asset, actor=admin_user, target=target, note="", log=None)
        asset_checked_in.send(sender=Asset, item=asset, actor=admin_user, target=target, note="", log=None)
        accessory_checked_in.send(sender=Accessory, item=accessory, actor=admin_user, target=target, note="",
                                  log=None)
        asset_audited.send(sender=Asset, item=asset, actor=admin_user, target=None, note="", log=None)
    assert DBTaskResult.objects.count() == 2  # the checkins enqueued nothing
    assert wait_for_idle()
    assert sorted(WebhookDelivery.objects.values_list("event", flat=True)) == ["asset.audited", "asset.checked_out"]
    texts = [body["text"] for body in posted_bodies(receiver)]
    assert len(texts) == 2 and not any("checked in" in text for text in texts)


def test_any_non_empty_channel_and_na_display(db, no_env):
    run("site_settings", "set", "webhook_channel", "general")
    assert SiteSettings.load().webhook_channel == "general" and shown("webhook_channel") == "general"
    run("site_settings", "set", "webhook_platform", "microsoft")
    assert shown("webhook_channel") == "#NA"
    run("site_settings", "set", "webhook_platform", "google")
    assert shown("webhook_channel") == "#NA"


def test_admin_test_action_sends_a_sample_of_an_enabled_event(webhook, receiver, admin_user, client, no_env):
    client.force_login(admin_user)
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    page = client.get(reverse("admin:assetsvc_sitesettings_change", args=[1]))
    assert b'<option value="asset.audited">' in page.content
    client.post(reverse("admin:assetsvc_sitesettings_send_test_webhook"), {"event": "asset.audited"})
    assert posted_bodies(receiver)[0]["text"] == "Asset ASSET-0001 (Sample laptop) was audited by Sample Admin"
    run("site_settings", "set", "webhook_events", "asset.checked_out")
    client.post(reverse("admin:assetsvc_sitesettings_send_test_webhook"), {"event": "asset.audited"})
    assert len(receiver.log) == 1  # not enabled: not sent
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["asset.audited"]


def test_delivery_log_filters_by_event_and_outcome(db, admin_user, client):
    client.force_login(admin_user)
    WebhookDelivery.objects.create(event="asset.audited", endpoint="https://a.example.com/x?sig=1", success=True,
                                   status_code=200, latency_ms=5)
    WebhookDelivery.objects.create(event="asset.checked_out", endpoint="https://b.example.com/x", success=False,
                                   error="ConnectionError")
    url = reverse("admin:notifications_webhookdelivery_changelist")
    page = client.get(url, {"outcome": "failure"})
    assert b"b.example.com" in page.content and b"ConnectionError" in page.content
    assert b"a.example.com" not in page.content
    page = client.get(url, {"event": "asset.audited"})
    assert b"a.example.com" in page.content and b"b.example.com" not in page.content
