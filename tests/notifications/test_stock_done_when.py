"""Issue 10's "done when", through ``/api/v1`` alone: create an accessory with 5 units and a consumable with 10,
check out 2 accessories to a user, 1 to a location and 3 consumables to the user, read remaining 2 and 7 and who
holds what, check the accessories back in; each checkout (and checkin) posts the specification's text to a real
local receiver."""

from __future__ import annotations

import pytest

from notifications.delivery import wait_for_idle
from tests.factories import CategoryFactory, LocationFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies
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
