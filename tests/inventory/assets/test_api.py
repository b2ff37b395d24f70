"""Hardware API end to end through HTTP: the issue's "done when" flow, records, lists, lookups, delete/restore."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.choices import StatusType
from inventory.models import Asset
from inventory.services.assets import add_months
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    SupplierFactory,
    UserFactory,
)
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"


@pytest.fixture
def deployable():
    return StatusLabelFactory(name="Ready", type=StatusType.DEPLOYABLE)


@pytest.fixture
def model():
    return AssetModelFactory(name="MacBook Pro 14", model_number="A2442")


def logs(asset, action_type=None):
    queryset = ActionLog.objects.filter(item_type="asset", item_id=asset.pk)
    if action_type:
        queryset = queryset.filter(action_type=action_type)
    return list(queryset.order_by("id"))


class TestDoneWhenFlow:
    """Prerequisites made with factories; ``test_done_when_flow_through_catalogue_endpoints`` makes them through the
    catalogue endpoints."""

    def test_full_lifecycle(self, token_client, deployable, model, site_settings):
        hq = LocationFactory(name="HQ")
        desk = LocationFactory(name="Desk 4")
        alice = UserFactory(username="alice", first_name="Alice", last_name="Smith", location=desk)

        # create
        resp = token_client.post(URL, {"asset_tag": "LAP-001", "model_id": model.pk, "status_id": deployable.pk,
                                       "name": "Alice laptop", "serial": "C02XYZ", "purchase_cost": 1234.5,
                                       "purchase_date": "2024-01-15", "warranty_months": 36,
                                       "rtd_location_id": hq.pk, "order_number": "PO-7", "notes": "14 inch"},
                                 format="json")
        assert resp.status_code == 200, resp.content
        body = resp.json()
        assert body["status"] == "success"
        assert body["messages"] == "Asset created successfully. :)"
        payload = body["payload"]
        asset_id = payload["id"]
        assert payload["asset_tag"] == "LAP-001"
        assert payload["purchase_cost"] == "1234.50"
        assert payload["warranty_months"] == 36
        assert payload["purchase_date"] == "2024-01-15"
        assert payload["model"] == {"id": model.pk, "name": "MacBook Pro 14"}
        assert payload["location"] == {"id": hq.pk, "name": "HQ"}
        assert payload["model_id"] == model.pk and payload["status_id"] == deployable.pk
        assert payload["rtd_location_id"] == hq.pk and payload["location_id"] == hq.pk
        asset = Asset.objects.get(pk=asset_id)
        assert [log.action_type for log in logs(asset)] == ["create"]

        # list and read
        rows = token_client.get(URL).json()
        assert rows["total"] == 1 and rows["rows"][0]["id"] == asset_id
        record = token_client.get(f"{URL}/{asset_id}").json()
        assert record["status_label"] == {"id": deployable.pk, "name": "Ready", "status_type": "deployable",
                                          "status_meta": "deployable"}
        assert record["user_can_checkout"] is True
        assert record["custom_fields"] == {}

        # update (PATCH)
        resp = token_client.patch(f"{URL}/{asset_id}", {"name": "Alice's laptop"}, format="json")
        assert resp.json()["messages"] == "Asset updated successfully."
        update_log = logs(asset, "update")[0]
        assert update_log.log_meta == {"name": {"old": "Alice laptop", "new": "Alice's laptop"}}

        # checkout to a user: location follows the user
        resp = token_client.post(f"{URL}/{asset_id}/checkout",
                                 {"assigned_user": alice.pk, "checkout_to_type": "user", "note": "welcome",
                                  "expected_checkin": "2099-01-01"}, format="json")
        assert resp.json() == {"status": "success", "messages": "Asset checked out successfully.",
                               "payload": {"asset": "LAP-001"}}
        asset.refresh_from_db()
        assert asset.assigned_user == alice and asset.location == desk and asset.checkout_counter == 1
        checkout_log = logs(asset, "checkout")[0]
        assert (checkout_log.target_type, checkout_log.target_id, checkout_log.note) == ("user", alice.pk, "welcome")
        assert checkout_log.log_meta["location_id"] == {"old": hq.pk, "new": desk.pk}
        record = token_client.get(f"{URL}/{asset_id}").json()
        assert record["assigned_to"] == {"id": alice.pk, "username": "alice", "name": "Alice Smith",
                                         "first_name": "Alice", "last_name": "Smith", "email": "alice@example.com",
                                         "employee_number": None, "type": "user"}
        assert record["status_label"]["status_meta"] == "deployed"
        assert record["expected_checkin"] == "2099-01-01"

        # a second checkout is refused
        resp = token_client.post(f"{URL}/{asset_id}/checkout", {"assigned_location": hq.pk}, format="json")
        assert resp.json()["status"] == "error"
        assert resp.json()["message"] == "That asset is not available for checkout!"
        assert resp.json()["payload"] == {"asset": "LAP-001"}

        # checkin: back to the default location
        resp = token_client.post(f"{URL}/{asset_id}/checkin", {"note": "returned"}, format="json")
        assert resp.json() == {"status": "success", "messages": "Asset checked in successfully.",
                               "payload": {"asset_tag": "LAP-001", "model": "MacBook Pro 14",
                                           "model_number": "A2442"}}
        asset.refresh_from_db()
        assert asset.assigned_user is None and asset.location == hq and asset.expected_checkin is None
        assert logs(asset, "checkin from")[0].target_id == alice.pk

        # audit
        resp = token_client.post(f"{URL}/{asset_id}/audit", {"note": "seen"}, format="json")
        body = resp.json()
        assert body["messages"] == "Asset audit successfully logged."
        asset.refresh_from_db()
        assert asset.last_audit_date is not None
        today = timezone.localdate()
        assert asset.next_audit_date == add_months(today, 12)
        assert body["payload"] == {"id": asset_id, "asset_tag": "LAP-001", "note": "seen",
                                   "next_audit_date": asset.next_audit_date.isoformat(), "custom_fields": {}}
        assert len(logs(asset, "audit")) == 1

        # history and the activity report
        history = token_client.get(f"{URL}/{asset_id}/history").json()
        assert [row["action_type"] for row in history["rows"]] == [
            "audit", "checkin from", "checkout", "update", "create new"]
        report = token_client.get("/api/v1/reports/activity", {"item_type": "asset", "item_id": asset_id}).json()
        assert report["total"] == 5
        assert report["rows"][2]["target"] == {"id": alice.pk, "name": "Alice Smith", "type": "user"}

        # delete, then restore
        resp = token_client.delete(f"{URL}/{asset_id}")
        assert resp.json() == {"status": "success", "messages": "The asset was deleted successfully.",
                               "payload": None}
        assert token_client.get(URL).json()["total"] == 0
        assert token_client.get(URL, {"status": "Deleted"}).json()["total"] == 1
        assert token_client.get(f"{URL}/{asset_id}").json()["deleted_at"] is not None
        resp = token_client.post(f"{URL}/{asset_id}/restore")
        assert resp.json()["messages"] == "Asset restored successfully."
        asset.refresh_from_db()
        assert asset.deleted_at is None
        assert [log.action_type for log in logs(asset)][-2:] == ["delete", "restore"]


def test_done_when_flow_through_catalogue_endpoints(token_client):
    """The issue's flow with every prerequisite made through the API, as an operator would."""
    api = "/api/v1"

    def made(path, payload):
        body = token_client.post(f"{api}/{path}", payload, format="json").json()
        assert body["status"] == "success", body
        return body["payload"]["id"]

    status_id = made("statuslabels", {"name": "Ready to Deploy", "type": "deployable"})
    category_id = made("categories", {"name": "Laptops", "category_type": "asset"})
    manufacturer_id = made("manufacturers", {"name": "Apple"})
    model_id = made("models", {"name": "MacBook Air", "category_id": category_id, "manufacturer_id": manufacturer_id,
                               "model_number": "M2"})
    location_id = made("locations", {"name": "Berlin"})
    holder = UserFactory()

    asset_id = made("hardware", {"asset_tag": "FLOW-1", "model_id": model_id, "status_id": status_id,
                                 "rtd_location_id": location_id})
    record = token_client.get(f"{URL}/{asset_id}").json()
    assert record["manufacturer"] == {"id": manufacturer_id, "name": "Apple"}
    assert record["category"] == {"id": category_id, "name": "Laptops"}
    assert record["model_number"] == "M2"
    assert token_client.patch(f"{URL}/{asset_id}", {"name": "Flow"}, format="json").json()["status"] == "success"
    assert token_client.post(f"{URL}/{asset_id}/checkout", {"assigned_user": holder.pk},
                             format="json").json()["status"] == "success"
    assert token_client.get(f"{URL}/bytag/flow-1").json()["assigned_to"]["id"] == holder.pk
    assert token_client.post(f"{URL}/{asset_id}/checkin", {"location_id": location_id},
                             format="json").json()["status"] == "success"
    assert token_client.post(f"{URL}/{asset_id}/audit", {"next_audit_date": "2030-01-01"},
                             format="json").json()["status"] == "success"
    history = token_client.get(f"{URL}/{asset_id}/history").json()
    assert [row["action_type"] for row in history["rows"]] == [
        "audit", "checkin from", "checkout", "update", "create new"]
    assert token_client.delete(f"{URL}/{asset_id}").json()["status"] == "success"
    assert token_client.get(URL).json()["total"] == 0


