"""An onboarding script, replayed: build a "new hire" kit (two laptops and a headset), read its lines back, raise a
quantity, hand the kit to a new hire in one call and read what they hold from ``/users/{id}/assets``; a second hire
is refused because the laptops ran out, with nothing handed out; then a line is taken off and the kit deleted."""

from __future__ import annotations

import pytest

from inventory.models import AccessoryCheckout, Asset
from tests.factories import AccessoryFactory, AssetFactory, AssetModelFactory

pytestmark = pytest.mark.django_db


def test_onboarding_with_a_kit(token_client):
    laptop = AssetModelFactory(name="Latitude 7440")
    for n in range(3):
        AssetFactory(model=laptop, asset_tag=f"LAP-{n}")
    headset = AccessoryFactory(name="Headset", qty=10)

    created = token_client.post("/api/v1/kits", {"name": "New hire"}, format="json").json()
    assert created["status"] == "success", created
    kit = created["payload"]["id"]
    added = token_client.post(f"/api/v1/kits/{kit}/models", {"model": laptop.pk, "quantity": 2}, format="json")
    assert added.json()["status"] == "success", added.json()
    added = token_client.post(f"/api/v1/kits/{kit}/accessories", {"accessory": headset.pk}, format="json")
    assert added.json()["status"] == "success", added.json()

    models = token_client.get(f"/api/v1/kits/{kit}/models").json()
    assert [(row["id"], row["name"], row["quantity"]) for row in models["rows"]] == [(laptop.pk, "Latitude 7440", 2)]
    accessories = token_client.get(f"/api/v1/kits/{kit}/accessories").json()
    assert [(row["name"], row["quantity"]) for row in accessories["rows"]] == [("Headset", 1)]

    changed = token_client.put(f"/api/v1/kits/{kit}/accessories/{headset.pk}", {"quantity": 2}, format="json")
    assert changed.json()["status"] == "success", changed.json()
    assert token_client.get(f"/api/v1/kits/{kit}/accessories").json()["rows"][0]["quantity"] == 2

    hire = token_client.post("/api/v1/users", {"first_name": "Ada", "last_name": "Hire", "username": "ada.hire",
                                                "password": "a long pass phrase 1", "password_confirmation":
                                                "a long pass phrase 1"}, format="json").json()
    assert hire["status"] == "success", hire
    hire_id = hire["payload"]["id"]
    done = token_client.post(f"/api/v1/kits/{kit}/checkout", {"user_id": hire_id, "note": "first day"},
                             format="json").json()
    assert done["status"] == "success" and done["messages"] == "Checkout was successful", done
    assert len(done["payload"]["assets"]) == 2
    assert [row["name"] for row in done["payload"]["accessories"]] == ["Headset"]
    held = token_client.get(f"/api/v1/users/{hire_id}/assets").json()
    assert held["total"] == 2
    assert {row["model"]["name"] for row in held["rows"]} == {"Latitude 7440"}
    assert AccessoryCheckout.objects.get(assigned_user_id=hire_id).assigned_qty == 2

    second = token_client.post("/api/v1/users", {"first_name": "Bo", "username": "bo.hire", "password":
                                                  "another pass phrase 2", "password_confirmation":
                                                  "another pass phrase 2"}, format="json").json()["payload"]["id"]
    before = (list(Asset.objects.order_by("pk").values_list("pk", "assigned_user_id")),
              AccessoryCheckout.objects.count())
    refused = token_client.post(f"/api/v1/kits/{kit}/checkout", {"user_id": second}, format="json").json()
    assert refused["status"] == "error" and refused["messages"] == {
        "models": ["There are not enough available assets for Latitude 7440 to checkout. 2 are required. "]}
    assert (list(Asset.objects.order_by("pk").values_list("pk", "assigned_user_id")),
            AccessoryCheckout.objects.count()) == before
    assert token_client.get(f"/api/v1/users/{second}/assets").json()["total"] == 0

    removed = token_client.delete(f"/api/v1/kits/{kit}/models/{laptop.pk}").json()
    assert removed["status"] == "success", removed
    assert token_client.get(f"/api/v1/kits/{kit}/models").json() == {"total": 0, "rows": []}
    assert token_client.delete(f"/api/v1/kits/{kit}").json()["status"] == "success"
    assert token_client.get(f"/api/v1/kits/{kit}").json()["status"] == "error"
    assert Asset.objects.filter(assigned_user_id=hire_id).count() == 2  # what was handed out stays handed out
