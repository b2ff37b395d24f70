"""The webhook settings in the admin: point the endpoint at a local receiver on the site settings page, press "Send
test message", and see the success message while the receiver gets the test message."""

from __future__ import annotations

import pytest
from django.urls import reverse

from assetsvc.models import SiteSettings
from notifications.models import WebhookDelivery
from tests.browser.helpers import expect, messages

HOOK_PATH = "/hook"


@pytest.fixture
def no_webhook_environment(settings):
    """The ``WEBHOOK_*`` environment overrides cleared, so only the settings page counts; a short timeout."""
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "", "WEBHOOK_CHANNEL": "", "WEBHOOK_BOTNAME": "",
                         "WEBHOOK_PLATFORM": "", "WEBHOOK_TIMEOUT": 2}


def test_send_test_message_to_a_local_receiver(admin_page, receiver, no_webhook_environment):
    endpoint = receiver.url_for(HOOK_PATH)
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("ok")
    admin_page.goto(reverse("admin:assetsvc_sitesettings_change", args=[SiteSettings.load().pk]))

    admin_page.select_option("#id_webhook_platform", "slack")
    admin_page.fill("#id_webhook_endpoint", endpoint)
    admin_page.fill("#id_webhook_channel", "#it")
    admin_page.fill("#id_webhook_botname", "AssetBot")
    admin_page.click("input[name=_continue]")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("was changed successfully")
    assert SiteSettings.load().webhook_endpoint == endpoint

    admin_page.click("#send-test-webhook")

    expect(admin_page.locator("ul.messagelist")).to_contain_text("Your Slack integration works!")
    assert messages(admin_page) == ["Your Slack integration works! The endpoint answered 200."]
    (request, _response), = receiver.log
    assert request.get_json() == {"channel": "#it", "username": "AssetBot", "icon_emoji": "",
                                  "text": "Oh hai! It looks like your Slack integration with Snipe-IT is working!"}
    row = WebhookDelivery.objects.get()
    assert (row.event, row.success, row.status_code, row.endpoint) == ("test", True, 200, endpoint)
