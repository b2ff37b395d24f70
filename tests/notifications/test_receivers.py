"""Receivers driven by the domain signals themselves (real Asset/User rows, a real local receiver)."""

from __future__ import annotations

import pytest
from django.db import transaction

from inventory.models import Asset
from inventory.signals import asset_audited, asset_checked_in, asset_checked_out
from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, wait_for_idle

OUT = "Asset TAG-1 (Laptop) was checked out to Grace Hopper by Ada Admin"
IN = "Asset TAG-1 (Laptop) was checked in by Ada Admin"


def card(text):
    return {"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content": {
        "type": "AdaptiveCard", "body": [{"type": "TextBlock", "text": text}],
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "version": "1.0"}}]}


#: The general kind's machine-readable keys after §8's four (API-CONTRACT.md §8a; test_general_payload checks values).
GENERAL_KEYS = {"event", "occurred_at", "actor", "item", "target", "quantity", "note", "delivery_id"}


class GeneralBody(dict):
    """The general kind's body as §8 gives it, equal to a posted body whose first keys are these four (in this order)
    followed only by §8a's machine-readable keys."""

    def __eq__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        head = dict(list(other.items())[:len(self)])
        return head == dict(self) and list(head) == list(self) and set(other) - set(self) <= GENERAL_KEYS

    def __ne__(self, other):
        return not self == other

    __hash__ = None


def chat_keys(body: dict) -> dict:
    """``body`` without §8a's machine-readable keys: §8's part of a general body (a chat body as it is)."""
    return {key: value for key, value in body.items() if key not in GENERAL_KEYS}


EXPECTED = {
    "slack": lambda text: {"channel": "#it", "text": text, "username": "AssetBot", "icon_emoji": ""},
    "general": lambda text: GeneralBody(channel="#it", text=text, username="AssetBot", icon_emoji=""),
    "google": lambda text: {"text": text},
    "microsoft": card,
}


@pytest.fixture
def scene(admin_user):
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    asset = AssetFactory(asset_tag="TAG-1", name="Laptop")
    return asset, admin_user, grace


def send(signal, asset, actor, target=None):
    with transaction.atomic():
        signal.send(sender=Asset, item=asset, actor=actor, target=target, note="", log=None)


@pytest.mark.parametrize("platform", ["slack", "general", "google", "microsoft"])
def test_checkout_and_checkin_post_the_spec_bodies(webhook, receiver, scene, platform):
    asset, admin, grace = scene
    endpoint = receiver.url_for(HOOK_PATH + ("/workflows/1" if platform == "microsoft" else ""))
    webhook(platform, endpoint, channel="#it" if platform in {"slack", "general"} else "")
    receiver.expect_request(HOOK_PATH + ("/workflows/1" if platform == "microsoft" else ""),
                            method="POST").respond_with_json({"ok": True})

    send(asset_checked_out, asset, admin, grace)
    assert wait_for_idle(10)  # one at a time: the order of the two POSTs is then fixed
    send(asset_checked_in, asset, admin, grace)
    assert wait_for_idle(10)

    assert posted_bodies(receiver) == [EXPECTED[platform](OUT), EXPECTED[platform](IN)]
    assert all(request.headers["Content-Type"] == "application/json" for request, _ in receiver.log)
    rows = list(WebhookDelivery.objects.order_by("id").values_list("event", "success", "status_code", "endpoint"))
    assert rows == [("asset.checked_out", True, 200, endpoint), ("asset.checked_in", True, 200, endpoint)]


def test_audit_notifies(webhook, receiver, scene):
    asset, admin, _grace = scene
    webhook("google", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("")
    send(asset_audited, asset, admin)
    assert wait_for_idle(10)
    assert posted_bodies(receiver) == [{"text": "Asset TAG-1 (Laptop) was audited by Ada Admin"}]


def test_rolled_back_work_never_notifies(webhook, receiver, scene):
    asset, admin, grace = scene
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({})

    class Boom(Exception):
        pass

    with pytest.raises(Boom), transaction.atomic():
        asset_checked_out.send(sender=Asset, item=asset, actor=admin, target=grace, note="", log=None)
        raise Boom
    # A rolled-back savepoint inside a committed transaction does not notify either.
    with transaction.atomic():
        try:
            with transaction.atomic():
                asset_checked_in.send(sender=Asset, item=asset, actor=admin, target=None, note="", log=None)
                raise Boom
        except Boom:
            pass
    assert wait_for_idle(10)
    assert receiver.log == []
    assert WebhookDelivery.objects.count() == 0


def test_delivery_waits_for_the_commit(webhook, receiver, scene):
    asset, admin, grace = scene
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({})
    with transaction.atomic():
        asset_checked_out.send(sender=Asset, item=asset, actor=admin, target=grace, note="", log=None)
        assert wait_for_idle(0.5)
        assert receiver.log == []  # nothing was even queued yet
    assert wait_for_idle(10)
    assert len(receiver.log) == 1


def test_no_endpoint_no_notification(webhook, receiver, scene):
    asset, admin, grace = scene
    webhook("slack", "")
    send(asset_checked_out, asset, admin, grace)
    assert wait_for_idle(10)
    assert WebhookDelivery.objects.count() == 0


def test_a_receiver_problem_never_breaks_the_change(webhook, receiver, scene, caplog):
    _asset, admin, grace = scene
    webhook("slack", receiver.url_for(HOOK_PATH))
    with transaction.atomic():  # an item the asset event cannot render: logged, the transaction goes on
        asset_checked_out.send(sender=Asset, item=object(), actor=admin, target=grace, note="", log=None)
        UserFactory(username="still-committed")
    assert wait_for_idle(10)
    assert "Could not prepare the asset.checked_out notification" in caplog.text
    assert receiver.log == []
    from accounts.models import User

    assert User.objects.filter(username="still-committed").exists()
