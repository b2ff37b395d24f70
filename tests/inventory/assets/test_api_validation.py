"""Every bad input to the asset writes gets a clear error envelope, never a 500 and never a partial write."""

from __future__ import annotations

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.choices import StatusType
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

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"
BAD_IDS = [999999, "999999", "abc", 1.5, True, [1], {"id": 1}, -1, "1; DROP TABLE inventory_asset",
           "99999999999999999999999"]


def db_state():
    """Everything a refused write must leave untouched."""
    return (
        list(Asset.objects.order_by("id").values()),
        ActionLog.objects.count(),
    )


@pytest.fixture(params=["compat", "http"])
def mode(request, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": request.param}
    return request.param


@pytest.fixture
def base(db):
    model = AssetModelFactory()
    status = StatusLabelFactory(type=StatusType.DEPLOYABLE)
    return {"asset_tag": "NEW-1", "model_id": model.pk, "status_id": status.pk}


def assert_invalid(resp, field: str, mode: str = "compat", message: str | None = None):
    assert resp.status_code == (422 if mode == "http" else 200), resp.content
    body = resp.json()
    assert body["status"] == "error"
    assert body["payload"] is None
    assert isinstance(body["messages"], dict), body
    assert field in body["messages"], body
    assert body["message"]
    if message is not None:
        assert body["messages"][field][0] == message, body


class TestCreateValidation:
    @pytest.mark.parametrize("field", ["model_id", "status_id", "supplier_id", "company_id", "rtd_location_id",
                                       "location_id"])
    @pytest.mark.parametrize("value", BAD_IDS)
    def test_bad_foreign_keys(self, token_client, base, field, value):
        before = db_state()
        resp = token_client.post(URL, {**base, field: value}, format="json")
        assert_invalid(resp, field)
        assert db_state() == before

    @pytest.mark.parametrize("field", ["assigned_user", "assigned_asset", "assigned_location"])
    @pytest.mark.parametrize("value", [999999, "abc", 1.5, [1]])
    def test_bad_assignment_targets(self, token_client, base, field, value):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, field: value}, format="json"), field)
        assert db_state() == before

    def test_wrong_kind_ids(self, token_client, base):
        """An id that exists, but in another table, is as unknown as a missing one."""
        location = LocationFactory()
        model_ids = set(Asset.objects.values_list("model_id", flat=True))
        wrong = location.pk + 10_000  # never a model/status/supplier id in this test database
        before = db_state()
        for field in ("model_id", "status_id", "supplier_id", "rtd_location_id"):
            assert_invalid(token_client.post(URL, {**base, field: wrong}, format="json"), field)
        assert wrong not in model_ids
        assert db_state() == before

    def test_deleted_model_and_missing_required(self, token_client, base, mode):
        gone = AssetModelFactory(deleted_at=timezone.now())
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, "model_id": gone.pk}, format="json"), "model_id", mode,
                       "The selected model id is invalid.")
        assert_invalid(token_client.post(URL, {"asset_tag": "X"}, format="json"), "model_id", mode,
                       "The model id field is required.")
        payload = dict(base)
        payload.pop("status_id")
        assert_invalid(token_client.post(URL, payload, format="json"), "status_id", mode,
                       "The status id field is required.")
        assert db_state() == before

    @pytest.mark.parametrize("tag", [None, "", "   "])
    def test_asset_tag_missing_or_blank(self, token_client, base, tag, mode):
        payload = dict(base)
        if tag is None:
            payload.pop("asset_tag")
        else:
            payload["asset_tag"] = tag
        before = db_state()
        assert_invalid(token_client.post(URL, payload, format="json"), "asset_tag", mode,
                       "The asset tag field is required.")
        assert db_state() == before

    def test_asset_tag_too_long(self, token_client, base):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, "asset_tag": "x" * 256}, format="json"), "asset_tag",
                       message="The asset tag may not be greater than 255 characters.")
        assert db_state() == before
        assert token_client.post(URL, {**base, "asset_tag": "x" * 255}, format="json").json()["status"] == "success"

    def test_asset_tag_duplicate_in_other_case(self, token_client, base, mode):
        AssetFactory(asset_tag="lap-001")
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, "asset_tag": "LAP-001"}, format="json"), "asset_tag", mode,
                       "The asset tag must be unique.")
        assert db_state() == before

    def test_tag_of_deleted_asset_may_be_reused(self, token_client, base):
        AssetFactory(asset_tag="NEW-1", deleted_at=timezone.now())
        assert token_client.post(URL, base, format="json").json()["status"] == "success"

    @pytest.mark.parametrize("field", ["purchase_date", "next_audit_date"])
    @pytest.mark.parametrize("value", ["2023-02-30", "garbage", "2023-13-01", "01/02/2023", 20230101, "0000-00-00"])
    def test_bad_dates(self, token_client, base, field, value):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, field: value}, format="json"), field)
        assert db_state() == before

    @pytest.mark.parametrize("value", [-1, "-0.01", "abc", 1e20, "1e20", "NaN", "Infinity", True, [1]])
    def test_bad_purchase_cost(self, token_client, base, value):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, "purchase_cost": value}, format="json"), "purchase_cost")
        assert db_state() == before

    @pytest.mark.parametrize("value,stored", [(0, "0.00"), ("1,234.5", "1234.50"), (99999999999.99, "99999999999.99"),
                                              ("12.345", "12.35")])
    def test_good_purchase_cost(self, token_client, base, value, stored):
        resp = token_client.post(URL, {**base, "purchase_cost": value}, format="json")
        assert resp.json()["payload"]["purchase_cost"] == stored

    @pytest.mark.parametrize("value", [-1, 1.5, "1.5", 10000, 1201, "abc", True])
    def test_bad_warranty_months(self, token_client, base, value):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, "warranty_months": value}, format="json"), "warranty_months")
        assert db_state() == before

    def test_warranty_months_max(self, token_client, base):
        assert token_client.post(URL, {**base, "warranty_months": 1200}, format="json").json()["status"] == "success"

    @pytest.mark.parametrize("field", ["asset_tag", "name", "serial", "notes", "order_number"])
    def test_nul_bytes_in_body(self, token_client, base, field):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, field: "a\x00b"}, format="json"), field)
        assert db_state() == before

    def test_nul_bytes_in_query_string(self, token_client, base):
        before = db_state()
        resp = token_client.post(f"{URL}?name=a%00b", base, format="json")
        assert resp.json()["status"] == "error"
        assert token_client.get(f"{URL}?search=a%00b").json() == {"total": 0, "rows": []}  # lenient (issue 25)
        assert db_state() == before

    @pytest.mark.parametrize("field,limit", [("name", 255), ("serial", 255), ("order_number", 255)])
    def test_overlong_text(self, token_client, base, field, limit):
        before = db_state()
        assert_invalid(token_client.post(URL, {**base, field: "y" * (limit + 1)}, format="json"), field)
        assert db_state() == before

    def test_body_not_an_object(self, token_client):
        before = db_state()
        resp = token_client.post(URL, "[1, 2]", content_type="application/json")
        assert resp.json()["status"] == "error"
        resp = token_client.post(URL, "{not json", content_type="application/json")
        assert resp.status_code == 422 and resp.json()["message"] == "Invalid JSON"
        assert db_state() == before

    def test_two_assignment_targets(self, token_client, base):
        before = db_state()
        resp = token_client.post(URL, {**base, "assigned_user": UserFactory().pk,
                                       "assigned_location": LocationFactory().pk}, format="json")
        assert_invalid(resp, "assigned_location")
        assert db_state() == before

    def test_assignment_needs_deployable_status(self, token_client, base, mode):
        pending = StatusLabelFactory(type=StatusType.PENDING)
        before = db_state()
        resp = token_client.post(URL, {**base, "status_id": pending.pk, "assigned_user": UserFactory().pk},
                                 format="json")
        assert_invalid(resp, "status_id", mode,
                       "That asset status is not deployable. This asset cannot be checked out.")
        assert db_state() == before

    def test_query_string_input_and_string_ids(self, token_client, base):
        """Real clients post fields in the query string, ids as strings (API-CONTRACT.md §1)."""
        query = "&".join(f"{k}={v}" for k, v in base.items())
        resp = token_client.post(f"{URL}?{query}")
        assert resp.json()["status"] == "success"
        assert Asset.objects.get(asset_tag="NEW-1").model_id == base["model_id"]

    def test_unknown_keys_are_ignored(self, token_client, base):
        resp = token_client.post(URL, {**base, "custom_fields": {"x": 1}, "foo": "bar"}, format="json")
        assert resp.json()["status"] == "success"