class TestRecord:
    def test_record_keys_and_formats(self, token_client, deployable):
        company = CompanyFactory(name="Acme")
        supplier = SupplierFactory(name="Dell")
        asset = AssetFactory(status=deployable, company=company, supplier=supplier, purchase_cost="10.5",
                             purchase_date=dt.date(2024, 1, 31), warranty_months=1, created_by=None)
        record = token_client.get(f"{URL}/{asset.pk}").json()
        for key in ("id", "name", "asset_tag", "serial", "model", "model_number", "status_label", "category",
                    "manufacturer", "supplier", "notes", "order_number", "company", "location", "rtd_location",
                    "assigned_to", "warranty_months", "purchase_date", "purchase_cost", "created_at", "updated_at",
                    "byod", "requestable", "last_audit_date", "next_audit_date", "last_checkout", "last_checkin",
                    "expected_checkin", "deleted_at", "checkin_counter", "checkout_counter", "requests_counter",
                    "user_can_checkout", "custom_fields", "available_actions"):
            assert key in record, key
        assert record["purchase_cost"] == "10.50"
        assert record["warranty_expires"] == "2024-02-29"
        assert record["company"] == {"id": company.pk, "name": "Acme"}
        assert record["supplier"] == {"id": supplier.pk, "name": "Dell"}
        assert record["created_at"].endswith("Z") and "T" in record["created_at"]
        assert record["available_actions"] == {"checkout": True, "checkin": True, "clone": True, "restore": False,
                                               "update": True, "audit": True, "delete": True}

    def test_available_actions_follow_caller_permissions(self, make_client, deployable):
        asset = AssetFactory(status=deployable)
        client = make_client(UserFactory(permissions={"assets.view": 1, "assets.checkout": 1}))
        actions = client.get(f"{URL}/{asset.pk}").json()["available_actions"]
        assert actions == {"checkout": True, "checkin": False, "clone": False, "restore": False, "update": False,
                           "audit": False, "delete": False}

    def test_assigned_to_location_and_asset(self, token_client):
        place = LocationFactory(name="Lab")
        parent = AssetFactory(name="", asset_tag="P-1")
        on_location = checked_out_asset(place)
        on_asset = checked_out_asset(parent)
        assert token_client.get(f"{URL}/{on_location.pk}").json()["assigned_to"] == {
            "id": place.pk, "name": "Lab", "type": "location"}
        assert token_client.get(f"{URL}/{on_asset.pk}").json()["assigned_to"] == {
            "id": parent.pk, "name": parent.model.name, "asset_tag": "P-1", "type": "asset"}


