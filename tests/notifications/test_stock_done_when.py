"""Issue 10's "done when", through ``/api/v1`` alone: create an accessory with 5 units and a consumable with 10,
check out 2 accessories to a user, 1 to a location and 3 consumables to the user, read remaining 2 and 7 and who
holds what, check the accessories back in; each checkout (and checkin) posts the specification's text to a real
local receiver. Issue 11's: components installed and taken out, ``remaining`` exact, and nothing posted."""

from __future__ import annotations

import pytest

from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, CategoryFactory, LocationFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, wait_for_idle
from tests.notifications.test_receivers import EXPECTED


def ok(response) -> dict:
    body = response.json()
    assert response.status_code == 200 and body["status"] == "success", body
    return body["payload"]


@pytest.mark.parametrize("platform", ["slack", "google"])
def test_accessories_and_consumables_through_the_api(webhook, receiver, admin_user, make_client, platform):
    webhook(platform, receiver.url_for(HOOK_PATH), channel="#it" if platform == "slack" else "")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    api = make_client(admin_user)
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    lab = LocationFactory(name="Lab 2")

    dock = ok(api.post("/api/v1/accessories", {"name": "USB-C dock", "qty": 5,
                                               "category_id": CategoryFactory(category_type="accessory").pk},
                       format="json"))["id"]
    toner = ok(api.post("/api/v1/consumables", {"name": "Toner", "qty": 10,
                                                "category_id": CategoryFactory(category_type="consumable").pk},
                        format="json"))["id"]
    to_grace = ok(api.post(f"/api/v1/accessories/{dock}/checkout", {"assigned_user": grace.pk, "checkout_qty": 2},
                           format="json"))
    assert wait_for_idle(10)
    to_lab = ok(api.post(f"/api/v1/accessories/{dock}/checkout", {"assigned_location": lab.pk}, format="json"))
    assert wait_for_idle(10)
    ok(api.post(f"/api/v1/consumables/{toner}/checkout", {"assigned_to": grace.pk, "checkout_qty": 3},
                format="json"))
    assert wait_for_idle(10)

    assert api.get(f"/api/v1/accessories/{dock}").json()["remaining"] == 2
    assert api.get(f"/api/v1/consumables/{toner}").json()["remaining"] == 7
    held = api.get(f"/api/v1/accessories/{dock}/checkedout").json()
    assert held["total"] == 2
    assert {(row["assigned_to"]["type"], row["assigned_to"]["name"], row["checkout_qty"]) for row in held["rows"]} \
        == {("user", "Grace Hopper", 2), ("location", "Lab 2", 1)}
    graces = api.get(f"/api/v1/users/{grace.pk}/accessories").json()
    assert [(row["id"], row["checkout_qty"]) for row in graces["rows"]] == [(dock, 2)]
    assert [(row["name"], row["checkout_qty"]) for row in api.get(f"/api/v1/consumables/{toner}/users").json()["rows"]
            ] == [("Grace Hopper", 3)]
    assert api.get(f"/api/v1/users/{grace.pk}").json()["accessories_count"] == 2

    for row in (to_grace, to_lab):
        ok(api.post(f"/api/v1/accessories/{row['id']}/checkin", {}, format="json"))
        assert wait_for_idle(10)
    assert api.get(f"/api/v1/accessories/{dock}").json()["remaining"] == 5

    admin = admin_user.full_name
    assert posted_bodies(receiver) == [EXPECTED[platform](text) for text in (
        f"Accessory USB-C dock was checked out to Grace Hopper by {admin}",
        f"Accessory USB-C dock was checked out to Lab 2 by {admin}",
        f"Consumable Toner was checked out to Grace Hopper by {admin}",
        f"Accessory USB-C dock was checked in by {admin}",
        f"Accessory USB-C dock was checked in by {admin}",
    )]


@pytest.mark.parametrize("platform", ["slack", "general"])
def test_components_through_the_api_post_nothing(webhook, receiver, admin_user, make_client, platform):
    """Issue 11's "done when": a component with 5 units, 3 installed into an asset and 1 taken out again reads
    ``remaining`` 3, through ``/api/v1`` alone; component checkouts and checkins post no webhook and log no delivery
    (API-CONTRACT.md §10, reference §10.2: Snipe-IT skips components). An accessory checkout afterwards posts, so
    the webhook was live all along."""
    webhook(platform, receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    api = make_client(admin_user)
    host = AssetFactory(name="Build box")

    ram = ok(api.post("/api/v1/components", {"name": "16 GB DDR5", "qty": 5,
                                              "category_id": CategoryFactory(category_type="component").pk},
                      format="json"))["id"]
    row = ok(api.post(f"/api/v1/components/{ram}/checkout", {"assigned_to": host.pk, "assigned_qty": 3},
                      format="json"))
    assert api.get(f"/api/v1/components/{ram}").json()["remaining"] == 2
    ok(api.post(f"/api/v1/components/{row['assigned_pivot_id']}/checkin", {"checkin_qty": 1}, format="json"))
    assert wait_for_idle(10)

    assert api.get(f"/api/v1/components/{ram}").json()["remaining"] == 3
    installed = api.get(f"/api/v1/components/{ram}/assets").json()
    assert [(row["id"], row["qty"]) for row in installed["rows"]] == [(host.pk, 2)]
    assert [(row["id"], row["checkout_qty"]) for row in api.get(f"/api/v1/hardware/{host.pk}/components").json()[
        "rows"]] == [(ram, 2)]
    assert posted_bodies(receiver) == [] and not WebhookDelivery.objects.exists()

    dock = ok(api.post("/api/v1/accessories", {"name": "Dock", "qty": 1,
                                               "category_id": CategoryFactory(category_type="accessory").pk},
                       format="json"))["id"]
    ok(api.post(f"/api/v1/accessories/{dock}/checkout", {"assigned_asset": host.pk}, format="json"))
    assert wait_for_idle(10)
    assert posted_bodies(receiver) == [EXPECTED[platform](
        f"Accessory Dock was checked out to Build box by {admin_user.full_name}")]
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["accessory.checked_out"]