class TestCreateWithSettings:
    def test_auto_increment_generates_tags(self, token_client, base, site_settings):
        site_settings.auto_increment_assets = True
        site_settings.auto_increment_prefix = "ACME-"
        site_settings.zerofill_count = 4
        site_settings.next_auto_tag_base = 7
        site_settings.save()
        payload = dict(base)
        payload.pop("asset_tag")
        first = token_client.post(URL, payload, format="json").json()["payload"]["asset_tag"]
        second = token_client.post(URL, payload, format="json").json()["payload"]["asset_tag"]
        assert (first, second) == ("ACME-0007", "ACME-0008")
        # An explicit tag of the same form moves the counter past it.
        token_client.post(URL, {**payload, "asset_tag": "ACME-0100"}, format="json")
        assert token_client.post(URL, payload, format="json").json()["payload"]["asset_tag"] == "ACME-0101"
        site_settings.refresh_from_db()
        assert site_settings.next_auto_tag_base == 102

    def test_auto_increment_skips_taken_tags(self, token_client, base, site_settings):
        site_settings.auto_increment_assets = True
        site_settings.auto_increment_prefix = "X"
        site_settings.zerofill_count = 2
        site_settings.next_auto_tag_base = 1
        site_settings.save()
        AssetFactory(asset_tag="x01")
        payload = dict(base)
        payload.pop("asset_tag")
        assert token_client.post(URL, payload, format="json").json()["payload"]["asset_tag"] == "X02"

    def test_unique_serial(self, token_client, base, site_settings):
        AssetFactory(serial="abc123")
        assert token_client.post(URL, {**base, "serial": "ABC123"}, format="json").json()["status"] == "success"
        site_settings.unique_serial = True
        site_settings.save()
        before = db_state()
        resp = token_client.post(URL, {**base, "asset_tag": "NEW-2", "serial": "Abc123"}, format="json")
        assert_invalid(resp, "serial", message="The serial must be unique.")
        assert db_state() == before

    def test_create_with_assignment_checks_out(self, token_client, base):
        place = LocationFactory()
        resp = token_client.post(URL, {**base, "assigned_location": place.pk}, format="json")
        payload = resp.json()["payload"]
        assert payload["assigned_to"]["type"] == "location"
        asset = Asset.objects.get(pk=payload["id"])
        assert asset.assigned_location == place and asset.location == place
        actions = list(ActionLog.objects.filter(item_id=asset.pk).order_by("id").values_list("action_type", "note"))
        assert actions == [("create", ""), ("checkout", "Checked out on asset creation")]