class TestLookups:
    def test_bytag_is_case_insensitive_and_may_contain_slashes(self, token_client):
        asset = AssetFactory(asset_tag="IT/2024/7")
        resp = token_client.get(f"{URL}/bytag/it/2024/7")
        assert resp.json()["id"] == asset.pk

    def test_bytag_unknown(self, token_client):
        resp = token_client.get(f"{URL}/bytag/NOPE")
        assert resp.status_code == 200
        assert resp.json()["message"] == "Asset does not exist."

    def test_byserial_list_envelope(self, token_client):
        asset = AssetFactory(serial="SN/1")
        assert token_client.get(f"{URL}/byserial/sn/1").json() == {
            "total": 1, "rows": [token_client.get(f"{URL}/{asset.pk}").json()]}
        assert token_client.get(f"{URL}/byserial/none").json() == {"total": 0, "rows": []}

    def test_retrieve_unknown_and_non_numeric(self, token_client):
        for path in ("999999", "abc", "99999999999999999999999"):
            resp = token_client.get(f"{URL}/{path}")
            assert resp.status_code == 200
            assert resp.json()["message"] == "Asset does not exist."

    def test_trailing_slash(self, token_client):
        asset = AssetFactory()
        assert token_client.get(f"{URL}/{asset.pk}/").json()["id"] == asset.pk


