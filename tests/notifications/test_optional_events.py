"""API-CONTRACT.md §8a's optional events: ``<kind>.created`` / ``updated`` / ``deleted`` / ``restored``, off by
default, sent through the HTTP API to a real local receiver when enabled in the site settings' event list
(``webhook_events``), as an administrator enables them."""

from __future__ import annotations

import pytest

from assetsvc.models import SiteSettings
from inventory.models import AccessoryCheckout
from notifications.events import EVENTS
from notifications.models import WebhookDelivery
from tests.factories import AssetModelFactory, CategoryFactory, StatusLabelFactory, UserFactory
from tests.notifications.conftest import posted_bodies, serve_platform, wait_for_idle


@pytest.fixture
def api(admin_user, make_client):
    return make_client(admin_user)


@pytest.fixture
def all_events(general):
    """Every event of the registry switched on in the saved settings (after ``general`` configured the webhook)."""
    site = SiteSettings.load()
    site.webhook_events = ",".join(EVENTS)
    site.full_clean()
    site.save()


@pytest.fixture
def general(webhook, receiver):
    serve_platform(webhook, receiver, "general")
    return receiver


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body.get("status", "success") == "success", body
    return body


def asset_life(api, grace) -> int:
    """Create, update (one change, one no-op), check out, delete (checked out) and restore an asset via the API."""
    model = AssetModelFactory(name="ThinkPad X1")
    status = StatusLabelFactory(name="Ready")
    pk = ok(api.post("/api/v1/hardware", {"asset_tag": "TAG-1", "model_id": model.pk, "status_id": status.pk},
                     format="json"))["payload"]["id"]
    ok(api.patch(f"/api/v1/hardware/{pk}", {"name": "Laptop"}, format="json"))
    ok(api.patch(f"/api/v1/hardware/{pk}", {"name": "Laptop"}, format="json"))  # nothing changed: no event
    ok(api.post(f"/api/v1/hardware/{pk}/checkout", {"checkout_to_type": "user", "assigned_user": grace.pk},
                format="json"))
    ok(api.delete(f"/api/v1/hardware/{pk}"))
    ok(api.post(f"/api/v1/hardware/{pk}/restore"))
    return pk


def test_asset_events_in_order_with_their_texts(general, all_events, api, admin_user):
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    pk = asset_life(api, grace)
    assert wait_for_idle(10)
    posts = [(body["event"], body["text"], body["target"]) for body in posted_bodies(general)]
    user = {"type": "user", "id": grace.pk, "name": "Grace Hopper"}
    assert posts == [
        ("asset.created", "Asset TAG-1 (ThinkPad X1) was created by Ada Admin", None),
        ("asset.updated", "Asset TAG-1 (Laptop) was updated by Ada Admin", None),
        ("asset.checked_out", "Asset TAG-1 (Laptop) was checked out to Grace Hopper by Ada Admin", user),
        ("asset.checked_in", "Asset TAG-1 (Laptop) was checked in by Ada Admin", user),  # checkin on delete first
        ("asset.deleted", "Asset TAG-1 (Laptop) was deleted by Ada Admin", None),
        ("asset.restored", "Asset TAG-1 (Laptop) was restored by Ada Admin", None),
    ]
    bodies = posted_bodies(general)
    assert all(body["item"] == {"type": "asset", "id": pk, "name": body["item"]["name"], "tag": "TAG-1"}
               for body in bodies)
    assert all("quantity" not in body and body["actor"]["id"] == admin_user.pk for body in bodies)
    assert len({body["delivery_id"] for body in bodies}) == 6


def test_optional_events_are_off_by_default(general, api):
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    asset_life(api, grace)
    assert wait_for_idle(10)
    assert [body["event"] for body in posted_bodies(general)] == ["asset.checked_out", "asset.checked_in"]
    assert list(WebhookDelivery.objects.order_by("id").values_list("event", flat=True)) == [
        "asset.checked_out", "asset.checked_in"]


def test_accessory_events(general, all_events, api):
    category = CategoryFactory(category_type="accessory")
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    pk = ok(api.post("/api/v1/accessories", {"name": "USB Hub", "qty": 5, "category_id": category.pk},
                     format="json"))["payload"]["id"]
    ok(api.patch(f"/api/v1/accessories/{pk}", {"name": "USB-C Hub"}, format="json"))
    ok(api.post(f"/api/v1/accessories/{pk}/checkout", {"checkout_to_type": "user", "assigned_user": grace.pk,
                                                       "checkout_qty": 2}, format="json"))
    assert wait_for_idle(10)
    bodies = posted_bodies(general)
    assert [(body["event"], body["text"]) for body in bodies] == [
        ("accessory.created", "Accessory USB Hub was created by Ada Admin"),
        ("accessory.updated", "Accessory USB-C Hub was updated by Ada Admin"),  # not by the checkout
        ("accessory.checked_out", "Accessory USB-C Hub was checked out to Grace Hopper by Ada Admin"),
    ]
    assert bodies[0]["item"] == {"type": "accessory", "id": pk, "name": "USB Hub", "tag": None}
    assert "quantity" not in bodies[0] and bodies[2]["quantity"] == 2
    general.log.clear()

    row = AccessoryCheckout.objects.get(accessory_id=pk).pk
    ok(api.post(f"/api/v1/accessories/{row}/checkin", {}, format="json"))
    ok(api.delete(f"/api/v1/accessories/{pk}"))
    ok(api.post(f"/api/v1/accessories/{pk}/restore"))
    assert wait_for_idle(10)
    assert [(body["event"], body["target"] is None) for body in posted_bodies(general)] == [
        ("accessory.checked_in", False), ("accessory.deleted", True), ("accessory.restored", True)]