class TestCompanyRule7:
    def test_non_super_user_gets_own_company(self, make_client, base, fmcs_on):
        mine, theirs = CompanyFactory(), CompanyFactory()
        client = make_client(UserFactory(company=mine, permissions={"assets.create": 1, "assets.view": 1}))
        resp = client.post(URL, {**base, "company_id": theirs.pk}, format="json")
        assert resp.json()["payload"]["company_id"] == mine.pk

    def test_super_user_company_is_used(self, token_client, base, fmcs_on):
        theirs = CompanyFactory()
        resp = token_client.post(URL, {**base, "company_id": theirs.pk}, format="json")
        assert resp.json()["payload"]["company_id"] == theirs.pk

    def test_company_less_user_creates_without_company(self, make_client, base, fmcs_on):
        theirs = CompanyFactory()
        client = make_client(UserFactory(permissions={"assets.create": 1}))
        resp = client.post(URL, {**base, "company_id": theirs.pk}, format="json")
        assert resp.json()["payload"]["company_id"] is None

    def test_separation_off_uses_given_company(self, make_client, base):
        theirs = CompanyFactory()
        client = make_client(UserFactory(company=CompanyFactory(), permissions={"assets.create": 1}))
        assert client.post(URL, {**base, "company_id": theirs.pk}, format="json").json()["payload"]["company_id"] \
            == theirs.pk


