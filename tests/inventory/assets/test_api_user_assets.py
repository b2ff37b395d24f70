"""``GET users/{id}/assets`` ("who has what") and ``GET /hardware?assigned_to=`` without ``assigned_type``: found
missing when tried as a new user would (issue 10)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.factories import AssetFactory, LocationFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db


def test_user_assets_lists_what_the_user_holds(token_client):
    alice, bob = UserFactory(), UserFactory()
    held = [checked_out_asset(alice, asset_tag=f"A-{n}") for n in range(2)]
    checked_out_asset(bob, asset_tag="B-1")
    gone = checked_out_asset(alice, asset_tag="A-gone")
    gone.deleted_at = timezone.now()
    gone.save(update_fields=["deleted_at"])
    body = token_client.get(f"/api/v1/users/{alice.pk}/assets").json()
    assert body["total"] == 2
    assert sorted(row["asset_tag"] for row in body["rows"]) == ["A-0", "A-1"]
    assert all(row["assigned_to"]["id"] == alice.pk for row in body["rows"])
    assert {row["id"] for row in body["rows"]} == {a.pk for a in held}
    assert token_client.get(f"/api/v1/users/{bob.pk}/assets").json()["total"] == 1


def test_user_assets_of_unknown_or_other_companys_user_is_not_found(fmcs_on, make_client, company, other_company):
    stranger = UserFactory(company=other_company)
    checked_out_asset(stranger, company=other_company)
    client = make_client(UserFactory(company=company, permissions={"users.view": 1, "assets.view": 1}))
    for pk in (stranger.pk, 999999, "abc"):
        body = client.get(f"/api/v1/users/{pk}/assets").json()
        assert body["status"] == "error", body
        assert body["message"] == "User does not exist or you do not have permission view them."


def test_user_assets_needs_both_view_rights(make_client):
    holder = UserFactory()
    checked_out_asset(holder)
    assert make_client(UserFactory(permissions={"assets.view": 1})).get(
        f"/api/v1/users/{holder.pk}/assets").status_code == 403
    assert make_client(UserFactory(permissions={"users.view": 1})).get(
        f"/api/v1/users/{holder.pk}/assets").status_code == 403
    both = make_client(UserFactory(permissions={"users.view": 1, "assets.view": 1}))
    assert both.get(f"/api/v1/users/{holder.pk}/assets").json()["total"] == 1


def test_assigned_to_alone_means_a_user(token_client):
    holder = UserFactory()
    mine = checked_out_asset(holder)
    place = LocationFactory()
    # A location (and an asset) with the same id as the user must not match.
    AssetFactory(assigned_location=place)
    AssetFactory()
    rows = token_client.get("/api/v1/hardware", {"assigned_to": holder.pk}).json()["rows"]
    assert [row["id"] for row in rows] == [mine.pk]
    typed = token_client.get("/api/v1/hardware", {"assigned_to": place.pk, "assigned_type": "location"}).json()
    assert typed["total"] == 1 and typed["rows"][0]["assigned_to"]["type"] == "location"
