"""``manage.py send_test_webhook``: success on stdout (exit 0), the reason on failure (CommandError, exit 1)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notifications.models import WebhookDelivery
from tests.notifications.conftest import HOOK_PATH
from tests.notifications.test_receivers import chat_keys


def run() -> str:
    out = StringIO()
    call_command("send_test_webhook", stdout=out, stderr=StringIO())
    return out.getvalue()


def test_success(webhook, receiver):
    webhook("general", receiver.url_for(HOOK_PATH), channel="#ops")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    assert run().startswith(f"Your General Webhook integration works! {receiver.url_for(HOOK_PATH)} answered 200 in ")
    (request, _), = receiver.log
    assert chat_keys(request.get_json()) == {"channel": "#ops", "username": "AssetBot", "icon_emoji": "",
                                  "text": "Oh hai! It looks like your General Webhook integration with Snipe-IT is "
                                          "working!"}
    assert WebhookDelivery.objects.get().event == "test"


@pytest.mark.parametrize(("status", "reason"), [(500, "failed: 500"), (302, r"failed: 302 \(redirects are not")])
def test_http_failure(webhook, receiver, status, reason):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("no", status=status)
    with pytest.raises(CommandError, match=reason) as error:
        run()
    assert error.value.returncode == 1


def test_refused(webhook, closed_port_url):
    webhook("slack", closed_port_url)
    with pytest.raises(CommandError, match=r"failed: ConnectionError \(.*Connection refused"):
        run()


def test_not_configured(webhook):
    webhook("slack", "")
    with pytest.raises(CommandError, match="No webhook endpoint is configured"):
        run()


def test_invalid_environment(webhook, settings):
    webhook("slack", "https://hooks.example.com/x")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "too-short"}
    with pytest.raises(CommandError, match="WEBHOOK_SECRET must be 16 to 255 characters"):
        run()
