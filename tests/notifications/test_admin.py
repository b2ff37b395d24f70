"""The admin: the "Send test message" action (success and every kind of failure), the warnings on the settings
page, the read-only delivery log, and the settings validation."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse
from werkzeug import Response

from assetsvc.forms import SiteSettingsForm
from assetsvc.models import SiteSettings
from notifications.models import WebhookDelivery
from tests.notifications.conftest import HOOK_PATH
from tests.notifications.test_receivers import chat_keys

TEST_URL = "admin:assetsvc_sitesettings_send_test_webhook"


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def send_test(admin_client) -> list[str]:
    response = admin_client.post(reverse(TEST_URL), follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("admin:assetsvc_sitesettings_change", args=[1])
    return [str(message) for message in response.context["messages"]]


@pytest.mark.parametrize(
    ("platform", "app", "body"),
    [
        ("slack", "Slack", {"channel": "#it", "username": "AssetBot", "icon_emoji": ""}),
        ("general", "General Webhook", {"channel": "#it", "username": "AssetBot", "icon_emoji": ""}),
        ("google", "Google Workspaces", {}),
    ],
)
def test_success_is_reported(webhook, receiver, admin_client, platform, app, body):
    webhook(platform, receiver.url_for(HOOK_PATH), channel="#it" if platform != "google" else "")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("ok")
    assert send_test(admin_client) == [f"Your {app} integration works! The endpoint answered 200."]
    text = f"Oh hai! It looks like your {app} integration with Snipe-IT is working!"
    assert [chat_keys(request.get_json()) for request, _ in receiver.log] == [{**body, "text": text}]
    row = WebhookDelivery.objects.get()
    assert (row.event, row.success, row.status_code) == ("test", True, 200)


def test_card_kind_success_with_its_card(webhook, receiver, admin_client):
    webhook("microsoft", receiver.url_for("/workflows/1"), channel="")
    receiver.expect_request("/workflows/1", method="POST").respond_with_data("", status=202)
    assert send_test(admin_client) == ["Your Microsoft Teams integration works! The endpoint answered 202."]
    (request, _), = receiver.log
    card = request.get_json()["attachments"][0]["content"]
    assert card["body"] == [{"type": "TextBlock", "text": "Oh hai! It looks like your Microsoft Teams integration "
                                                          "with Snipe-IT is working!"}]


def test_card_kind_legacy_url_warns(webhook, receiver, admin_client):
    webhook("microsoft", receiver.url_for("/webhookb2/x/IncomingWebhook/y"), channel="")
    receiver.expect_request("/webhookb2/x/IncomingWebhook/y", method="POST").respond_with_data("1")
    messages = send_test(admin_client)
    assert any("deprecated" in message for message in messages)
    assert "Your Microsoft Teams integration works! The endpoint answered 200." in messages
    page = admin_client.get(reverse("admin:assetsvc_sitesettings_change", args=[1]))
    assert b"deprecated; create a Workflows webhook" in page.content
    assert b"Send test message" in page.content


def test_server_error_is_reported_with_its_status_only(webhook, receiver, admin_client):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("internal secret page", status=500)
    messages = send_test(admin_client)
    assert messages == ["The test message to the Slack endpoint failed: 500"]
    row = WebhookDelivery.objects.get()
    assert (row.event, row.success, row.status_code, row.error) == ("test", False, 500, "HTTP 500")


def test_refused_connection_is_reported_by_error_class_only(webhook, closed_port_url, admin_client):
    webhook("general", closed_port_url)
    messages = send_test(admin_client)
    # No "[Errno 111] Connection refused", no host or port: nothing that tells internal ports apart.
    assert messages == ["The test message to the General Webhook endpoint failed: ConnectionError"]


def test_slow_endpoint_is_reported_as_a_timeout(webhook, slow_receiver, admin_client):
    webhook("slack", slow_receiver.url_for(HOOK_PATH))
    assert send_test(admin_client) == ["The test message to the Slack endpoint failed: ReadTimeout"]


def test_redirect_is_reported_and_not_followed(webhook, receiver, admin_client):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_response(
        Response(status=301, headers={"Location": receiver.url_for("/real")}))
    assert send_test(admin_client) == ["The test message to the Slack endpoint failed: 301 (redirects are not "
                                       "followed; use the endpoint's final URL)"]
    assert [request.path for request, _ in receiver.log] == [HOOK_PATH]


def test_no_endpoint_is_reported(webhook, admin_client):
    webhook("slack", "")
    assert send_test(admin_client) == ["No webhook endpoint is configured."]
    assert WebhookDelivery.objects.count() == 0


def test_invalid_environment_value_is_reported_without_a_request(webhook, receiver, admin_client, settings):
    webhook("slack", receiver.url_for(HOOK_PATH))
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "ftp://x"}
    assert send_test(admin_client) == ["The test message was not sent: The webhook endpoint must be an http:// or "
                                       "https:// URL."]
    assert receiver.log == []
    page = admin_client.get(reverse("admin:assetsvc_sitesettings_change", args=[1]))
    assert b"Set in the environment, overriding the fields below: WEBHOOK_ENDPOINT." in page.content


def test_the_action_needs_a_post_and_a_super_user(webhook, admin_client, client, receiver):
    webhook("slack", receiver.url_for(HOOK_PATH))
    assert admin_client.get(reverse(TEST_URL)).status_code == 405
    client.logout()
    response = client.post(reverse(TEST_URL))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert receiver.log == []


def test_delivery_log_is_listed_read_only(webhook, admin_client):
    WebhookDelivery.objects.create(event="asset.checked_out", platform="slack", endpoint="https://hooks.example.com/x",
                                   success=False, status_code=500, latency_ms=12, error="HTTP 500")
    page = admin_client.get(reverse("admin:notifications_webhookdelivery_changelist"))
    assert page.status_code == 200
    assert b"hooks.example.com" in page.content and b">500<" in page.content
    assert admin_client.get(reverse("admin:notifications_webhookdelivery_add")).status_code == 403


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"webhook_endpoint": "ftp://x"}, "webhook_endpoint"),
        ({"webhook_secret": "too-short"}, "webhook_secret"),
        ({"webhook_events": "asset.exploded"}, "webhook_events"),
        ({"webhook_channel": ""}, "webhook_channel"),
    ],
)
def test_settings_form_validates_the_webhook_fields(site_settings, changes, field):
    data = {**model_to_dict(SiteSettings.load()), "webhook_platform": "slack",
            "webhook_endpoint": "https://hooks.example.com/x", "webhook_channel": "#it", **changes}
    form = SiteSettingsForm(data=data, instance=SiteSettings.load())
    assert not form.is_valid()
    assert field in form.errors
