"""An offboarding report, replayed with Snipe-IT v8.5's history routes: check a laptop and a keyboard out to a
leaver, rename the keyboard, then read the user's, the accessory's and the model's history as the report script
does (newest first, paged), and see another company's user answer as a missing one."""

from __future__ import annotations

import pytest

from tests.factories import AccessoryFactory, AssetFactory, CompanyFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_offboarding_report(token_client, make_client, fmcs_on):
    company = CompanyFactory()
    leaver = UserFactory(company=company, username="leaver")
    laptop = AssetFactory(company=company, asset_tag="LT-1")
    keyboard = AccessoryFactory(company=company, qty=3)
    assert token_client.post(f"/api/v1/hardware/{laptop.pk}/checkout",
                             {"checkout_to_type": "user", "assigned_user": leaver.pk}, format="json"
                             ).json()["status"] == "success"
    assert token_client.post(f"/api/v1/accessories/{keyboard.pk}/checkout", {"assigned_user": leaver.pk},
                             format="json").json()["status"] == "success"
    assert token_client.patch(f"/api/v1/accessories/{keyboard.pk}", {"name": "Keyboard (DE)"},
                              format="json").json()["status"] == "success"

    user_rows = token_client.get(f"/api/v1/users/{leaver.pk}/history").json()
    assert {row["action_type"] for row in user_rows["rows"]} >= {"checkout"}
    assert {row["item"]["id"] for row in user_rows["rows"] if row["action_type"] == "checkout"} >= {laptop.pk}

    accessory_rows = token_client.get(f"/api/v1/accessories/{keyboard.pk}/history", {"limit": 1}).json()
    assert accessory_rows["total"] >= 2 and len(accessory_rows["rows"]) == 1
    assert accessory_rows["rows"][0]["action_type"] == "update"  # newest first

    model_rows = token_client.get(f"/api/v1/models/{laptop.model_id}/history").json()
    assert "rows" in model_rows

    outsider = make_client(UserFactory(company=CompanyFactory(), permissions={"users.view": 1}))
    missing = outsider.get(f"/api/v1/users/{leaver.pk}/history").json()
    assert missing["status"] == "error"
    assert missing["messages"] == "User does not exist or you do not have permission view them."