class TestUpdateValidation:
    @pytest.mark.parametrize("field", ["asset_tag", "model_id", "status_id"])
    def test_required_fields_cannot_be_emptied(self, token_client, field, mode):
        asset = AssetFactory()
        before = db_state()
        resp = token_client.patch(f"{URL}/{asset.pk}", {field: None}, format="json")
        assert_invalid(resp, field, mode)
        resp = token_client.put(f"{URL}/{asset.pk}", {field: ""}, format="json")
        assert_invalid(resp, field, mode)
        assert db_state() == before

    def test_duplicate_tag_on_update(self, token_client, mode):
        AssetFactory(asset_tag="TAKEN")
        asset = AssetFactory()
        before = db_state()
        assert_invalid(token_client.patch(f"{URL}/{asset.pk}", {"asset_tag": "taken"}, format="json"), "asset_tag",
                       mode, "The asset tag must be unique.")
        assert db_state() == before

    def test_same_tag_other_case_on_itself_is_fine(self, token_client):
        asset = AssetFactory(asset_tag="abc")
        assert token_client.patch(f"{URL}/{asset.pk}", {"asset_tag": "ABC"}, format="json").json()["status"] \
            == "success"

    @pytest.mark.parametrize("payload", [{"purchase_cost": -1}, {"warranty_months": 1.5},
                                         {"purchase_date": "2023-02-30"}, {"supplier_id": 424242},
                                         {"name": "n\x00"}])
    def test_bad_values(self, token_client, payload):
        asset = AssetFactory()
        before = db_state()
        assert_invalid(token_client.patch(f"{URL}/{asset.pk}", payload, format="json"), next(iter(payload)))
        assert db_state() == before

    def test_put_is_partial(self, token_client):
        supplier = SupplierFactory()
        asset = AssetFactory(name="keep", serial="S1")
        resp = token_client.put(f"{URL}/{asset.pk}", {"supplier_id": supplier.pk}, format="json")
        assert resp.json()["payload"]["supplier_id"] == supplier.pk
        asset.refresh_from_db()
        assert (asset.name, asset.serial, asset.supplier) == ("keep", "S1", supplier)

    def test_update_unknown_asset(self, token_client, mode):
        resp = token_client.patch(f"{URL}/424242", {"name": "x"}, format="json")
        assert resp.status_code == (404 if mode == "http" else 200)
        assert resp.json()["message"] == "Asset does not exist."

    def test_nothing_changed_writes_no_log(self, token_client):
        asset = AssetFactory(name="same")
        token_client.patch(f"{URL}/{asset.pk}", {"name": "same"}, format="json")
        assert ActionLog.objects.count() == 0

    def test_rtd_location_moves_asset_that_is_in(self, token_client):
        asset = AssetFactory()
        place = LocationFactory()
        token_client.patch(f"{URL}/{asset.pk}", {"rtd_location_id": place.pk}, format="json")
        asset.refresh_from_db()
        assert asset.rtd_location == place and asset.location == place
