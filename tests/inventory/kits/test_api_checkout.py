"""``POST /kits/{id}/checkout``: everything a kit lists goes to the user in one transaction, or nothing does.

Runs on PostgreSQL too: ``DATABASE_URL=postgres://... pytest tests/inventory/kits/test_api_checkout.py``."""

from __future__ import annotations

from typing import Any

import pytest

from activity.models import ActionLog
from inventory.choices import StatusType
from inventory.models import (
    AccessoryCheckout,
    Asset,
    ConsumableAssignment,
    KitAccessory,
    KitConsumable,
    KitLicense,
    KitModel,
    LicenseSeat,
)
from tests.api_mixins import error_of, http_errors
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ConsumableFactory,
    KitFactory,
    LicenseFactory,
    StatusLabelFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
ALL_CHECKOUT_KEYS = {"kits.view": 1, "assets.checkout": 1, "licenses.checkout": 1, "accessories.checkout": 1,
                     "consumables.checkout": 1}


@pytest.fixture
def kit(db) -> Any:
    """A kit of two laptops, one license seat, two mice and three notebooks, with enough of each in stock."""
    kit = KitFactory(name="New hire")
    laptop = AssetModelFactory(name="Laptop")
    for _ in range(3):
        AssetFactory(model=laptop)
    AssetFactory(model=laptop, status=StatusLabelFactory(type=StatusType.PENDING))  # never picked
    KitModel.objects.create(kit=kit, model=laptop, quantity=2)
    KitLicense.objects.create(kit=kit, license=LicenseFactory(name="Office", seats=2), quantity=1)
    KitAccessory.objects.create(kit=kit, accessory=AccessoryFactory(name="Mouse", qty=5), quantity=2)
    KitConsumable.objects.create(kit=kit, consumable=ConsumableFactory(name="Notebook", qty=10), quantity=3)
    return kit


def state() -> tuple:
    return (list(Asset.objects.order_by("pk").values_list("pk", "assigned_user_id")),
            list(LicenseSeat.objects.order_by("pk").values_list("pk", "assigned_user_id")),
            AccessoryCheckout.objects.count(), ConsumableAssignment.objects.count(), ActionLog.objects.count())


def test_checkout_hands_out_everything_with_logs(token_client, superuser, kit):
    person = UserFactory()
    body = token_client.post(f"/api/v1/kits/{kit.pk}/checkout",
                             {"user_id": person.pk, "note": "onboarding", "expected_checkin": "2099-01-01"},
                             format="json").json()
    assert body["status"] == "success" and body["messages"] == "Checkout was successful", body
    payload = body["payload"]
    assert len(payload["assets"]) == 2 and {a["name"] for a in payload["licenses"]} == {"Office"}
    assert [a["name"] for a in payload["accessories"]] == ["Mouse"]
    assert [c["name"] for c in payload["consumables"]] == ["Notebook"]
    held = Asset.objects.filter(assigned_user=person)
    assert held.count() == 2 and all(str(a.expected_checkin) == "2099-01-01" for a in held)
    assert LicenseSeat.objects.filter(assigned_user=person).count() == 1
    assert AccessoryCheckout.objects.get(assigned_user=person).assigned_qty == 2
    assert ConsumableAssignment.objects.get(assigned_user=person).assigned_qty == 3
    logs = ActionLog.objects.filter(action_type="checkout", target_type="user", target_id=person.pk)
    assert sorted(logs.values_list("item_type", flat=True)) == [
        "accessory", "asset", "asset", "consumable", "license"]
    assert all(log.note == "onboarding" and log.created_by == superuser for log in logs)


def test_one_short_line_checks_out_nothing(token_client, settings, kit):
    KitModel.objects.filter(kit=kit).update(quantity=4)  # three deployable laptops
    KitConsumable.objects.filter(kit=kit).update(quantity=11)
    person = UserFactory()
    before = state()
    response = token_client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk}, format="json")
    assert error_of(response) == {
        "models": ["There are not enough available assets for Laptop to checkout. 4 are required. "],
        "consumables": ["There are not enough available units of Notebook to checkout. 11 are required. "],
    }
    assert response.json()["message"] == "Checkout error"
    assert state() == before
    http_errors(settings)
    assert token_client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk},
                             format="json").status_code == 409
    assert state() == before


def test_items_out_already_are_not_counted(token_client, kit):
    other = UserFactory()
    license_ = KitLicense.objects.get(kit=kit).license
    LicenseSeat.objects.filter(license=license_).update(assigned_user=other)
    AccessoryCheckout.objects.create(accessory=KitAccessory.objects.get(kit=kit).accessory, assigned_user=other,
                                     assigned_qty=4)
    before = state()
    body = token_client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": UserFactory().pk},
                             format="json").json()
    assert body["messages"] == {
        "licenses": ["There are not enough available seats for Office to checkout. 1 are required. "],
        "accessories": ["There are not enough available units of Mouse to checkout. 2 are required. "],
    }
    assert state() == before


def test_a_failure_inside_a_kind_rolls_everything_back(token_client, kit, site_settings):
    """The note rule is a kind's own check: refused before anything is written, and never half of a kit."""
    site_settings.require_checkinout_notes = True
    site_settings.save()
    before = state()
    response = token_client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": UserFactory().pk}, format="json")
    assert error_of(response, "note") == ["The note field is required."]
    assert state() == before
    bad_date = token_client.post(f"/api/v1/kits/{kit.pk}/checkout",
                                 {"user_id": UserFactory().pk, "note": "x", "expected_checkin": "2000-01-01"},
                                 format="json")
    assert error_of(bad_date, "expected_checkin")
    assert state() == before


@pytest.mark.parametrize("user_id", [None, 999_999, "abc"])
def test_unknown_or_missing_user(token_client, kit, user_id):
    before = state()
    response = token_client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": user_id}, format="json")
    assert error_of(response, "user_id")
    assert state() == before


def test_unknown_kit(token_client):
    response = token_client.post("/api/v1/kits/999999/checkout", {"user_id": UserFactory().pk}, format="json")
    assert response.json()["message"] == "PredefinedKit not found"


def test_checkout_needs_the_checkout_key_of_each_kind(make_client, api_client, kit):
    person = UserFactory()
    before = state()
    assert api_client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk}).status_code == 401
    for missing in ALL_CHECKOUT_KEYS:
        keys = {k: v for k, v in ALL_CHECKOUT_KEYS.items() if k != missing}
        response = make_client(UserFactory(permissions=keys)).post(
            f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk}, format="json")
        assert response.status_code == 403, missing
        assert response.json()["message"] == "Insufficient permissions."
    assert state() == before
    client = make_client(UserFactory(permissions=ALL_CHECKOUT_KEYS))
    assert client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk},
                       format="json").json()["status"] == "success"


def test_a_kit_of_models_only_needs_only_assets_checkout(make_client):
    kit, laptop = KitFactory(), AssetModelFactory()
    AssetFactory(model=laptop)
    KitModel.objects.create(kit=kit, model=laptop, quantity=1)
    client = make_client(UserFactory(permissions={"kits.view": 1, "assets.checkout": 1}))
    body = client.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": UserFactory().pk}, format="json").json()
    assert body["status"] == "success", body


def test_an_empty_kit_checks_out_nothing(token_client):
    body = token_client.post(f"/api/v1/kits/{KitFactory().pk}/checkout", {"user_id": UserFactory().pk},
                             format="json").json()
    assert body["status"] == "success"
    assert body["payload"] == {"assets": [], "licenses": [], "accessories": [], "consumables": []}
