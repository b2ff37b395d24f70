"""Issue 11's "done when" for licenses, through ``/api/v1`` alone: create a license with 2 seats (not reassignable),
check one seat out to a user and one to an asset, be refused a third checkout, read ``free_seats_count`` 0, check a
seat in; each seat checkout (and the checkin) posts the specification's text to a real local receiver."""

from __future__ import annotations

import pytest

from tests.factories import AssetFactory, CategoryFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, wait_for_idle
from tests.notifications.test_receivers import EXPECTED


def answer(response) -> dict:
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("platform", ["slack", "google"])
def test_license_seats_through_the_api(webhook, receiver, admin_user, make_client, platform):
    webhook(platform, receiver.url_for(HOOK_PATH), channel="#it" if platform == "slack" else "")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    api = make_client(admin_user)
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    laptop = AssetFactory(name="Grace's laptop")

    created = answer(api.post("/api/v1/licenses", {
        "name": "Office 365", "seats": 2, "reassignable": False, "serial": "KEY-1",
        "category_id": CategoryFactory(category_type="license").pk}, format="json"))
    assert created["status"] == "success"
    license_id = created["payload"]["id"]
    seats = answer(api.get(f"/api/v1/licenses/{license_id}/seats"))
    assert seats["total"] == 2
    first, second = (f"/api/v1/licenses/{license_id}/seats/{row['id']}" for row in seats["rows"])

    assert answer(api.patch(first, {"assigned_to": grace.pk}, format="json"))["status"] == "success"
    assert wait_for_idle(10)
    assert answer(api.patch(second, {"asset_id": laptop.pk}, format="json"))["status"] == "success"
    assert wait_for_idle(10)

    for seat in (first, second):  # no seat is free, and they may not be reassigned
        third = answer(api.patch(seat, {"assigned_to": UserFactory().pk}, format="json"))
        assert (third["status"], third["message"]) == ("error", "This seat is not available for checkout.")
    record = answer(api.get(f"/api/v1/licenses/{license_id}"))
    assert (record["seats"], record["free_seats_count"], record["remaining"]) == (2, 0, 0)
    assert [row["name"] for row in answer(api.get(f"/api/v1/users/{grace.pk}/licenses"))["rows"]] == ["Office 365"]

    back = answer(api.patch(first, {"assigned_to": None, "asset_id": None}, format="json"))
    assert back["status"] == "success" and back["payload"]["assigned_user"] is None
    assert wait_for_idle(10)
    assert answer(api.get(f"/api/v1/licenses/{license_id}"))["free_seats_count"] == 1

    admin = admin_user.full_name
    assert posted_bodies(receiver) == [EXPECTED[platform](text) for text in (
        f"License seat for Office 365 was checked out to Grace Hopper by {admin}",
        f"License seat for Office 365 was checked out to Grace's laptop by {admin}",
        f"License seat for Office 365 was checked in by {admin}",
    )]
