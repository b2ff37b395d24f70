"""Kits and company separation (docs/decisions.md, issue 27): kits are shared records, changed only by callers whom
separation does not limit; a limited caller sees only the lines of their company's items, never learns another
company's item through a kit, and a checkout hands out only what they could check out item by item."""

from __future__ import annotations

from typing import Any

import pytest

from activity.models import ActionLog
from inventory.models import Asset, Kit, KitAccessory, KitLicense, KitModel
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    KitFactory,
    LicenseFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
KEYS = {"kits.view": 1, "kits.create": 1, "kits.edit": 1, "kits.delete": 1, "assets.checkout": 1,
        "licenses.checkout": 1, "accessories.checkout": 1, "consumables.checkout": 1}


@pytest.fixture
def shared_kit(company, other_company) -> dict[str, Any]:
    kit = KitFactory(name="Shared kit")
    own = AccessoryFactory(name="Own mouse", company=company)
    theirs = LicenseFactory(name="Secret B license", company=other_company)
    KitAccessory.objects.create(kit=kit, accessory=own, quantity=1)
    KitLicense.objects.create(kit=kit, license=theirs, quantity=1)
    return {"kit": kit, "own": own, "theirs": theirs}


@pytest.fixture
def limited(make_client, company):
    return make_client(UserFactory(company=company, permissions=KEYS))


def test_limited_caller_sees_only_their_companys_lines(fmcs_on, limited, token_client, shared_kit):
    kit = shared_kit["kit"]
    assert limited.get(f"/api/v1/kits/{kit.pk}/licenses").json() == {"total": 0, "rows": []}
    assert [r["name"] for r in limited.get(f"/api/v1/kits/{kit.pk}/accessories").json()["rows"]] == ["Own mouse"]
    assert token_client.get(f"/api/v1/kits/{kit.pk}/licenses").json()["total"] == 1
    row = limited.get(f"/api/v1/kits/{kit.pk}").json()
    assert row["available_actions"]["update"] is False and row["available_actions"]["delete"] is False


def test_limited_caller_cannot_change_a_shared_kit(fmcs_on, limited, shared_kit, company):
    kit, own, theirs = shared_kit["kit"], shared_kit["own"], shared_kit["theirs"]
    lines = (list(KitAccessory.objects.values()), list(KitLicense.objects.values()))
    logs = ActionLog.objects.count()
    for method, path, body in [
        ("patch", "", {"name": "Taken over"}),
        ("delete", "", {}),
        ("post", "/models", {"model": AssetModelFactory().pk}),
        ("post", "/licenses", {"license": LicenseFactory(company=company).pk}),
        ("put", f"/accessories/{own.pk}", {"quantity": 5}),
        ("delete", f"/accessories/{own.pk}", {}),
    ]:
        response = getattr(limited, method)(f"/api/v1/kits/{kit.pk}{path}", body, format="json")
        assert response.status_code == 403, (method, path, response.content)
        assert response.json()["message"] == "Insufficient permissions."
    # Another company's line is not even found.
    response = limited.delete(f"/api/v1/kits/{kit.pk}/licenses/{theirs.pk}")
    assert response.status_code == 403
    assert Kit.objects.get(pk=kit.pk).name == "Shared kit"
    assert (list(KitAccessory.objects.values()), list(KitLicense.objects.values())) == lines
    assert ActionLog.objects.count() == logs
    assert limited.post("/api/v1/kits", {"name": "My own kit"}, format="json").json()["status"] == "success"


def test_limited_checkout_never_names_another_companys_item(fmcs_on, limited, shared_kit, company):
    kit = shared_kit["kit"]
    person = UserFactory(company=company)
    logs = ActionLog.objects.count()
    body = limited.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk}, format="json").json()
    assert body["status"] == "error"
    assert body["messages"] == {"licenses": ["This kit contains items you cannot check out."]}
    assert "Secret B" not in str(body)
    assert ActionLog.objects.count() == logs


def test_limited_checkout_picks_only_their_companys_assets(fmcs_on, limited, company, other_company,
                                                            token_client):
    kit, laptop = KitFactory(), AssetModelFactory(name="Laptop")
    KitModel.objects.create(kit=kit, model=laptop, quantity=1)
    theirs = AssetFactory(model=laptop, company=other_company)
    person = UserFactory(company=company)
    body = limited.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk}, format="json").json()
    assert body["messages"] == {
        "models": ["There are not enough available assets for Laptop to checkout. 1 are required. "]}
    own = AssetFactory(model=laptop, company=company)
    body = limited.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": person.pk}, format="json").json()
    assert body["status"] == "success", body
    assert Asset.objects.get(pk=own.pk).assigned_user_id == person.pk
    assert Asset.objects.get(pk=theirs.pk).assigned_user_id is None


def test_limited_caller_cannot_check_out_to_another_companys_user(fmcs_on, limited, other_company):
    kit = KitFactory()
    stranger = UserFactory(company=other_company)
    body = limited.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": stranger.pk}, format="json").json()
    assert body["status"] == "error" and "user_id" in body["messages"]
    missing = limited.post(f"/api/v1/kits/{kit.pk}/checkout", {"user_id": 999_999}, format="json").json()
    assert missing["messages"] == body["messages"]


def test_separation_off_shows_and_changes_everything(site_settings, limited, shared_kit):
    kit, theirs = shared_kit["kit"], shared_kit["theirs"]
    assert limited.get(f"/api/v1/kits/{kit.pk}/licenses").json()["total"] == 1
    body = limited.put(f"/api/v1/kits/{kit.pk}/licenses/{theirs.pk}", {"quantity": 2}, format="json").json()
    assert body["status"] == "success", body