class TestListFilters:
    def test_status_values(self, token_client):
        ready = StatusLabelFactory(type=StatusType.DEPLOYABLE)
        pending = StatusLabelFactory(type=StatusType.PENDING)
        broken = StatusLabelFactory(type=StatusType.UNDEPLOYABLE)
        archived = StatusLabelFactory(type=StatusType.ARCHIVED)
        rtd = AssetFactory(status=ready, requestable=True)
        deployed = checked_out_asset(UserFactory(), status=ready)
        pend = AssetFactory(status=pending)
        undeployable = AssetFactory(status=broken)
        arch = AssetFactory(status=archived)
        gone = AssetFactory(status=ready, deleted_at=timezone.now())

        def ids(**params):
            return {row["id"] for row in token_client.get(URL, params).json()["rows"]}

        assert ids() == {rtd.pk, deployed.pk, pend.pk, undeployable.pk}
        assert ids(status="RTD") == {rtd.pk}
        assert ids(status="Deployed") == {deployed.pk}
        assert ids(status="Pending") == {pend.pk}
        assert ids(status="Undeployable") == {undeployable.pk}
        assert ids(status="Archived") == {arch.pk}
        assert ids(status="Requestable") == {rtd.pk}
        assert ids(status="Deleted") == {gone.pk}
        assert ids(status_id=archived.pk) == {arch.pk}

    def test_show_archived_in_list(self, token_client, site_settings):
        arch = AssetFactory(status=StatusLabelFactory(type=StatusType.ARCHIVED))
        site_settings.show_archived_in_list = True
        site_settings.save()
        assert token_client.get(URL).json()["rows"][0]["id"] == arch.pk

    def test_fk_filters_search_and_sort(self, token_client):
        mac = AssetModelFactory(name="Mac")
        place = LocationFactory(name="Paris")
        company = CompanyFactory()
        a = AssetFactory(model=mac, name="zeta", location=place, company=company)
        b = AssetFactory(name="alpha")

        def ids(**params):
            return [row["id"] for row in token_client.get(URL, params).json()["rows"]]

        assert ids(model_id=mac.pk) == [a.pk]
        assert ids(category_id=mac.category_id) == [a.pk]
        assert ids(manufacturer_id=f"{mac.manufacturer_id},999") == [a.pk]
        assert ids(location_id=place.pk) == [a.pk]
        assert ids(company_id=company.pk) == [a.pk]
        assert ids(model_id="abc") == []
        assert ids(search="PARIS") == [a.pk]
        assert ids(search="alpha OR zeta", sort="name", order="asc") == [b.pk, a.pk]
        assert ids(sort="name", order="desc") == [a.pk, b.pk]
        assert set(ids(sort="id;DROP TABLE inventory_asset")) == {a.pk, b.pk}
        assert Asset.objects.count() == 2

    def test_limit_offset_garbage(self, token_client):
        AssetFactory.create_batch(3)
        for params, count in (({"limit": -2}, 2), ({"limit": "abc"}, 3), ({"limit": 10**30}, 3),
                              ({"offset": -5}, 3), ({"offset": 10**30}, 0), ({"offset": "x"}, 3)):
            body = token_client.get(URL, params).json()
            assert body["total"] == 3 and len(body["rows"]) == count, params


