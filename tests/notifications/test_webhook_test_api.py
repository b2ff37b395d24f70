"""``POST /api/v1/settings/slacktest`` (issue 27): the webhook test message sent now to a real local receiver, with
the admin button's words; failures name only a status or an error class; super users only."""

from __future__ import annotations

import pytest

from notifications.api import WebhookTestView
from notifications.models import WebhookDelivery
from tests.api_mixins import APIResource
from tests.factories import UserFactory
from tests.notifications.conftest import HOOK_PATH

URL = "/api/v1/settings/slacktest"


class TestWebhookTestAPI(APIResource):
    url = URL
    viewset = WebhookTestView


@pytest.fixture
def super_token_client(make_client, transactional_db):
    return make_client(UserFactory(superuser=True))


def test_success_reaches_the_receiver(webhook, receiver, super_token_client):
    webhook("slack", receiver.url_for(HOOK_PATH), channel="#it")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    response = super_token_client.post(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "success"
    assert body["messages"] == "Your Slack integration works! The endpoint answered 200."
    assert body["payload"]["status_code"] == 200
    assert isinstance(body["payload"]["latency_ms"], int)
    (request, _), = receiver.log
    assert request.get_json()["channel"] == "#it"
    assert WebhookDelivery.objects.get().event == "test"


def test_a_failing_endpoint_names_only_the_status(webhook, receiver, super_token_client, settings):
    webhook("general", receiver.url_for(HOOK_PATH), channel="#ops")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("internal secret page", status=500)
    answer = super_token_client.post(URL).json()
    assert answer["status"] == "error"
    assert answer["message"] == "The test message to the General Webhook endpoint failed: 500"
    assert "internal secret page" not in str(answer)
    assert receiver.url_for(HOOK_PATH) not in str(answer)
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    assert super_token_client.post(URL).status_code == 409


def test_refused_connection_and_no_endpoint(webhook, closed_port_url, super_token_client):
    webhook("slack", closed_port_url)
    answer = super_token_client.post(URL).json()
    assert answer["message"] == "The test message to the Slack endpoint failed: ConnectionError"
    webhook("slack", "")
    assert super_token_client.post(URL).json()["message"] == "No webhook endpoint is configured."


def test_only_super_users(webhook, receiver, api_client, make_client):
    webhook("slack", receiver.url_for(HOOK_PATH))
    assert api_client.post(URL).status_code == 401
    for user in (UserFactory(permissions={"admin": 1}), UserFactory()):
        assert make_client(user).post(URL).status_code == 403
    assert receiver.log == []
    assert not WebhookDelivery.objects.exists()
