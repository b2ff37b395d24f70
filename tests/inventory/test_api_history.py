"""``GET <kind>/{id}/history`` for accessories, consumables, components, licenses, users, locations and models
(issue 27), in the shape of ``GET hardware/{id}/history``: the item's action-log rows (as the item or as the target),
newest first, paged, the activity report's rows and rules; the item must be visible (another company's item answers
as a missing id) and the caller needs the kind's ``view`` key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.api.reports import UserHistoryViewSet
from tests.api_mixins import MISSING, APIResource, http_errors, same_answer
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    ConsumableFactory,
    LocationFactory,
    UserFactory,
)
from tests.factories.inventory import ComponentFactory, LicenseFactory

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Kind:
    prefix: str
    section: str
    factory: Any
    item_type: str
    not_found: str
    scoped: bool
    edit: str = "name"  # the field a PATCH changes, to write a log row


KINDS = {
    "accessories": Kind("accessories", "accessories", AccessoryFactory, "accessory", "Accessory not found", True),
    "consumables": Kind("consumables", "consumables", ConsumableFactory, "consumable", "Consumable not found", True),
    "components": Kind("components", "components", ComponentFactory, "component", "Component not found", True),
    "licenses": Kind("licenses", "licenses", LicenseFactory, "license", "License not found", True),
    "users": Kind("users", "users", UserFactory, "user",
                  "User does not exist or you do not have permission view them.", True, edit="first_name"),
    "locations": Kind("locations", "locations", LocationFactory, "location", "Location not found", False),
    "models": Kind("models", "models", AssetModelFactory, "model", "AssetModel not found", False),
}


@pytest.fixture(params=list(KINDS))
def kind(request) -> Kind:
    return KINDS[request.param]


def history(client, kind: Kind, pk, **params):
    return client.get(f"/api/v1/{kind.prefix}/{pk}/history", params)


def touch(client, kind: Kind, obj, value: str) -> None:
    body = client.patch(f"/api/v1/{kind.prefix}/{obj.pk}", {kind.edit: value}, format="json").json()
    assert body["status"] == "success", body


def test_history_lists_the_items_rows_as_the_activity_report(kind, token_client):
    obj = kind.factory()
    touch(token_client, kind, obj, "First")
    touch(token_client, kind, obj, "Second")
    kind.factory()  # another item of the kind: not in this history
    body = history(token_client, kind, obj.pk).json()
    assert list(body) == ["total", "rows"] and body["total"] == 2
    assert [row["log_meta"][kind.edit]["new"] for row in body["rows"]] == ["Second", "First"]  # newest first
    assert all(row["item"]["id"] == obj.pk and row["item"]["type"] == kind.item_type for row in body["rows"])
    report = token_client.get("/api/v1/reports/activity", {"item_type": kind.item_type, "item_id": obj.pk}).json()
    assert body == report
    paged = history(token_client, kind, obj.pk, limit=1, offset=1).json()
    assert paged["total"] == 2 and [row["id"] for row in paged["rows"]] == [body["rows"][1]["id"]]


@pytest.mark.parametrize("bad", [MISSING, "abc"])
def test_history_of_an_unknown_item(kind, token_client, settings, bad):
    body = history(token_client, kind, bad).json()
    assert body["status"] == "error" and body["message"] == kind.not_found
    http_errors(settings)
    assert history(token_client, kind, bad).status_code == 404


def test_history_needs_the_kinds_view_key(kind, api_client, make_client):
    obj = kind.factory()
    response = history(api_client, kind, obj.pk)
    assert response.status_code == 401 and response.json()["message"] == "Unauthenticated."
    other = "assets.view" if kind.section != "assets" else "users.view"
    response = history(make_client(UserFactory(permissions={other: 1, f"{kind.section}.edit": 1})), kind, obj.pk)
    assert response.status_code == 403 and response.json()["message"] == "Insufficient permissions."
    assert history(make_client(UserFactory(permissions={f"{kind.section}.view": 1})), kind, obj.pk).status_code == 200


def test_another_companys_item_answers_as_a_missing_one(kind, make_client, token_client, fmcs_on):
    if not kind.scoped:
        pytest.skip("locations and models are shared by every company (rule 6)")
    mine, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=mine, permissions={f"{kind.section}.view": 1}))
    their_item = kind.factory(company=theirs)
    touch(token_client, kind, their_item, "Theirs")
    same_answer(history(client, kind, their_item.pk), history(client, kind, MISSING))
    own = kind.factory(company=mine)
    touch(token_client, kind, own, "Mine")
    assert history(client, kind, own.pk).json()["total"] == 1


def test_history_runs_a_constant_number_of_queries(kind, token_client):
    obj = kind.factory()
    touch(token_client, kind, obj, "v0")
    history(token_client, kind, obj.pk)
    with CaptureQueriesContext(connection) as few:
        assert history(token_client, kind, obj.pk, limit=500).json()["total"] == 1
    for index in range(1, 15):
        touch(token_client, kind, obj, f"v{index}")
    with CaptureQueriesContext(connection) as many:
        assert history(token_client, kind, obj.pk, limit=500).json()["total"] == 15
    assert len(many.captured_queries) == len(few.captured_queries)


def test_a_location_shows_only_the_callers_companys_rows(token_client, make_client, fmcs_on):
    """Locations are shared; a checkout of another company's asset to it stays out of a limited caller's history (the
    activity report's rule)."""
    place = LocationFactory()
    mine, theirs = CompanyFactory(), CompanyFactory()
    for company in (mine, theirs):
        asset = AssetFactory(company=company)
        body = token_client.post(f"/api/v1/hardware/{asset.pk}/checkout", {"assigned_location": place.pk},
                                 format="json").json()
        assert body["status"] == "success", body
    assert history(token_client, KINDS["locations"], place.pk).json()["total"] == 2
    client = make_client(UserFactory(company=mine, permissions={"locations.view": 1}))
    rows = history(client, KINDS["locations"], place.pk).json()["rows"]
    assert len(rows) == 1 and rows[0]["target"] == {"id": place.pk, "name": place.name, "type": "location"}


def test_a_license_key_only_to_key_holders(token_client, make_client):
    license_ = LicenseFactory(serial="KEY-123")
    touch(token_client, KINDS["licenses"], license_, "Renamed")
    assert history(token_client, KINDS["licenses"], license_.pk).json()["rows"][0]["item"]["serial"] == "KEY-123"
    viewer = make_client(UserFactory(permissions={"licenses.view": 1}))
    assert history(viewer, KINDS["licenses"], license_.pk).json()["rows"][0]["item"]["serial"] == "------------"


class TestUserHistoryAPI(APIResource):
    """``users/{id}/history`` is served by its own viewset (the rows name inventory's items; ``accounts`` sits below
    ``inventory``): rows where the user is the target of a checkout are part of it."""

    url = "/api/v1/users/1/history"
    viewset = UserHistoryViewSet

    def test_checkouts_to_the_user_are_in_their_history(self, token_client):
        user, asset = UserFactory(), AssetFactory()
        assert token_client.post(f"/api/v1/hardware/{asset.pk}/checkout", {"assigned_user": user.pk},
                                 format="json").json()["status"] == "success"
        rows = history(token_client, KINDS["users"], user.pk).json()["rows"]
        assert [(row["action_type"], row["item"]["id"], row["target"]["id"]) for row in rows] == [
            ("checkout", asset.pk, user.pk)]

    def test_a_deleted_user_keeps_their_history(self, token_client):
        user = UserFactory()
        touch(token_client, KINDS["users"], user, "Before")
        assert token_client.delete(f"/api/v1/users/{user.pk}").json()["status"] == "success"
        assert history(token_client, KINDS["users"], user.pk).json()["total"] == 2
