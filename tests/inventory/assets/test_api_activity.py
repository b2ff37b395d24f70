"""``GET /reports/activity`` and ``GET /hardware/{id}/history``: shape, filters, permission, company scoping."""

from __future__ import annotations

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.api.reports import ActivityReportViewSet
from inventory.services import assets as services
from tests.api_mixins import QueryBudgetTests
from tests.factories import AssetFactory, CompanyFactory, LocationFactory, PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/reports/activity"


class TestActivityReportAPI(QueryBudgetTests):
    """The shared list budget (``tests/api_mixins.py``): rows of every target type, each with an actor."""

    url = URL
    viewset = ActivityReportViewSet
    section = "reports"
    model = ActionLog
    item_type = "actionlog"

    def make_listed(self) -> None:
        company = CompanyFactory()
        asset = AssetFactory(company=company)
        for target in (UserFactory(company=company), LocationFactory(), AssetFactory()):
            target_type = {"User": "user", "Location": "location", "Asset": "asset"}[type(target).__name__]
            ActionLog.objects.create(action_type="checkout", item_type="asset", item_id=asset.pk,
                                     target_type=target_type, target_id=target.pk, company=company,
                                     created_by=UserFactory(company=company), action_date=timezone.now())

    def listed_count(self) -> int:
        return ActionLog.objects.count()


@pytest.fixture
def story(superuser):
    """One asset checked out to a user, checked in, checked out to a location and audited."""
    place = LocationFactory(name="Store")
    holder = UserFactory(first_name="Bo", last_name="Lee")
    asset = AssetFactory(asset_tag="ACT-1", name="Printer")
    services.asset_checkout(asset=asset, target=holder, actor=superuser, note="first")
    services.asset_checkin(asset=asset, actor=superuser)
    services.asset_checkout(asset=asset, target=place, actor=superuser)
    services.asset_audit(asset=asset, actor=superuser, note="ok")
    return {"asset": asset, "holder": holder, "place": place}


def test_row_shape(token_client, story, superuser):
    body = token_client.get(URL).json()
    assert body["total"] == 4
    audit, checkout_location, checkin, checkout_user = body["rows"]
    assert audit["action_type"] == "audit" and audit["note"] == "ok"
    assert checkin["action_type"] == "checkin from"
    assert checkout_user["item"] == {"id": story["asset"].pk, "name": "Printer", "type": "asset",
                                     "serial": story["asset"].serial}
    assert checkout_user["target"] == {"id": story["holder"].pk, "name": "Bo Lee", "type": "user"}
    assert checkout_location["target"] == {"id": story["place"].pk, "name": "Store", "type": "location"}
    assert checkout_location["location"] == {"id": story["place"].pk, "name": "Store"}
    assert checkout_user["admin"]["id"] == superuser.pk and checkout_user["created_by"]["id"] == superuser.pk
    assert checkout_user["created_at"].endswith("Z")
    assert checkout_user["log_meta"]["assigned_user_id"] == {"old": None, "new": story["holder"].pk}
    for key in ("id", "icon", "file", "item", "location", "created_at", "updated_at", "next_audit_date",
                "days_to_next_audit", "action_type", "admin", "created_by", "target", "note", "signature_file",
                "log_meta", "remote_ip", "user_agent", "action_source", "action_date"):
        assert key in checkout_user, key


def test_filters(token_client, story):
    def total(**params):
        return token_client.get(URL, params).json()["total"]

    asset, holder, place = story["asset"], story["holder"], story["place"]
    assert total(item_type="asset", item_id=asset.pk) == 4
    assert total(item_type="user", item_id=holder.pk) == 2  # rows where the user is the target
    assert total(target_type="user", target_id=holder.pk) == 2
    assert total(target_type="location", target_id=place.pk) == 1
    assert total(target_type="App\\Models\\Location", target_id=place.pk) == 1
    assert total(action_type="checkout") == 2
    assert total(action_type="checkin from") == 1
    assert total(item_type="asset", item_id="abc") == 0
    assert total(item_type="asset", item_id=-1) == 0
    assert total(sort="id;DROP TABLE inventory_actionlog", order="asc") == 4
    assert total(search="ok") >= 1


def test_request_source_is_recorded(token_client):
    asset = AssetFactory()
    token_client.post(f"/api/v1/hardware/{asset.pk}/audit", HTTP_USER_AGENT="sync-script/1.0")
    row = token_client.get(URL).json()["rows"][0]
    assert row["user_agent"] == "sync-script/1.0" and row["action_source"] == "api" and row["remote_ip"]


@pytest.mark.parametrize("permissions,allowed", [
    ({}, False),
    ({"assets.view": 1}, False),
    ({"reports.view": 1}, True),
    ({"admin": 1}, True),
    ({"reports.view": -1, "admin": 1}, True),
])
def test_permission(make_client, permissions, allowed):
    client = make_client(UserFactory(permissions=permissions))
    resp = client.get(URL)
    assert resp.status_code == (200 if allowed else 403)


def test_permission_from_group(make_client):
    user = UserFactory()
    user.groups.add(PermissionGroupFactory(permissions={"reports.view": 1}))
    assert make_client(user).get(URL).status_code == 200


def test_anonymous(api_client):
    assert api_client.get(URL).status_code == 401


def test_scoped_by_log_company_under_separation(make_client, superuser, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    asset_mine = AssetFactory(company=mine)
    asset_theirs = AssetFactory(company=theirs)
    services.asset_checkout(asset=asset_mine, target=UserFactory(company=mine), actor=superuser)
    services.asset_checkout(asset=asset_theirs, target=UserFactory(company=theirs), actor=superuser)
    reporter = make_client(UserFactory(company=mine, permissions={"reports.view": 1, "assets.view": 1}))
    body = reporter.get(URL).json()
    assert body["total"] == 1 and body["rows"][0]["item"]["id"] == asset_mine.pk
    assert reporter.get(URL, {"item_type": "asset", "item_id": asset_theirs.pk}).json()["total"] == 0
    # The other company's asset history is not found at all.
    resp = reporter.get(f"/api/v1/hardware/{asset_theirs.pk}/history")
    assert resp.json()["message"] == "Asset does not exist."


def test_history(token_client, story):
    body = token_client.get(f"/api/v1/hardware/{story['asset'].pk}/history").json()
    assert body["total"] == 4
    assert [row["action_type"] for row in body["rows"]] == ["audit", "checkout", "checkin from", "checkout"]
    assert token_client.get("/api/v1/hardware/424242/history").json()["message"] == "Asset does not exist."


def test_history_needs_view(make_client, story):
    client = make_client(UserFactory(permissions={"assets.checkout": 1}))
    assert client.get(f"/api/v1/hardware/{story['asset'].pk}/history").status_code == 403
