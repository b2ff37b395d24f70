"""Checkout requests through Snipe-IT's ``/account`` routes: what may be requested, asking, cancelling, the caller's
list, company separation, and the administrator's fulfilment in the admin."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory.choices import StatusType
from inventory.models import Asset, CheckoutRequest
from tests.factories import AssetFactory, CompanyFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db

REQUESTER = {"assets.view.requestable": "1"}


@pytest.fixture
def requester(db):
    return UserFactory(permissions=REQUESTER)


@pytest.fixture
def client(make_client, requester):
    return make_client(requester)


def requestable(**kwargs) -> Asset:
    return AssetFactory(requestable=True, **kwargs)


def test_requestable_lists_only_what_may_be_requested(client, requester):
    wanted = requestable(asset_tag="REQ-1", name="Loaner laptop")
    pending = requestable(asset_tag="REQ-2", status=StatusLabelFactory(type=StatusType.PENDING))
    AssetFactory(asset_tag="NOPE-1")  # not requestable
    requestable(asset_tag="NOPE-2", status=StatusLabelFactory(type=StatusType.ARCHIVED))
    requestable(asset_tag="NOPE-3", status=StatusLabelFactory(type=StatusType.UNDEPLOYABLE))
    deleted = requestable(asset_tag="NOPE-4")
    Asset.objects.filter(pk=deleted.pk).update(deleted_at="2026-01-01T00:00:00Z")

    body = client.get("/api/v1/account/requestable/hardware?sort=asset_tag&order=asc").json()

    assert body["total"] == 2
    assert [row["asset_tag"] for row in body["rows"]] == ["REQ-1", "REQ-2"]
    row = body["rows"][0]
    assert row["id"] == wanted.pk and row["name"] == "Loaner laptop" and row["model"] == wanted.model.name
    assert row["status"] == "deployable" and row["assigned_to_self"] is False
    assert row["custom_fields"] == {} and row["available_actions"] == {"cancel": False, "request": True}
    assert body["rows"][1]["id"] == pending.pk


def test_request_then_cancel(client, requester):
    asset = requestable()

    body = client.post(f"/api/v1/account/request/{asset.pk}").json()
    assert body == {"status": "success", "messages": "Request successfully submitted.", "payload": None}
    request = CheckoutRequest.objects.get()
    assert (request.asset, request.user, request.is_open) == (asset, requester, True)
    asset.refresh_from_db()
    assert asset.requests_counter == 1
    assert ActionLog.objects.filter(action_type="requested", item_id=asset.pk, target_id=requester.pk).count() == 1

    # asking twice keeps one open request
    assert client.post(f"/api/v1/account/request/{asset.pk}").json()["status"] == "success"
    assert CheckoutRequest.objects.count() == 1

    listed = client.get("/api/v1/account/requestable/hardware").json()["rows"][0]
    assert listed["available_actions"] == {"cancel": True, "request": False}
    mine = client.get("/api/v1/account/requests").json()
    assert mine["total"] == 1 and mine["rows"][0]["type"] == "asset" and mine["rows"][0]["qty"] == 1

    body = client.post(f"/api/v1/account/request/{asset.pk}/cancel").json()
    assert body["status"] == "success" and body["messages"] == "Request successfully canceled."
    request.refresh_from_db()
    assert request.canceled_at is not None
    asset.refresh_from_db()
    assert asset.requests_counter == 0
    assert client.get("/api/v1/account/requests").json() == {"total": 0, "rows": []}
    assert ActionLog.objects.filter(action_type="request canceled", item_id=asset.pk).count() == 1

    again = client.post(f"/api/v1/account/request/{asset.pk}/cancel").json()
    assert again["status"] == "error" and again["messages"] == "You have not requested this asset."


def test_an_asset_that_is_not_requestable_is_refused_and_nothing_is_written(client):
    asset = AssetFactory(requestable=False)
    body = client.post(f"/api/v1/account/request/{asset.pk}").json()
    assert body["status"] == "error" and body["messages"] == "Asset is not requestable"
    assert not CheckoutRequest.objects.exists() and not ActionLog.objects.filter(action_type="requested").exists()


@pytest.mark.parametrize("asset_id", ["999999", "abc", "1.5", "-1"])
def test_unknown_asset_is_not_found(client, asset_id):
    body = client.post(f"/api/v1/account/request/{asset_id}").json()
    assert body["status"] == "error" and body["messages"] == "Asset does not exist."


def test_permissions(make_client, api_client):
    asset = requestable()
    assert api_client.get("/api/v1/account/requestable/hardware").status_code == 401
    assert api_client.post(f"/api/v1/account/request/{asset.pk}").status_code == 401
    nobody = make_client(UserFactory())
    assert nobody.get("/api/v1/account/requestable/hardware").status_code == 403
    assert nobody.post(f"/api/v1/account/request/{asset.pk}").status_code == 403
    assert nobody.post(f"/api/v1/account/request/{asset.pk}/cancel").status_code == 403
    assert not CheckoutRequest.objects.exists()
    # one's own (empty) list needs no permission
    assert nobody.get("/api/v1/account/requests").json() == {"total": 0, "rows": []}


def test_another_companys_asset_is_neither_listed_nor_requestable(fmcs_on, make_client):
    mine, theirs = CompanyFactory(), CompanyFactory()
    requester = UserFactory(company=mine, permissions=REQUESTER)
    client = make_client(requester)
    own = requestable(company=mine)
    other = requestable(company=theirs)

    body = client.get("/api/v1/account/requestable/hardware").json()
    assert [row["id"] for row in body["rows"]] == [own.pk] and body["total"] == 1
    refused = client.post(f"/api/v1/account/request/{other.pk}").json()
    missing = client.post("/api/v1/account/request/999999").json()
    assert refused == missing
    assert not CheckoutRequest.objects.exists()


def test_requestable_list_runs_a_constant_number_of_queries(client, requester):
    for _ in range(3):
        client.post(f"/api/v1/account/request/{requestable().pk}")
    with CaptureQueriesContext(connection) as few:
        assert client.get("/api/v1/account/requestable/hardware").json()["total"] == 3
    for _ in range(12):
        client.post(f"/api/v1/account/request/{requestable().pk}")
    with CaptureQueriesContext(connection) as many:
        assert client.get("/api/v1/account/requestable/hardware").json()["total"] == 15
    assert len(many) == len(few)
    with CaptureQueriesContext(connection) as mine_many:
        assert client.get("/api/v1/account/requests").json()["total"] == 15
    assert len(mine_many) <= len(few)


def test_my_requests_lists_model_requests_as_snipe_it_does(client, requester):
    from inventory.services import requests as services
    from tests.factories import AssetModelFactory

    asset = requestable(asset_tag="REQ-7")
    model = AssetModelFactory(name="Docking station", requestable=True)
    services.request_create(asset_id=asset.pk, actor=requester)
    services.model_request_create(model_id=model.pk, actor=requester, note="USB-C please")
    closed = services.model_request_create(model_id=AssetModelFactory(requestable=True).pk, actor=requester)
    services.request_decline(request=closed, actor=requester)

    body = client.get("/api/v1/account/requests").json()

    assert body["total"] == 2
    rows = {row["type"]: row for row in body["rows"]}
    assert set(rows) == {"asset", "asset_model"}
    assert rows["asset_model"]["name"] == "Docking station" and rows["asset_model"]["qty"] == 1
    assert rows["asset_model"]["location"] is None and rows["asset_model"]["expected_checkin"] is None
    assert rows["asset_model"]["request_date"]
