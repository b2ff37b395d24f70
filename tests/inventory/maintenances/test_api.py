"""``/maintenances`` on the shared API test mixins (``tests/api_mixins.py``): CRUD, permissions, query budget; company
separation through ``SCOPED_RESOURCES``. Below them: bad input writes nothing, the computed
``asset_maintenance_time``, the asset keys Snipe-IT checks, an asset of another company as ``asset_id``, filters,
the hardware record's ``in_maintenance``, the history, and the supplier delete guard. A maintenance has a ``title``;
the mixins' ``name`` is its alias (docs/decisions.md)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from activity.models import ActionLog
from inventory.api.maintenances.views import MAINTENANCE_SORTS, MaintenanceViewSet
from inventory.models import Maintenance
from inventory.services.maintenances import ASSET_INVALID, COMPLETION_BEFORE_START, NOT_FOUND
from tests.api_mixins import MISSING, CrudAPITests, PermissionTests, QueryBudgetTests, error_of, http_errors
from tests.factories import AssetFactory, CompanyFactory, SupplierFactory, UserFactory
from tests.factories.maintenances import MaintenanceFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/maintenances"
DAY = datetime.date(2026, 3, 2)


def ok(response) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == 200 and body["status"] == "success", body
    return body


def state() -> tuple[Any, ...]:
    return (list(Maintenance.objects.order_by("pk").values()),
            list(ActionLog.objects.order_by("pk").values_list("pk", flat=True)))


class TestMaintenancesAPI(CrudAPITests, PermissionTests, QueryBudgetTests):
    url = URL
    viewset = MaintenanceViewSet
    section = "maintenances"
    model = Maintenance
    factory = MaintenanceFactory
    item_type = "maintenance"
    scoped = True
    soft_deletes = True
    name_filter = False  # Snipe-IT filters maintenances by asset, supplier, creator and type, not by title
    record_keys = {"asset", "model", "status_label", "company", "title", "location", "rtd_location", "notes",
                   "supplier", "cost", "asset_maintenance_type", "start_date", "asset_maintenance_time",
                   "completion_date", "user_id", "created_by", "is_warranty"}

    not_found_message = NOT_FOUND
    created_message = "Asset Maintenance created successfully."
    updated_message = "Asset Maintenance edited successfully."
    delete_message = "The asset maintenance was deleted successfully."

    def make(self, **kwargs) -> Maintenance:
        if "name" in kwargs:
            kwargs["title"] = kwargs.pop("name")
        return MaintenanceFactory(**kwargs)

    def create_payload(self) -> dict[str, Any]:
        return {"asset_id": AssetFactory().pk, "supplier_id": SupplierFactory().pk, "asset_maintenance_type": "Repair",
                "title": "Screen replaced", "start_date": "2026-03-02"}

    # --- the mixins' name-based checks, on the title --------------------------------------------------------------

    def test_create_answers_the_full_record_and_logs(self, token_client, superuser):
        payload = self.create_payload()
        body = ok(token_client.post(URL, payload, format="json"))
        assert body["messages"] == self.created_message
        record = body["payload"]
        obj = Maintenance.objects.get(pk=record["id"])
        assert obj.title == record["title"] == record["name"] == "Screen replaced"
        assert (record["asset_id"], record["supplier_id"]) == (payload["asset_id"], payload["supplier_id"])
        assert record["asset"]["id"] == payload["asset_id"] and record["asset_maintenance_type"] == "Repair"
        assert record["start_date"] == "2026-03-02" and record["completion_date"] is None
        assert record["asset_maintenance_time"] is None and record["is_warranty"] is False
        assert record["created_by"] == record["user_id"] == {"id": superuser.pk, "name": superuser.full_name}
        assert record == {**token_client.get(self.detail(obj)).json(), **{k: v for k, v in record.items()
                                                                          if k.endswith("_id") and k != "user_id"}}
        log = ActionLog.objects.get(item_type="maintenance", item_id=obj.pk)
        assert (log.action_type, log.created_by, log.target_type, log.target_id) == (
            "create", superuser, "asset", payload["asset_id"])

    def test_create_from_query_string_and_form_body(self, token_client):
        payload = self.create_payload()
        ok(token_client.post(URL + "?" + "&".join(f"{k}={v}" for k, v in payload.items())))
        form = {**self.create_payload(), "title": "From a form"}
        ok(token_client.post(URL, form))
        assert set(Maintenance.objects.values_list("title", flat=True)) == {"Screen replaced", "From a form"}

    @pytest.mark.parametrize("method", ["put", "patch"])
    def test_update_is_partial_for_put_and_patch(self, token_client, method):
        obj = self.make(title="Before", notes="keep me")
        body = ok(getattr(token_client, method)(self.detail(obj), {"title": "After"}, format="json"))
        assert body["messages"] == self.updated_message and body["payload"]["title"] == "After"
        obj.refresh_from_db()
        assert obj.title == "After" and obj.notes == "keep me"
        log = ActionLog.objects.get(item_type="maintenance", item_id=obj.pk, action_type="update")
        assert log.log_meta == {"title": {"old": "Before", "new": "After"}}
        ok(token_client.patch(self.detail(obj), {"name": "By its alias"}, format="json"))
        obj.refresh_from_db()
        assert obj.title == "By its alias"


# --- bad input --------------------------------------------------------------------------------------------------


def test_create_without_anything_names_every_required_field(token_client):
    before = state()
    messages = error_of(token_client.post(URL, {}, format="json"))
    assert messages == {"asset_id": ["The asset id field is required."],
                        "asset_maintenance_type": ["The asset maintenance type field is required."],
                        "title": ["The title field is required."],
                        "start_date": ["The start date field is required."]}
    assert state() == before


@pytest.mark.parametrize(("field", "value", "message"), [
    ("asset_id", MISSING, ASSET_INVALID),
    ("asset_id", "abc", ASSET_INVALID),
    ("supplier_id", MISSING, "The selected supplier id is invalid."),
    ("asset_maintenance_type", "Polishing", "The selected asset maintenance type is invalid."),
    ("asset_maintenance_type", ["Repair"], "The selected asset maintenance type is invalid."),
    ("title", "x" * 101, "The title may not be greater than 100 characters."),
    ("title", "", "The title field is required."),
    ("start_date", "03/02/2026", "The start date does not match the format YYYY-MM-DD."),
    ("start_date", "2026-02-30", "The start date is not a valid date."),
    ("completion_date", "2026-03-01", COMPLETION_BEFORE_START),
    ("cost", "-1", "The cost must be at least 0."),
    ("cost", "lots", "The cost must be a number."),
    ("is_warranty", "perhaps", "The is warranty field must be true or false."),
])
def test_bad_input_is_refused_and_nothing_is_written(token_client, field, value, message):
    payload = {"asset_id": AssetFactory().pk, "asset_maintenance_type": "Repair", "title": "Fan",
               "start_date": "2026-03-02", field: value}
    before = state()
    assert error_of(token_client.post(URL, payload, format="json"), field) == [message]
    assert state() == before
    obj = MaintenanceFactory(start_date=DAY)
    before = state()
    assert error_of(token_client.patch(f"{URL}/{obj.pk}", {field: value}, format="json"), field) == [message]
    assert state() == before


def test_a_deleted_asset_cannot_be_maintained(token_client, settings):
    asset = AssetFactory(deleted_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    payload = {"asset_id": asset.pk, "asset_maintenance_type": "Repair", "title": "Fan", "start_date": "2026-03-02"}
    before = state()
    assert error_of(token_client.post(URL, payload, format="json"), "asset_id") == [ASSET_INVALID]
    http_errors(settings)
    assert token_client.post(URL, payload, format="json").status_code == 422
    assert state() == before


def test_a_maintenance_of_a_deleted_asset_is_listed_but_not_changed(token_client, superuser):
    obj = MaintenanceFactory()
    token_client.delete(f"/api/v1/hardware/{obj.asset_id}")
    row = token_client.get(URL).json()["rows"][0]
    assert row["id"] == obj.pk and row["asset"]["deleted_at"] and row["available_actions"]["update"] is False
    before = state()
    body = token_client.patch(f"{URL}/{obj.pk}", {"title": "No"}, format="json").json()
    assert body["status"] == "error"
    assert body["message"] == f"Asset ID {obj.asset_id} does not exist or has been deleted"
    assert state() == before


# --- the computed time ------------------------------------------------------------------------------------------


def test_asset_maintenance_time_follows_the_dates(token_client):
    payload = {"asset_id": AssetFactory().pk, "asset_maintenance_type": "upgrade", "title": "RAM",
               "start_date": "2026-03-02", "completion_date": "2026-03-09", "cost": "1,250.5", "is_warranty": "1"}
    record = ok(token_client.post(URL, payload, format="json"))["payload"]
    assert record["asset_maintenance_time"] == 7 and record["asset_maintenance_type"] == "Upgrade"
    assert record["cost"] == "1250.50" and record["is_warranty"] is True
    path = f"{URL}/{record['id']}"
    assert ok(token_client.patch(path, {"start_date": "2026-03-08"}, format="json"))["payload"][
        "asset_maintenance_time"] == 1
    assert ok(token_client.patch(path, {"completion_date": ""}, format="json"))["payload"][
        "asset_maintenance_time"] is None
    assert ok(token_client.patch(path, {"completion_date": "2026-03-08"}, format="json"))["payload"][
        "asset_maintenance_time"] == 0
    log = ActionLog.objects.filter(item_type="maintenance", action_type="update").order_by("pk").last()
    assert log.log_meta["asset_maintenance_time"] == {"old": None, "new": 0}


# --- permissions: the asset keys Snipe-IT checks ----------------------------------------------------------------


def test_asset_keys_grant_what_snipe_it_grants(make_client):
    obj = MaintenanceFactory()
    viewer = make_client(UserFactory(permissions={"assets.view": 1}))
    assert viewer.get(URL).json()["total"] == 1
    assert viewer.get(f"{URL}/{obj.pk}/history").status_code == 200
    assert viewer.patch(f"{URL}/{obj.pk}", {"title": "No"}, format="json").status_code == 403
    assert viewer.get(URL).json()["rows"][0]["available_actions"] == {"update": False, "delete": False}
    editor = make_client(UserFactory(permissions={"assets.edit": 1}))
    payload = {"asset_id": AssetFactory().pk, "asset_maintenance_type": "Repair", "title": "Fan",
               "start_date": "2026-03-02"}
    created = ok(editor.post(URL, payload, format="json"))["payload"]
    ok(editor.patch(f"{URL}/{created['id']}", {"title": "Fan replaced"}, format="json"))
    ok(editor.delete(f"{URL}/{created['id']}"))
    assert editor.get(URL).status_code == 403  # assets.edit alone does not read, as in Snipe-IT
    assert make_client(UserFactory(permissions={"assets.delete": 1, "assets.checkout": 1})).get(URL).status_code == 403


# --- company separation of the asset -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["compat", "http"])
def test_another_companys_asset_is_as_unknown_as_a_missing_one(make_client, fmcs_on, settings, mode):
    if mode == "http":
        http_errors(settings)
    mine, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=mine, permissions={"maintenances.create": 1, "maintenances.edit": 1}))
    own = MaintenanceFactory(company=mine)
    other_asset = AssetFactory(company=theirs)
    body = {"asset_maintenance_type": "Repair", "title": "Fan", "start_date": "2026-03-02"}
    before = state()
    for method, path, data in (("post", URL, body), ("patch", f"{URL}/{own.pk}", {})):
        theirs_answer = getattr(client, method)(path, {**data, "asset_id": other_asset.pk}, format="json")
        missing_answer = getattr(client, method)(path, {**data, "asset_id": MISSING}, format="json")
        assert theirs_answer.status_code == missing_answer.status_code
        assert theirs_answer.json() == missing_answer.json()
        assert theirs_answer.json()["messages"] == {"asset_id": [ASSET_INVALID]}
    assert state() == before
    ok(client.post(URL, {**body, "asset_id": AssetFactory(company=mine).pk}, format="json"))


def test_the_record_shows_the_assets_company(token_client, company):
    obj = MaintenanceFactory(company=company)
    assert token_client.get(f"{URL}/{obj.pk}").json()["company"] == {"id": company.pk, "name": company.name}


# --- filters and sorts ----------------------------------------------------------------------------------------


def test_filters(token_client):
    asset, supplier = AssetFactory(), SupplierFactory()
    first = MaintenanceFactory(asset=asset, asset_maintenance_type="Repair")
    second = MaintenanceFactory(asset=asset, supplier=supplier, asset_maintenance_type="Upgrade",
                                completion_date=datetime.date.today())
    other = MaintenanceFactory(asset_maintenance_type="Repair")

    def ids(**params) -> set[int]:
        return {row["id"] for row in token_client.get(URL, params).json()["rows"]}

    assert ids(asset_id=asset.pk) == {first.pk, second.pk}
    assert ids(supplier_id=supplier.pk) == {second.pk}
    assert ids(asset_maintenance_type="repair") == {first.pk, other.pk}
    assert ids(completed="false") == {first.pk, other.pk} and ids(completed="true") == {second.pk}
    assert ids(asset_id="abc") == set()
    assert ids(search=asset.asset_tag) == {first.pk, second.pk}
    assert ids(search=supplier.name) == {second.pk}
    tags = [row["asset"]["asset_tag"] for row in token_client.get(URL, {"sort": "asset_tag", "order": "asc"}).json()[
        "rows"]]
    assert tags == sorted(tags)


# --- the asset record ---------------------------------------------------------------------------------------------


def test_the_hardware_record_says_whether_a_maintenance_is_in_progress(token_client):
    asset, idle = AssetFactory(), AssetFactory()
    MaintenanceFactory(asset=idle, completion_date=datetime.date.today())  # done
    MaintenanceFactory(asset=idle, start_date=datetime.date.today() + datetime.timedelta(days=30))  # not started
    hardware = f"/api/v1/hardware/{asset.pk}"
    assert token_client.get(hardware).json()["in_maintenance"] is False
    created = ok(token_client.post(URL, {"asset_id": asset.pk, "asset_maintenance_type": "Repair", "title": "Fan",
                                         "start_date": "2026-03-02"}, format="json"))["payload"]
    assert token_client.get(hardware).json()["in_maintenance"] is True
    rows = {row["id"]: row["in_maintenance"] for row in token_client.get("/api/v1/hardware").json()["rows"]}
    assert rows == {asset.pk: True, idle.pk: False}
    assert ok(token_client.patch(hardware, {"notes": "x"}, format="json"))["payload"]["in_maintenance"] is True
    ok(token_client.patch(f"{URL}/{created['id']}", {"completion_date": "2026-03-04"}, format="json"))
    assert token_client.get(hardware).json()["in_maintenance"] is False
    reopened = MaintenanceFactory(asset=asset)
    assert token_client.get(hardware).json()["in_maintenance"] is True
    ok(token_client.delete(f"{URL}/{reopened.pk}"))
    assert token_client.get(hardware).json()["in_maintenance"] is False


# --- history ------------------------------------------------------------------------------------------------------


def test_history_lists_the_maintenances_log_rows(token_client, superuser):
    record = ok(token_client.post(URL, {"asset_id": AssetFactory().pk, "asset_maintenance_type": "Repair",
                                        "title": "Fan", "start_date": "2026-03-02"}, format="json"))["payload"]
    path = f"{URL}/{record['id']}"
    ok(token_client.patch(path, {"completion_date": "2026-03-03"}, format="json"))
    body = token_client.get(f"{path}/history").json()
    assert body["total"] == 2
    assert [row["action_type"] for row in body["rows"]] == ["update", "create new"]
    assert body["rows"][0]["item"] == {"id": record["id"], "name": "Fan", "type": "maintenance", "serial": None}
    assert body["rows"][0]["target"]["id"] == record["asset"]["id"]
    assert body["rows"][0]["log_meta"]["completion_date"] == {"old": None, "new": "2026-03-03"}
    asset_history = token_client.get(f"/api/v1/hardware/{record['asset']['id']}/history").json()
    assert {row["item"]["type"] for row in asset_history["rows"]} == {"maintenance"}
    assert token_client.get(f"{URL}/{MISSING}/history").json()["message"] == NOT_FOUND
    ok(token_client.delete(path))
    assert [row["action_type"] for row in token_client.get(f"{path}/history").json()["rows"]] == [
        "delete", "update", "create new"]
    assert token_client.get(path).json()["message"] == NOT_FOUND


@pytest.mark.parametrize("key", sorted(MAINTENANCE_SORTS))
def test_every_sort_key(token_client, key):
    MaintenanceFactory(title="Bravo", cost=2, completion_date=datetime.date.today())
    MaintenanceFactory(title="Alpha", cost=1, created_by=UserFactory())
    for order in ("asc", "desc"):
        body = token_client.get(URL, {"sort": key, "order": order}).json()
        assert body["total"] == 2 and len(body["rows"]) == 2
    if key in ("title", "name", "cost"):
        assert [row["title"] for row in token_client.get(URL, {"sort": key, "order": "asc"}).json()["rows"]] == [
            "Alpha", "Bravo"]


def test_history_of_another_companys_maintenance_is_not_found(make_client, fmcs_on):
    mine = CompanyFactory()
    client = make_client(UserFactory(company=mine, permissions={"maintenances.view": 1}))
    theirs = MaintenanceFactory(company=CompanyFactory())
    assert client.get(f"{URL}/{theirs.pk}/history").json() == client.get(f"{URL}/{MISSING}/history").json()
    assert client.get(f"{URL}/{MaintenanceFactory(company=mine).pk}/history").status_code == 200


# --- the supplier ------------------------------------------------------------------------------------------------


def test_a_supplier_of_a_maintenance_cannot_be_deleted(token_client):
    obj = MaintenanceFactory()
    body = token_client.delete(f"/api/v1/suppliers/{obj.supplier_id}").json()
    assert body["status"] == "error" and "1 asset maintenance(s)" in body["message"]
    assert Maintenance.objects.filter(pk=obj.pk, supplier=obj.supplier_id).exists()
