"""The issue's "done when", through the HTTP API: checkout to a user + checkin → exactly two POSTs with the
specification's bodies for each platform; a down or slow receiver never slows the API and is in the log."""

from __future__ import annotations

import pytest
from django_tasks_db.models import DBTaskResult

from inventory.services.assets import asset_checkin, asset_checkout
from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, AssetModelFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, wait_for_idle
from tests.notifications.test_receivers import EXPECTED, chat_keys


@pytest.fixture
def api(admin_user, make_client):
    return make_client(admin_user)


@pytest.fixture
def grace(transactional_db):
    return UserFactory(first_name="Grace", last_name="Hopper")


def checkout(api, asset, user):
    response = api.post(f"/api/v1/hardware/{asset.pk}/checkout",
                        {"checkout_to_type": "user", "assigned_user": user.pk}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "success", response.json()


def checkin(api, asset):
    response = api.post(f"/api/v1/hardware/{asset.pk}/checkin", {}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "success", response.json()


@pytest.mark.parametrize("platform", ["slack", "general", "google", "microsoft"])
def test_checkout_and_checkin_via_the_api_post_exactly_two_spec_bodies(webhook, receiver, api, grace, platform):
    path = HOOK_PATH + ("/workflows/1/triggers/manual" if platform == "microsoft" else "")
    webhook(platform, receiver.url_for(path) + ("?sig=abc" if platform == "microsoft" else ""),
            channel="#it" if platform in {"slack", "general"} else "")
    receiver.expect_request(path, method="POST").respond_with_json({"ok": True})
    asset = AssetFactory(asset_tag="TAG-1", name="", model=AssetModelFactory(name="ThinkPad X1"))

    checkout(api, asset, grace)
    assert wait_for_idle(10)
    checkin(api, asset)
    assert wait_for_idle(10)

    assert posted_bodies(receiver) == [
        EXPECTED[platform]("Asset TAG-1 (ThinkPad X1) was checked out to Grace Hopper by Ada Admin"),
        EXPECTED[platform]("Asset TAG-1 (ThinkPad X1) was checked in by Ada Admin"),
    ]
    assert [r.headers["Content-Type"] for r, _ in receiver.log] == ["application/json"] * 2
    assert list(WebhookDelivery.objects.order_by("id").values_list("event", "success")) == [
        ("asset.checked_out", True), ("asset.checked_in", True)]


def test_refused_checkout_does_not_notify(webhook, receiver, api, grace):
    webhook("slack", receiver.url_for(HOOK_PATH))
    asset = AssetFactory()
    checkout(api, asset, grace)
    assert wait_for_idle(10)
    response = api.post(f"/api/v1/hardware/{asset.pk}/checkout", {"checkout_to_type": "user",
                                                                  "assigned_user": grace.pk}, format="json")
    assert response.json()["status"] == "error"  # already checked out: rolled back, so no second notification
    assert wait_for_idle(10)
    assert WebhookDelivery.objects.count() == 1


@pytest.mark.parametrize("kind", ["down", "slow"])
def test_a_down_or_slow_receiver_never_reaches_the_api(webhook, slow_receiver, closed_port_url, api, grace, kind):
    """Each answer is given before any delivery is tried: the requests only queue task rows (no timing: the
    structure is the proof), and the worker's failed attempts are logged afterwards."""
    webhook("slack", closed_port_url if kind == "down" else slow_receiver.url_for(HOOK_PATH))
    for _ in range(5):
        asset = AssetFactory()
        checkout(api, asset, grace)
        checkin(api, asset)
    assert WebhookDelivery.objects.count() == 0  # nothing was attempted while the API answered
    assert DBTaskResult.objects.ready().count() == 10
    assert wait_for_idle(30)
    errors = set(WebhookDelivery.objects.values_list("error", flat=True))
    assert WebhookDelivery.objects.filter(success=False).count() == 10
    assert errors == ({"ConnectionError"} if kind == "down" else {"ReadTimeout"})


def test_burst_of_200_checkouts_through_the_service(webhook, gated_receiver, admin_user, grace, settings):
    server, gate = gated_receiver  # answers held back until the burst is over: nothing may wait for them
    webhook("general", server.url_for(HOOK_PATH), channel="#it")
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_TIMEOUT": 30}
    assets = [AssetFactory() for _ in range(200)]
    for asset in assets:
        asset_checkout(asset=asset, target=grace, actor=admin_user)
    assert server.log == [] and DBTaskResult.objects.ready().count() == 200  # queued; no change waited for a POST
    gate.set()
    assert wait_for_idle(60)
    assert WebhookDelivery.objects.filter(event="asset.checked_out", success=True).count() == 200
    assert len(server.log) == 200
    asset_checkin(asset=assets[0], actor=admin_user)
    assert wait_for_idle(10)
    assert chat_keys(posted_bodies(server)[-1]) == {
        "channel": "#it", "username": "AssetBot", "icon_emoji": "", "text": (
        f"Asset {assets[0].asset_tag} ({assets[0].name}) was checked in by Ada Admin")}
