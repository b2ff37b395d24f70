"""``PATCH /hardware/bulk`` and ``POST /hardware/audit/bulk`` through HTTP (API-CONTRACT.md §12, Snipe-IT PR #19271):
the request judged once, each row by the single operation, one result per asset, and nothing written on a refusal."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from activity.models import ActionLog
from inventory.models import Asset
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

BULK = "/api/v1/hardware/bulk"
AUDIT = "/api/v1/hardware/audit/bulk"
UNKNOWN_CUSTOM_FIELD = "This field does not seem to exist, please double check your custom field names."


def patch(client, body, **kwargs):
    return client.patch(BULK, body, format="json", **kwargs)


def audit(client, body, **kwargs):
    return client.post(AUDIT, body, format="json", **kwargs)


def logs(action_type: str) -> list[ActionLog]:
    return list(ActionLog.objects.filter(item_type="asset", action_type=action_type).order_by("id"))


def names(*assets) -> list[str]:
    return [Asset.objects.get(pk=asset.pk).name for asset in assets]


@pytest.fixture
def http_mode(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}


# --- bulk update: success, partial, error -----------------------------------------------------------------------------


class TestBulkUpdate:
    def test_every_row_succeeds_with_the_single_update_answer(self, token_client):
        a, b = AssetFactory(name="old"), AssetFactory(name="old")
        response = patch(token_client, {"ids": [a.pk, b.pk], "name": "Shelf 3", "notes": "moved"})
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "success"
        assert body["message"] == body["messages"] == "2 assets were updated successfully."
        assert body["payload"] == {"total": 2, "success": 2, "error": 0}
        assert [row["id"] for row in body["results"]] == [a.pk, b.pk]
        assert names(a, b) == ["Shelf 3", "Shelf 3"]
        single = token_client.patch(f"/api/v1/hardware/{a.pk}", {"notes": "moved"}, format="json").json()
        row = body["results"][0]
        assert row["status"] == "success" and row["messages"] == single["messages"] == "Asset updated successfully."
        assert set(row["payload"]) == set(single["payload"])
        record = token_client.get(f"/api/v1/hardware/{a.pk}").json()
        assert {key: row["payload"][key] for key in record if key != "updated_at"} == \
            {key: value for key, value in record.items() if key != "updated_at"}
        assert row["payload"]["model_id"] == a.model_id and row["payload"]["status_id"] == a.status_id

    def test_one_asset_uses_the_single_text_and_put_is_partial_too(self, token_client):
        a = AssetFactory(name="old", serial="S-1")
        response = token_client.put(BULK, {"ids": [a.pk], "name": "new"}, format="json")
        body = response.json()
        assert body["status"] == "success" and body["messages"] == "Asset updated successfully."
        a.refresh_from_db()
        assert (a.name, a.serial) == ("new", "S-1")

    def test_catalogue_keys_dates_and_flags(self, token_client):
        a, b = AssetFactory(), AssetFactory()
        status, model = StatusLabelFactory(), AssetModelFactory()
        place, supplier, company = LocationFactory(), SupplierFactory(), CompanyFactory()
        response = patch(token_client, {
            "ids": [a.pk, b.pk], "status_id": status.pk, "model_id": model.pk, "rtd_location_id": place.pk,
            "supplier_id": supplier.pk, "company_id": company.pk, "purchase_date": "2024-02-29",
            "purchase_cost": "12.50", "requestable": "true", "next_audit_date": "2027-01-31",
        })
        assert response.json()["status"] == "success", response.json()
        for asset in (a, b):
            asset.refresh_from_db()
            assert (asset.status_id, asset.model_id, asset.rtd_location_id, asset.location_id) == \
                (status.pk, model.pk, place.pk, place.pk)  # a new default location moves an asset that is in
            assert (asset.supplier_id, asset.company_id, asset.purchase_date, asset.requestable) == \
                (supplier.pk, company.pk, dt.date(2024, 2, 29), True)
            assert str(asset.purchase_cost) == "12.50" and asset.next_audit_date == dt.date(2027, 1, 31)

    def test_partial_when_some_rows_fail(self, token_client, site_settings):
        site_settings.unique_serial = True
        site_settings.save()
        a, b, c = AssetFactory(serial="A"), AssetFactory(serial="B"), AssetFactory(serial="C")
        response = patch(token_client, {"ids": [a.pk, b.pk, 987654, c.pk], "serial": "SAME"})
        body = response.json()
        assert response.status_code == 200 and body["status"] == "partial"
        assert body["message"] == "1 asset(s) updated successfully, 3 failed. See the results array for details."
        assert body["payload"] == {"total": 4, "success": 1, "error": 3}
        assert [(row["id"], row["status"]) for row in body["results"]] == \
            [(a.pk, "success"), (b.pk, "error"), (987654, "error"), (c.pk, "error")]
        assert body["results"][1] == {"id": b.pk, "status": "error",
                                      "messages": {"serial": ["The serial must be unique."]}, "payload": None}
        assert body["results"][2]["messages"] == "Asset does not exist."
        assert list(Asset.objects.order_by("pk").values_list("serial", flat=True)) == ["SAME", "B", "C"]

    @pytest.mark.parametrize("mode", ["compat", "http"])
    def test_error_when_no_row_succeeds_is_200_in_both_modes(self, token_client, settings, mode):
        settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": mode}
        gone = AssetFactory(deleted_at=timezone.now(), name="old")
        response = patch(token_client, {"ids": [gone.pk, 424242], "name": "new"})
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "error"
        assert body["message"] == "No assets were updated. See the results array for details."
        assert body["payload"] == {"total": 2, "success": 0, "error": 2}
        assert [row["messages"] for row in body["results"]] == ["Asset does not exist."] * 2
        assert names(gone) == ["old"]

    def test_duplicates_count_once_and_string_ids_answer_integers(self, token_client):
        a, b = AssetFactory(), AssetFactory()
        body = patch(token_client, {"ids": [str(b.pk), a.pk, b.pk, f" {a.pk} "], "name": "x"}).json()
        assert [row["id"] for row in body["results"]] == [b.pk, a.pk]
        assert body["payload"]["total"] == 2
        assert len(logs("update")) == 2

    def test_ids_as_repeated_form_values(self, token_client):
        a, b = AssetFactory(), AssetFactory()
        response = token_client.patch(BULK, f"ids[]={a.pk}&ids[]={b.pk}&name=formed",
                                      content_type="application/x-www-form-urlencoded")
        assert response.json()["status"] == "success"
        assert names(a, b) == ["formed", "formed"]

    def test_ids_in_the_query_string(self, token_client):
        a, b = AssetFactory(), AssetFactory()
        response = token_client.patch(f"{BULK}?ids[]={a.pk}&ids[]={b.pk}", {"name": "queried"}, format="json")
        assert response.json()["payload"] == {"total": 2, "success": 2, "error": 0}
        assert names(a, b) == ["queried", "queried"]

    def test_action_log_one_row_per_changed_asset(self, token_client):
        same, other = AssetFactory(name="kept"), AssetFactory(name="old")
        body = patch(token_client, {"ids": [same.pk, other.pk], "name": "kept"}).json()
        assert body["status"] == "success"  # a row that changes nothing still succeeds
        rows = logs("update")
        assert [(log.item_id, log.log_meta) for log in rows] == [(other.pk, {"name": {"old": "old", "new": "kept"}})]

    def test_a_checked_out_asset_keeps_its_assignment(self, token_client):
        holder = UserFactory()
        asset = checked_out_asset(holder)
        body = patch(token_client, {"ids": [asset.pk], "notes": "n"}).json()
        assert body["status"] == "success"
        asset.refresh_from_db()
        assert asset.assigned_user_id == holder.pk and asset.notes == "n"
        assert body["results"][0]["payload"]["assigned_to"]["id"] == holder.pk


# --- bulk update: request-level refusals ------------------------------------------------------------------------------


class TestBulkUpdateRefused:
    @pytest.mark.parametrize("body", [{"name": "x"}, {}])
    def test_ids_missing(self, token_client, body):
        body = patch(token_client, body).json()
        assert body["status"] == "error" and body["message"] == "The ids field is required."
        assert body["messages"] == {"ids": ["The ids field is required."]} and body["results"] == []

    @pytest.mark.parametrize("ids", [[0], [-1], [1.5], ["abc"], [None], None, [], "1", 7, {"1": 1}, [True],
                                     [[1]], ["1.0"], ["-3"], [2**63], [1, "x"]])
    def test_ids_not_a_list_of_asset_ids(self, token_client, ids):
        asset = AssetFactory(name="old")
        body = patch(token_client, {"ids": ids, "name": "new"}).json()
        assert body["status"] == "error" and body["message"] == "The ids field must be a list of asset ids."
        assert body["messages"] == {"ids": ["The ids field must be a list of asset ids."]}
        assert body["results"] == [] and body["payload"] is None
        assert names(asset) == ["old"]

    def test_more_ids_than_max_results(self, token_client, settings):
        settings.ASSETSVC = {**settings.ASSETSVC, "MAX_RESULTS": 2}
        a, b, c = AssetFactory(name="old"), AssetFactory(name="old"), AssetFactory(name="old")
        body = patch(token_client, {"ids": [a.pk, b.pk, c.pk], "name": "new"}).json()
        assert body["message"] == "The ids field must not have more than 2 items."
        assert body["messages"] == {"ids": ["The ids field must not have more than 2 items."]}
        assert body["results"] == []
        assert names(a, b, c) == ["old"] * 3
        # repeats count once: two distinct ids are within the limit
        assert patch(token_client, {"ids": [a.pk, b.pk, a.pk], "name": "new"}).json()["status"] == "success"

    @pytest.mark.parametrize(("key", "value", "message"), [
        ("status_id", 999999, "The selected status id is invalid."),
        ("model_id", 999999, "The selected model id is invalid."),
        ("location_id", 999999, "The selected location id is invalid."),
        ("rtd_location_id", 999999, "The selected rtd location id is invalid."),
        ("company_id", 999999, "The selected company id is invalid."),
        ("supplier_id", 999999, "The selected supplier id is invalid."),
        ("purchase_date", "2024-02-30", "The purchase date is not a valid date."),
        ("next_audit_date", "tomorrow", "The next audit date does not match the format YYYY-MM-DD."),
        ("warranty_months", "many", "The warranty months must be an integer."),
    ])
    def test_a_shared_value_wrong_for_every_asset(self, token_client, key, value, message):
        a, b = AssetFactory(name="old"), AssetFactory(name="old")
        body = patch(token_client, {"ids": [a.pk, b.pk, a.pk], key: value, "name": "new"}).json()
        assert body["status"] == "error" and body["payload"] is None
        assert body["messages"][key][0].startswith(message.rstrip(".")), body["messages"]
        assert body["results"] == [{"id": pk, "status": "error", "messages": body["messages"], "payload": None}
                                   for pk in (a.pk, b.pk)]
        assert names(a, b) == ["old", "old"]
        assert not logs("update")

    @pytest.mark.parametrize("key", ["asset_tag", "assigned_user", "assigned_asset", "assigned_location",
                                     "assigned_to", "assigned_type"])
    def test_forbidden_keys(self, token_client, key):
        asset = AssetFactory(name="old")
        body = patch(token_client, {"ids": [asset.pk], key: 1, "name": "new"}).json()
        text = f"The {key} field cannot be used in a bulk update."
        assert body["status"] == "error" and body["message"] == text
        assert body["messages"] == {key: [text]}
        assert body["results"] == [{"id": asset.pk, "status": "error", "messages": {key: [text]}, "payload": None}]
        assert names(asset) == ["old"]

    def test_unknown_custom_field_column(self, token_client):
        asset = AssetFactory(name="old")
        body = patch(token_client, {"ids": [asset.pk], "_snipeit_ram_1": "16GB", "name": "new"}).json()
        assert body["messages"] == {"_snipeit_ram_1": [UNKNOWN_CUSTOM_FIELD]}
        assert body["results"][0]["messages"] == body["messages"]
        assert names(asset) == ["old"]

    def test_every_error_of_the_request_at_once(self, token_client):
        asset = AssetFactory()
        body = patch(token_client, {"ids": [asset.pk], "status_id": 999999, "asset_tag": "X",
                                    "_snipeit_x": "1"}).json()
        assert set(body["messages"]) == {"status_id", "asset_tag", "_snipeit_x"}

    @pytest.mark.parametrize("extra", [{}, {"unknown_key": "x"}, {"ids_extra": 1}])
    def test_nothing_to_change(self, token_client, extra):
        a, b = AssetFactory(), AssetFactory()
        body = patch(token_client, {"ids": [a.pk, b.pk], **extra}).json()
        text = "No fields were selected, so nothing was updated."
        assert body["status"] == "error" and body["message"] == body["messages"] == text
        assert body["results"] == [{"id": pk, "status": "error", "messages": text, "payload": None}
                                   for pk in (a.pk, b.pk)]

    def test_http_mode_answers_422_for_request_refusals(self, token_client, http_mode):
        asset = AssetFactory(name="old")
        assert patch(token_client, {"name": "new"}).status_code == 422
        assert patch(token_client, {"ids": [0], "name": "new"}).status_code == 422
        response = patch(token_client, {"ids": [asset.pk], "status_id": 999999})
        assert response.status_code == 422 and len(response.json()["results"]) == 1
        assert patch(token_client, {"ids": [asset.pk]}).status_code == 422
        assert names(asset) == ["old"]

    def test_invalid_json_and_a_list_body(self, token_client):
        response = token_client.generic("PATCH", BULK, '{"ids": [1', content_type="application/json")
        assert response.status_code == 422 and response.json()["message"] == "Invalid JSON"
        body = patch(token_client, [1, 2]).json()
        assert body["status"] == "error"


# --- routes and permissions -------------------------------------------------------------------------------------------


class TestRoutesAndPermissions:
    def test_bulk_is_never_an_asset_id_and_the_legacy_audit_keeps_its_meaning(self, token_client):
        asset = AssetFactory(asset_tag="bulk")
        assert token_client.get(BULK).status_code == 405
        assert token_client.get("/api/v1/hardware/bytag/bulk").json()["id"] == asset.pk
        body = token_client.post("/api/v1/hardware/audit", {"asset_tag": "bulk"}, format="json").json()
        assert body["status"] == "success" and body["payload"]["id"] == asset.pk
        assert token_client.post("/api/v1/hardware/audit/bulk/", {"ids": [asset.pk]},
                                 format="json").json()["status"] == "success"

    def test_edit_permission_is_needed_for_bulk_update(self, make_client):
        asset = AssetFactory(name="old")
        for permissions in ({}, {"assets.view": 1, "assets.audit": 1}):
            response = patch(make_client(UserFactory(permissions=permissions)), {"ids": [asset.pk], "name": "n"})
            assert response.status_code == 403
            assert response.json()["message"] == "Insufficient permissions."
        assert names(asset) == ["old"]
        allowed = make_client(UserFactory(permissions={"assets.edit": 1}))
        assert patch(allowed, {"ids": [asset.pk], "name": "n"}).json()["status"] == "success"

    def test_audit_permission_is_needed_for_bulk_audit(self, make_client):
        asset = AssetFactory()
        response = audit(make_client(UserFactory(permissions={"assets.edit": 1})), {"ids": [asset.pk]})
        assert response.status_code == 403
        asset.refresh_from_db()
        assert asset.last_audit_date is None and not logs("audit")
        allowed = make_client(UserFactory(permissions={"assets.audit": 1}))
        assert audit(allowed, {"ids": [asset.pk]}).json()["status"] == "success"

    def test_anonymous_is_refused(self, api_client):
        assert api_client.patch(BULK, {"ids": [1], "name": "x"}, format="json").status_code == 401


class TestCompanySeparation:
    def test_another_companys_asset_does_not_exist(self, make_client, fmcs_on):
        mine, theirs = CompanyFactory(), CompanyFactory()
        client = make_client(UserFactory(company=mine, permissions={"assets.edit": 1, "assets.audit": 1}))
        own, foreign = AssetFactory(company=mine, name="old"), AssetFactory(company=theirs, name="old")
        body = patch(client, {"ids": [foreign.pk, own.pk], "name": "new"}).json()
        assert body["status"] == "partial"
        assert body["results"][0] == {"id": foreign.pk, "status": "error", "messages": "Asset does not exist.",
                                      "payload": None}
        assert names(foreign, own) == ["old", "new"]
        body = audit(client, {"ids": [foreign.pk, own.pk]}).json()
        assert [row["status"] for row in body["results"]] == ["error", "success"]
        foreign.refresh_from_db()
        assert foreign.last_audit_date is None

    def test_company_id_of_a_company_user_is_their_own(self, make_client, fmcs_on):
        mine, theirs = CompanyFactory(), CompanyFactory()
        client = make_client(UserFactory(company=mine, permissions={"assets.edit": 1}))
        own = AssetFactory(company=mine)
        body = patch(client, {"ids": [own.pk], "company_id": theirs.pk, "name": "n"}).json()
        assert body["status"] == "success"
        own.refresh_from_db()
        assert own.company_id == mine.pk


# --- bulk audit -------------------------------------------------------------------------------------------------------


class TestBulkAudit:
    def test_every_row_is_audited_with_the_single_audit_payload(self, token_client):
        place = LocationFactory()
        a, b = AssetFactory(), AssetFactory()
        body = audit(token_client, {"ids": [a.pk, str(b.pk)], "note": "RFID sweep", "next_audit_date": "2027-06-01",
                                    "location_id": place.pk}).json()
        assert body["status"] == "success"
        assert body["message"] == "2 assets were audited successfully."
        assert body["payload"] == {"total": 2, "success": 2, "error": 0}
        assert body["results"][0] == {
            "id": a.pk, "status": "success", "messages": "Asset audit successfully logged.",
            "payload": {"id": a.pk, "asset_tag": a.asset_tag, "note": "RFID sweep", "next_audit_date": "2027-06-01",
                        "custom_fields": {}},
        }
        for asset in (a, b):
            asset.refresh_from_db()
            assert asset.last_audit_date is not None and asset.next_audit_date == dt.date(2027, 6, 1)
            assert asset.location_id == place.pk
        assert [(log.item_id, log.note) for log in logs("audit")] == [(a.pk, "RFID sweep"), (b.pk, "RFID sweep")]

    def test_one_asset_and_the_default_next_date(self, token_client):
        asset = AssetFactory()
        body = audit(token_client, {"ids": [asset.pk]}).json()
        assert body["message"] == "Asset audit successfully logged."
        asset.refresh_from_db()
        assert asset.next_audit_date > timezone.localdate()

    def test_partial_and_error(self, token_client, http_mode):
        asset, gone = AssetFactory(), AssetFactory(deleted_at=timezone.now())
        response = audit(token_client, {"ids": [asset.pk, gone.pk]})
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "partial"
        assert body["message"] == "1 asset(s) audited successfully, 1 failed. See the results array for details."
        response = audit(token_client, {"ids": [gone.pk]})
        assert response.status_code == 200
        assert response.json()["message"] == "No assets were audited. See the results array for details."
        gone.refresh_from_db()
        assert gone.last_audit_date is None
        assert len(logs("audit")) == 1

    @pytest.mark.parametrize(("body", "key"), [
        ({"next_audit_date": "2027-13-01"}, "next_audit_date"),
        ({"location_id": 999999}, "location_id"),
        ({"_snipeit_seen_2": "yes"}, "_snipeit_seen_2"),
    ])
    def test_a_shared_value_wrong_for_every_asset(self, token_client, body, key):
        asset = AssetFactory()
        answer = audit(token_client, {"ids": [asset.pk], **body}).json()
        assert answer["status"] == "error" and key in answer["messages"]
        assert answer["results"] == [{"id": asset.pk, "status": "error", "messages": answer["messages"],
                                      "payload": None}]
        asset.refresh_from_db()
        assert asset.last_audit_date is None and not logs("audit")

    @pytest.mark.parametrize(("ids", "message"), [
        (None, "The ids field must be a list of asset ids."),
        ([], "The ids field must be a list of asset ids."),
        (["abc"], "The ids field must be a list of asset ids."),
    ])
    def test_bad_ids(self, token_client, ids, message):
        answer = audit(token_client, {"ids": ids}).json()
        assert answer["message"] == message and answer["results"] == []
        answer = audit(token_client, {"note": "x"}).json()
        assert answer["message"] == "The ids field is required."


# --- speed ------------------------------------------------------------------------------------------------------------


def _count(client, url, body) -> int:
    """The statements of one request, without the savepoints the test's own transaction turns each row's
    transaction into (in production those are one BEGIN and COMMIT each)."""
    with CaptureQueriesContext(connection) as ctx:
        answer = client.generic("PATCH" if url == BULK else "POST", url, json.dumps(body),
                                content_type="application/json")
    assert answer.json()["status"] == "success", answer.json()
    return sum(1 for query in ctx.captured_queries if not query["sql"].startswith(("SAVEPOINT", "RELEASE")))


@pytest.mark.parametrize("url", [BULK, AUDIT])
def test_queries_grow_linearly_with_a_small_constant_per_row(token_client, url):
    """The batch's assets are read in one query and each row costs only its own lock, write and log (3 statements):
    no query per catalogue record (status, model, location) per row, and the answer's records are one query."""
    company, place, status = CompanyFactory(), LocationFactory(), StatusLabelFactory()
    assets = [checked_out_asset(UserFactory(), company=company) if n % 2 else AssetFactory(company=company)
              for n in range(50)]
    change = {"status_id": status.pk, "rtd_location_id": place.pk, "notes": "batch"} if url == BULK else \
        {"note": "seen", "location_id": place.pk}
    five = _count(token_client, url, {"ids": [a.pk for a in assets[:5]], **change})
    change = {**change, "notes": "again"} if url == BULK else change
    fifty = _count(token_client, url, {"ids": [a.pk for a in assets], **change})
    assert five <= 10 + 3 * 5, five  # the token, the catalogue records once, the batch, the records
    assert fifty - five <= 3 * 45, (five, fifty)
    if url == BULK:  # issue 25: the bulk update is set-based, a fixed number of statements for any batch (the
        assert fifty <= five, (five, fifty)  # first request also reads the site settings once for the process)
