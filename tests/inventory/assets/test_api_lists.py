"""Asset lists hung under other records (issue 27): ``statuslabels/{id}/assetlist``, ``locations/{id}/assets``,
``locations/{id}/assigned/assets``, ``models/assets``, ``hardware/{id}/assigned/assets``, and the users of a location
(``locations/{id}/users``). Each is the hardware (or user) list's shape and machinery: ``{total, rows}``, filters,
pages, company separation (another company's rows never appear nor count), a constant number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api_mixins import http_errors
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db


def listed(client, path, **params):
    response = client.get(path, {"limit": 500, **params})
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["total", "rows"], body
    return {row["id"] for row in body["rows"]}, body["total"]


#: route → (record key besides assets.view, not-found text, maker of (owner, [assets under it], [other assets]))
def _status_label(company=None):
    label = StatusLabelFactory(type="archived")  # archived: still listed under its own label
    return label, [AssetFactory(status=label, company=company)], [AssetFactory(company=company)]


def _location(company=None):
    place = LocationFactory()
    here = [AssetFactory(location=place, company=company), checked_out_asset(place, company=company)]
    return place, here, [AssetFactory(rtd_location=place, company=company)]


def _location_assigned(company=None):
    place = LocationFactory()
    return place, [checked_out_asset(place, company=company)], [AssetFactory(location=place, company=company)]


def _hardware_assigned(company=None):
    parent = AssetFactory(company=company)
    return parent, [checked_out_asset(parent, company=company)], [AssetFactory(company=company)]


ROUTES = {
    "statuslabels/{id}/assetlist": ("statuslabels.view", "Statuslabel not found", _status_label),
    "locations/{id}/assets": ("locations.view", "Location not found", _location),
    "locations/{id}/assigned/assets": ("locations.view", "Location not found", _location_assigned),
    "hardware/{id}/assigned/assets": (None, "Asset does not exist.", _hardware_assigned),
}


@pytest.fixture(params=list(ROUTES))
def route(request):
    return request.param


def path_of(route, pk):
    return "/api/v1/" + route.format(id=pk)


def test_lists_show_the_assets_under_the_record(route, token_client):
    _key, _message, make = ROUTES[route]
    owner, under, others = make()
    ids, total = listed(token_client, path_of(route, owner.pk))
    assert ids == {a.pk for a in under} and total == len(under)
    row = token_client.get(path_of(route, owner.pk)).json()["rows"][0]
    assert row == token_client.get(f"/api/v1/hardware/{row['id']}").json()  # the hardware record
    deleted = under[0]
    deleted.deleted_at = "2024-01-01T00:00:00Z"
    deleted.save()
    assert listed(token_client, path_of(route, owner.pk))[1] == len(under) - 1
    assert listed(token_client, path_of(route, owner.pk), limit=1, offset=5)[1] == len(under) - 1


def test_lists_of_an_unknown_record(route, token_client, settings):
    _key, message, _make = ROUTES[route]
    for bad in ("999999", "abc"):
        body = token_client.get(path_of(route, bad)).json()
        assert body["status"] == "error" and body["message"] == message
    http_errors(settings)
    assert token_client.get(path_of(route, 999999)).status_code == 404


def test_lists_need_both_keys(route, api_client, make_client):
    key, _message, make = ROUTES[route]
    owner, _under, _others = make()
    path = path_of(route, owner.pk)
    assert api_client.get(path).status_code == 401
    both = {"assets.view": 1, **({key: 1} if key else {})}
    assert make_client(UserFactory(permissions=both)).get(path).status_code == 200
    for missing in both:
        keys = {k: 1 for k in both if k != missing}
        response = make_client(UserFactory(permissions=keys)).get(path)
        assert response.status_code == 403, missing


def test_lists_hide_another_companys_assets(route, make_client, fmcs_on):
    key, message, make = ROUTES[route]
    mine, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=mine, permissions={"assets.view": 1, **({key: 1} if key else {})}))
    if route.startswith("hardware"):
        owner, under, _ = make(company=mine)
        their_owner, _, _ = make(company=theirs)
        checked_out_asset(owner, company=theirs)  # another company's asset on my asset: invisible
        body = client.get(path_of(route, their_owner.pk)).json()
        assert body["message"] == message  # their asset answers as a missing one
    else:
        owner, under, _ = make(company=mine)
        _, their_under, _ = make(company=theirs)
        for asset in their_under:  # the same record, their assets
            setattr(asset, {"statuslabels": "status", "locations": "location"}[route.split("/")[0]], owner)
            if "assigned" in route:
                asset.assigned_location = owner
            asset.save()
    ids, total = listed(client, path_of(route, owner.pk))
    assert ids == {a.pk for a in under} and total == len(under)


def test_lists_run_a_constant_number_of_queries(route, token_client):
    _key, _message, make = ROUTES[route]
    owner, _under, _others = make()

    def more(n):
        for _ in range(n):
            if route.startswith("statuslabels"):
                AssetFactory(status=owner, company=CompanyFactory(), assigned_user=UserFactory())
            elif route == "locations/{id}/assets":
                AssetFactory(location=owner, assigned_user=UserFactory(company=CompanyFactory()),
                             company=CompanyFactory())
            elif route.startswith("locations"):
                checked_out_asset(owner, company=CompanyFactory())
            else:
                checked_out_asset(owner, company=CompanyFactory())

    path = path_of(route, owner.pk)
    token_client.get(path)
    with CaptureQueriesContext(connection) as few:
        listed(token_client, path)
    more(25)
    with CaptureQueriesContext(connection) as many:
        _ids, total = listed(token_client, path)
    assert total >= 25 and len(many.captured_queries) == len(few.captured_queries)


# --- models/assets ----------------------------------------------------------------------------------------------------


def test_model_assets(token_client, make_client, settings, fmcs_on):
    model, other = AssetModelFactory(), AssetModelFactory()
    mine, theirs = CompanyFactory(), CompanyFactory()
    own, _, _ = AssetFactory(model=model, company=mine), AssetFactory(model=model, company=theirs), AssetFactory(
        model=other)
    assert listed(token_client, "/api/v1/models/assets", model_id=model.pk)[1] == 2
    assert listed(token_client, "/api/v1/models/assets", id=model.pk)[1] == 2
    client = make_client(UserFactory(company=mine, permissions={"assets.view": 1, "models.view": 1}))
    assert listed(client, "/api/v1/models/assets", model_id=model.pk) == ({own.pk}, 1)
    for params in ({}, {"model_id": 999999}, {"model_id": "abc"}):
        assert token_client.get("/api/v1/models/assets", params).json()["message"] == "AssetModel not found"
    response = make_client(UserFactory(permissions={"assets.view": 1})).get("/api/v1/models/assets",
                                                                            {"model_id": model.pk})
    assert response.status_code == 403
    assert token_client.get(f"/api/v1/models/{model.pk}").json()["id"] == model.pk  # ids still route


# --- locations/{id}/users ---------------------------------------------------------------------------------------------


def test_location_users(token_client, make_client, api_client, fmcs_on):
    place = LocationFactory()
    mine, theirs = CompanyFactory(), CompanyFactory()
    own = UserFactory(location=place, company=mine)
    UserFactory(location=place, company=theirs)
    UserFactory(location=place, deleted_at="2024-01-01T00:00:00Z")
    UserFactory()
    assert listed(token_client, f"/api/v1/locations/{place.pk}/users")[1] == 2
    client = make_client(UserFactory(company=mine, permissions={"users.view": 1, "locations.view": 1}))
    assert listed(client, f"/api/v1/locations/{place.pk}/users") == ({own.pk}, 1)
    row = client.get(f"/api/v1/locations/{place.pk}/users").json()["rows"][0]
    assert row == client.get(f"/api/v1/users/{own.pk}").json()
    assert token_client.get("/api/v1/locations/999999/users").json()["message"] == "Location not found"
    assert api_client.get(f"/api/v1/locations/{place.pk}/users").status_code == 401
    for keys in ({"users.view": 1}, {"locations.view": 1}):
        assert make_client(UserFactory(permissions=keys)).get(
            f"/api/v1/locations/{place.pk}/users").status_code == 403


def test_location_users_constant_queries(token_client):
    place = LocationFactory()
    UserFactory(location=place, company=CompanyFactory())
    path = f"/api/v1/locations/{place.pk}/users"
    token_client.get(path)
    with CaptureQueriesContext(connection) as few:
        listed(token_client, path)
    for _ in range(25):
        UserFactory(location=place, company=CompanyFactory())
    with CaptureQueriesContext(connection) as many:
        assert listed(token_client, path)[1] == 26
    assert len(many.captured_queries) == len(few.captured_queries)
