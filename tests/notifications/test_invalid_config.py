"""Issue 25 item 21: with the general platform and no channel a checkout's notification was dropped silently. An
invalid webhook configuration is refused when saved (the environment's overrides included), shown as a warning on
the admin's pages, and an event that cannot be sent is recorded in the delivery log with the reason."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from assetsvc.models import SiteSettings
from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, wait_for_idle

SETTINGS_URL = "admin:assetsvc_sitesettings_change"


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def page_data(admin_client) -> dict:
    form = admin_client.get(reverse(SETTINGS_URL, args=[1])).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and value is not False}
    data["webhook_events"] = list(form.initial["webhook_events"])
    data["webhook_secret"] = ""
    return data


def test_admin_refuses_general_without_a_channel_when_the_endpoint_comes_from_the_environment(
        webhook, receiver, admin_client, settings):
    webhook("slack", "", channel="#it")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": receiver.url_for(HOOK_PATH)}
    data = {**page_data(admin_client), "webhook_platform": "general", "webhook_channel": ""}
    answer = admin_client.post(reverse(SETTINGS_URL, args=[1]), data)
    assert answer.status_code == 200
    errors = answer.context["adminform"].form.errors
    assert errors["webhook_channel"] == ["This platform needs a channel (WEBHOOK_ENDPOINT is set in the "
                                         "environment)."]
    site = SiteSettings.load()
    assert (site.webhook_platform, site.webhook_channel) == ("slack", "#it")  # nothing saved


def test_admin_refuses_a_missing_channel_when_the_platform_comes_from_the_environment(webhook, admin_client,
                                                                                      settings):
    webhook("google", "https://chat.example.com/x", channel="")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_PLATFORM": "general"}
    data = {**page_data(admin_client), "webhook_botname": "Renamed"}
    answer = admin_client.post(reverse(SETTINGS_URL, args=[1]), data)
    assert answer.status_code == 200
    assert "webhook_channel" in answer.context["adminform"].form.errors
    assert SiteSettings.load().webhook_botname == "AssetBot"
    data["webhook_channel"] = "#it"
    assert admin_client.post(reverse(SETTINGS_URL, args=[1]), data).status_code == 302
    assert (SiteSettings.load().webhook_channel, SiteSettings.load().webhook_botname) == ("#it", "Renamed")


def test_command_refuses_general_without_a_channel_when_the_endpoint_comes_from_the_environment(webhook, settings):
    webhook("slack", "", channel="")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "https://hooks.example.com/x"}
    with pytest.raises(CommandError, match="webhook_channel: This platform needs a channel"):
        call_command("site_settings", "set", "webhook_platform", "general", stdout=StringIO())
    assert SiteSettings.load().webhook_platform == "slack"


def test_invalid_configuration_is_a_warning_on_the_admin_pages(webhook, admin_client):
    site = webhook("general", "https://hooks.example.com/x", channel="")  # saved before the rule existed
    assert site.webhook_channel == ""
    for url in (reverse(SETTINGS_URL, args=[1]), reverse("admin:notifications_webhookdelivery_changelist")):
        page = admin_client.get(url)
        assert page.status_code == 200
        assert "The webhook configuration is invalid, nothing is sent: This platform needs a channel." in \
            page.content.decode(), url


def test_checkout_under_general_without_a_channel_is_recorded_with_the_reason(webhook, receiver, admin_user,
                                                                              make_client, admin_client):
    webhook("general", receiver.url_for(HOOK_PATH), channel="")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    asset = AssetFactory(asset_tag="LAP-9")
    answer = make_client(admin_user).post(f"/api/v1/hardware/{asset.pk}/checkout",
                                          {"checkout_to_type": "user", "assigned_user": UserFactory().pk},
                                          format="json")
    assert answer.json()["status"] == "success"
    assert wait_for_idle()
    assert receiver.log == []
    row = WebhookDelivery.objects.get()
    assert (row.event, row.success, row.error, row.request_body) == ("asset.checked_out", False,
                                                                     "InvalidConfiguration", None)
    assert row.reason == "This platform needs a channel."
    page = admin_client.get(reverse("admin:notifications_webhookdelivery_changelist")).content.decode()
    assert "InvalidConfiguration: This platform needs a channel." in page
