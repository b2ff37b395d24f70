"""Literal paths win over detail routes, as in Snipe-IT (issue 27): ``hardware/selectlist``, ``users/selectlist``,
``companies/selectlist``, ``models/assets`` and ``hardware/labels`` (the label PDFs,
tests/inventory/assets/test_api_label_pdfs.py) are never read as ids, nor is ``POST users/two_factor_reset``
(issue 30)."""

from __future__ import annotations

import pytest

from accounts.api.twofactor import RESET_DONE
from activity.models import ActionLog
from tests.factories import AssetFactory, AssetModelFactory, CompanyFactory, StatusLabelFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db

SELECTLIST_KEYS = {"results", "pagination", "total_count", "page", "page_count"}


def selectlist(client, path, **params):
    response = client.get(path, params)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == SELECTLIST_KEYS, body
    return {row["id"]: row["text"] for row in body["results"]}, body["total_count"]


# --- select lists ---------------------------------------------------------------------------------------------------


def test_hardware_selectlist_texts_skip_archived_and_deleted(token_client):
    holder = UserFactory(first_name="Ada", last_name="Lovelace")
    model = AssetModelFactory(name="ThinkPad")
    out = checked_out_asset(holder, name="Laptop", asset_tag="T-1", model=model)
    pending = AssetFactory(name="Spare", asset_tag="T-2", model=model, status=StatusLabelFactory(type="pending"))
    AssetFactory(name="Old", status=StatusLabelFactory(type="archived"))
    AssetFactory(name="Gone", deleted_at="2024-01-01T00:00:00Z")
    rows, total = selectlist(token_client, "/api/v1/hardware/selectlist")
    assert total == 2
    assert rows == {out.pk: "Laptop (T-1) - ThinkPad → Ada Lovelace", pending.pk: "Spare (T-2) - ThinkPad(pending)"}
    assert selectlist(token_client, "/api/v1/hardware/selectlist", search="lovelace")[0] == {
        out.pk: rows[out.pk]}
    ready = AssetFactory(name="Ready")
    assert selectlist(token_client, "/api/v1/hardware/selectlist", assetStatusType="RTD")[0] == {
        ready.pk: f"Ready ({ready.asset_tag}) - {ready.model.name}"}


def test_users_selectlist_text_and_search(token_client, superuser):
    user = UserFactory(first_name="Grace", last_name="Hopper", username="ghopper", employee_num="42")
    UserFactory(first_name="Gone", deleted_at="2024-01-01T00:00:00Z")
    rows, total = selectlist(token_client, "/api/v1/users/selectlist")
    assert total == 2 and rows[user.pk] == "Hopper, Grace (ghopper) - #42"
    assert selectlist(token_client, "/api/v1/users/selectlist", search="GHOP")[0] == {user.pk: rows[user.pk]}


def test_companies_selectlist(token_client):
    acme, _ = CompanyFactory(name="Acme"), CompanyFactory(name="Globex")
    rows, total = selectlist(token_client, "/api/v1/companies/selectlist")
    assert total == 2 and rows[acme.pk] == "Acme"
    assert selectlist(token_client, "/api/v1/companies/selectlist", search="acm")[0] == {acme.pk: "Acme"}


@pytest.mark.parametrize("path,key", [("/api/v1/hardware/selectlist", "assets.view"),
                                      ("/api/v1/users/selectlist", "users.view"),
                                      ("/api/v1/companies/selectlist", "companies.view")])
def test_selectlist_permissions(path, key, api_client, make_client):
    assert api_client.get(path).status_code == 401
    for keys in ({key: 1}, {"assets.create": 1}):
        assert make_client(UserFactory(permissions=keys)).get(path).status_code == 200
    response = make_client(UserFactory(permissions={"licenses.view": 1})).get(path)
    assert response.status_code == 403 and response.json()["message"] == "Insufficient permissions."


def test_selectlists_respect_company_separation(make_client, fmcs_on):
    mine, theirs = CompanyFactory(name="Mine"), CompanyFactory(name="Theirs")
    client = make_client(UserFactory(company=mine, first_name="Me", permissions={
        "assets.view": 1, "users.view": 1, "companies.view": 1}))
    my_asset, their_asset = AssetFactory(company=mine), AssetFactory(company=theirs)
    their_user = UserFactory(company=theirs)
    hardware, total = selectlist(client, "/api/v1/hardware/selectlist")
    assert set(hardware) == {my_asset.pk} and total == 1 and their_asset.pk not in hardware
    users, total = selectlist(client, "/api/v1/users/selectlist")
    assert their_user.pk not in users and total == len(users)
    assert selectlist(client, "/api/v1/companies/selectlist") == ({mine.pk: "Mine"}, 1)
    assert selectlist(client, "/api/v1/hardware/selectlist", companyId=theirs.pk) == ({}, 0)


def test_numeric_detail_routes_still_work(token_client):
    asset, user, company = AssetFactory(), UserFactory(), CompanyFactory()
    assert token_client.get(f"/api/v1/hardware/{asset.pk}").json()["id"] == asset.pk
    assert token_client.get(f"/api/v1/users/{user.pk}").json()["id"] == user.pk
    assert token_client.get(f"/api/v1/companies/{company.pk}").json()["id"] == company.pk


# --- users/two_factor_reset (issue 30; tests/accounts/test_two_factor_api.py) ----------------------------------------


@pytest.mark.parametrize("path", ["/api/v1/users/two_factor_reset", "/api/v1/users/two_factor_reset/"])
def test_two_factor_reset_is_not_read_as_a_user_id(path, token_client, api_client):
    user = UserFactory()
    logs = ActionLog.objects.count()
    response = token_client.post(path, {"id": user.pk}, format="json")
    assert response.status_code == 200 and response.json() == {"message": RESET_DONE}
    assert ActionLog.objects.count() == logs + 1
    assert api_client.post(path).status_code == 401


def test_the_schemas_examples_say_what_the_routes_answer():
    from assetsvc.api.examples import RECORDED_ANSWERS

    assert RECORDED_ANSWERS["users_two_factor_reset"] == {"message": RESET_DONE}