class TestUpcoming:
    def test_audits_due_and_overdue(self, token_client, site_settings):
        today = timezone.localdate()
        due = AssetFactory(next_audit_date=today + dt.timedelta(days=3))
        overdue = AssetFactory(next_audit_date=today - dt.timedelta(days=1))
        AssetFactory(next_audit_date=today + dt.timedelta(days=60))
        AssetFactory(next_audit_date=None)

        def ids(path):
            body = token_client.get(f"{URL}/{path}").json()
            return {row["id"] for row in body["rows"]}

        assert ids("audits/due") == {due.pk}
        assert ids("audit/due") == {due.pk}
        assert ids("audits/overdue") == {overdue.pk}
        assert ids("audit/overdue") == {overdue.pk}
        assert ids("audits/due-or-overdue") == {due.pk, overdue.pk}

    def test_checkins_due_and_overdue(self, token_client):
        today = timezone.localdate()
        due = checked_out_asset(UserFactory(), expected_checkin=today + dt.timedelta(days=2))
        late = checked_out_asset(UserFactory(), expected_checkin=today - dt.timedelta(days=2))
        AssetFactory(expected_checkin=today)  # not checked out: never due

        def ids(path):
            return {row["id"] for row in token_client.get(f"{URL}/{path}").json()["rows"]}

        assert ids("checkins/due") == {due.pk}
        assert ids("checkins/overdue") == {late.pk}
        assert ids("checkins/due-or-overdue") == {due.pk, late.pk}


class TestDeleteRestore:
    def test_delete_checked_out_asset_checks_in_first(self, token_client):
        holder = UserFactory()
        asset = checked_out_asset(holder)
        resp = token_client.delete(f"{URL}/{asset.pk}")
        assert resp.json()["status"] == "success"
        asset.refresh_from_db()
        assert asset.deleted_at is not None and asset.assigned_user is None
        assert [log.action_type for log in logs(asset)] == ["checkin from", "delete"]
        assert logs(asset)[0].note == "Checkin on delete"

    def test_delete_unknown_or_deleted(self, token_client):
        asset = AssetFactory(deleted_at=timezone.now())
        assert token_client.delete(f"{URL}/{asset.pk}").json()["message"] == "Asset does not exist."
        assert token_client.delete(f"{URL}/424242").json()["message"] == "Asset does not exist."

    def test_restore_not_deleted_is_refused(self, token_client, settings):
        asset = AssetFactory()
        resp = token_client.post(f"{URL}/{asset.pk}/restore")
        assert resp.status_code == 200
        assert resp.json()["message"] == "The Asset was not deleted and therefore cannot be restored"
        settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
        assert token_client.post(f"{URL}/{asset.pk}/restore").status_code == 409
        assert logs(asset) == []

    def test_restore_when_tag_taken(self, token_client):
        old = AssetFactory(asset_tag="T-1", deleted_at=timezone.now())
        AssetFactory(asset_tag="t-1")
        resp = token_client.post(f"{URL}/{old.pk}/restore")
        assert resp.json()["status"] == "error"
        assert "must be unique" in resp.json()["message"]
        old.refresh_from_db()
        assert old.deleted_at is not None

    def test_restore_needs_delete_permission(self, make_client):
        asset = AssetFactory(deleted_at=timezone.now())
        client = make_client(UserFactory(permissions={"assets.view": 1, "assets.edit": 1}))
        assert client.post(f"{URL}/{asset.pk}/restore").status_code == 403


class TestUpdateWithAssignment:
    def test_update_can_check_out(self, token_client):
        asset = AssetFactory()
        place = LocationFactory()
        resp = token_client.patch(f"{URL}/{asset.pk}", {"name": "moved", "assigned_location": place.pk},
                                  format="json")
        assert resp.json()["payload"]["assigned_to"]["id"] == place.pk
        assert [log.action_type for log in logs(asset)] == ["update", "checkout"]
        assert logs(asset, "checkout")[0].note == "Checked out on asset update"

    def test_update_of_checked_out_asset_with_target_is_refused_whole(self, token_client):
        asset = checked_out_asset(UserFactory(), name="keep")
        resp = token_client.patch(f"{URL}/{asset.pk}", {"name": "changed", "assigned_user": UserFactory().pk},
                                  format="json")
        assert resp.json()["message"] == "That asset is not available for checkout!"
        asset.refresh_from_db()
        assert asset.name == "keep" and logs(asset) == []
