"""Checkout, checkin and audit through HTTP, including every refusal (each must change nothing)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.choices import StatusType
from inventory.models import Asset
from tests.factories import AssetFactory, CompanyFactory, LocationFactory, StatusLabelFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"


def db_state():
    return list(Asset.objects.order_by("id").values()), ActionLog.objects.count()


@pytest.fixture(params=["compat", "http"])
def mode(request, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": request.param}
    return request.param


def expect(resp, mode: str, kind: str):
    codes = {"invalid": 422, "conflict": 409, "not_found": 404}
    assert resp.status_code == (codes[kind] if mode == "http" else 200), resp.content
    body = resp.json()
    assert body["status"] == "error"
    return body


class TestCheckoutRefusals:
    def test_no_target(self, token_client, mode):
        asset = AssetFactory()
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkout", {"note": "x"}, format="json"), mode,
                      "invalid")
        assert set(body["messages"]) == {"assigned_user", "assigned_asset", "assigned_location"}
        assert db_state() == before

    def test_two_targets(self, token_client, mode):
        asset, other = AssetFactory(), AssetFactory()
        user = UserFactory()
        before = db_state()
        resp = token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": user.pk, "assigned_asset": other.pk},
                                 format="json")
        expect(resp, mode, "invalid")
        assert db_state() == before

    def test_type_must_agree(self, token_client, mode):
        asset = AssetFactory()
        before = db_state()
        resp = token_client.post(f"{URL}/{asset.pk}/checkout",
                                 {"assigned_user": UserFactory().pk, "checkout_to_type": "location"}, format="json")
        assert "checkout_to_type" in expect(resp, mode, "invalid")["messages"]
        resp = token_client.post(f"{URL}/{asset.pk}/checkout",
                                 {"assigned_user": UserFactory().pk, "checkout_to_type": "robot"}, format="json")
        assert "checkout_to_type" in expect(resp, mode, "invalid")["messages"]
        assert db_state() == before

    @pytest.mark.parametrize("make_target", [
        lambda: {"assigned_user": UserFactory(deleted_at=timezone.now()).pk},
        lambda: {"assigned_user": UserFactory(is_active=False).pk},
        lambda: {"assigned_user": 424242},
        lambda: {"assigned_asset": AssetFactory(deleted_at=timezone.now()).pk},
        lambda: {"assigned_asset": 424242},
        lambda: {"assigned_location": 424242},
    ], ids=["deleted-user", "deactivated-user", "unknown-user", "deleted-asset", "unknown-asset", "unknown-location"])
    def test_invalid_targets(self, token_client, mode, make_target):
        asset = AssetFactory(asset_tag="T-1")
        payload = make_target()
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkout", payload, format="json"), mode, "invalid")
        kind = next(iter(payload)).removeprefix("assigned_")
        assert body["message"] == f"Checkout target for asset T-1 is invalid - {kind} does not exist."
        assert body["payload"]["target_type"] == kind
        assert db_state() == before

    @pytest.mark.parametrize("value", ["abc", 1.5, [1], True])
    def test_malformed_target_ids(self, token_client, value):
        asset = AssetFactory()
        before = db_state()
        body = token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": value}, format="json").json()
        assert body["status"] == "error" and "assigned_user" in body["messages"]
        assert db_state() == before

    def test_to_itself(self, token_client, mode):
        asset = AssetFactory()
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_asset": asset.pk}, format="json"),
                      mode, "invalid")
        assert body["message"] == "An asset cannot be checked out to itself."
        assert db_state() == before

    def test_to_an_asset_checked_out_to_it(self, token_client, mode):
        laptop = AssetFactory(asset_tag="LAPTOP")
        dock = checked_out_asset(laptop, asset_tag="DOCK")
        before = db_state()
        body = expect(token_client.post(f"{URL}/{laptop.pk}/checkout", {"assigned_asset": dock.pk}, format="json"),
                      mode, "invalid")
        assert "checked out to it" in body["message"]
        assert db_state() == before

    def test_to_an_asset_checked_out_to_it_transitively(self, token_client):
        a = AssetFactory()
        b = checked_out_asset(a)
        c = checked_out_asset(b)
        before = db_state()
        body = token_client.post(f"{URL}/{a.pk}/checkout", {"assigned_asset": c.pk}, format="json").json()
        assert body["status"] == "error" and "checked out to it" in body["message"]
        assert db_state() == before

    def test_already_checked_out(self, token_client, mode):
        asset = checked_out_asset(UserFactory(), asset_tag="OUT-1")
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk},
                                        format="json"), mode, "conflict")
        assert body["message"] == "That asset is not available for checkout!"
        assert body["payload"] == {"asset": "OUT-1"}
        assert db_state() == before

    @pytest.mark.parametrize("kind", [StatusType.PENDING, StatusType.UNDEPLOYABLE, StatusType.ARCHIVED])
    def test_label_not_deployable(self, token_client, kind):
        asset = AssetFactory(status=StatusLabelFactory(type=kind))
        before = db_state()
        body = token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk},
                                 format="json").json()
        assert body["message"] == "That asset is not available for checkout!"
        assert db_state() == before

    def test_deleted_asset(self, token_client, mode):
        asset = AssetFactory(deleted_at=timezone.now())
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk},
                                        format="json"), mode, "not_found")
        assert body["message"] == "Asset does not exist."
        assert db_state() == before

    def test_status_must_be_deployable(self, token_client):
        asset = AssetFactory()
        pending = StatusLabelFactory(type=StatusType.PENDING)
        before = db_state()
        for status_id in (pending.pk, 424242, "abc"):
            body = token_client.post(f"{URL}/{asset.pk}/checkout",
                                     {"assigned_user": UserFactory().pk, "status_id": status_id},
                                     format="json").json()
            assert body["status"] == "error" and "status_id" in body["messages"]
        assert db_state()[0] == before[0]

    def test_expected_checkin_before_checkout_at(self, token_client, mode):
        asset = AssetFactory()
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkout",
                                        {"assigned_user": UserFactory().pk, "checkout_at": "2024-05-10",
                                         "expected_checkin": "2024-05-09"}, format="json"), mode, "invalid")
        assert "expected_checkin" in body["messages"]
        assert db_state()[0] == before[0]

    @pytest.mark.parametrize("field,value", [("checkout_at", "2023-02-30"), ("expected_checkin", "garbage"),
                                             ("note", "a\x00b"), ("name", "x" * 256)])
    def test_bad_fields(self, token_client, field, value):
        asset = AssetFactory()
        before = db_state()
        body = token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk, field: value},
                                 format="json").json()
        assert body["status"] == "error" and field in body["messages"]
        assert db_state() == before

    def test_required_note(self, token_client, site_settings):
        site_settings.require_checkinout_notes = True
        site_settings.save()
        asset = AssetFactory()
        before = db_state()
        body = token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk},
                                 format="json").json()
        assert body["messages"] == {"note": ["The note field is required."]}
        assert db_state() == before
        resp = token_client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk, "note": "ok"},
                                 format="json")
        assert resp.json()["status"] == "success"

    def test_other_company_user_is_unknown_under_separation(self, make_client, fmcs_on):
        mine, theirs = CompanyFactory(), CompanyFactory()
        client = make_client(UserFactory(company=mine, permissions={"assets.checkout": 1}))
        asset = AssetFactory(company=mine)
        stranger = UserFactory(company=theirs)
        colleague = UserFactory(company=mine)
        other_asset = AssetFactory(company=theirs)
        before = db_state()
        body = client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": stranger.pk}, format="json").json()
        assert body["message"].endswith("user does not exist.")
        body = client.post(f"{URL}/{other_asset.pk}/checkout", {"assigned_user": colleague.pk},
                           format="json").json()
        assert body["message"] == "Asset does not exist."
        assert db_state() == before

    def test_needs_checkout_permission(self, make_client):
        asset = AssetFactory()
        client = make_client(UserFactory(permissions={"assets.view": 1, "assets.checkin": 1}))
        before = db_state()
        resp = client.post(f"{URL}/{asset.pk}/checkout", {"assigned_user": UserFactory().pk}, format="json")
        assert resp.status_code == 403 and resp.json()["message"] == "Insufficient permissions."
        assert db_state() == before


class TestCheckoutEffects:
    def test_to_location_and_to_asset(self, token_client):
        place = LocationFactory()
        a = AssetFactory()
        token_client.post(f"{URL}/{a.pk}/checkout", {"assigned_location": place.pk}, format="json")
        a.refresh_from_db()
        assert a.assigned_location == place and a.location == place
        b = AssetFactory()
        resp = token_client.post(f"{URL}/{b.pk}/checkout", {"assigned_asset": a.pk, "checkout_to_type": "asset"},
                                 format="json")
        assert resp.json()["status"] == "success"
        b.refresh_from_db()
        assert b.assigned_asset == a and b.location == place

    def test_status_name_and_dates(self, token_client):
        asset = AssetFactory(name="old")
        other = StatusLabelFactory(type=StatusType.DEPLOYABLE)
        user = UserFactory()
        resp = token_client.post(f"{URL}/{asset.pk}/checkout",
                                 {"assigned_user": str(user.pk), "status_id": str(other.pk), "name": "new",
                                  "checkout_at": "2024-05-01", "expected_checkin": "2024-05-01"}, format="json")
        assert resp.json()["status"] == "success"
        asset.refresh_from_db()
        assert (asset.status, asset.name, asset.expected_checkin) == (other, "new", dt.date(2024, 5, 1))
        assert timezone.localtime(asset.last_checkout).date() == dt.date(2024, 5, 1)
        log = ActionLog.objects.get(action_type="checkout")
        assert set(log.log_meta) >= {"name", "status_id", "assigned_user_id", "expected_checkin"}

    def test_bytag_checkout_and_checkin(self, token_client):
        asset = AssetFactory(asset_tag="A/B")
        user = UserFactory()
        resp = token_client.post(f"{URL}/bytag/a/b/checkout", {"assigned_user": user.pk}, format="json")
        assert resp.json()["messages"] == "Asset checked out successfully."
        resp = token_client.post(f"{URL}/bytag/A/B/checkin", {}, format="json")
        assert resp.json()["messages"] == "Asset checked in successfully."
        assert [log.action_type for log in ActionLog.objects.order_by("id")] == ["checkout", "checkin from"]
        assert token_client.get(f"{URL}/bytag/A/B").json()["id"] == asset.pk

    def test_bytag_unknown(self, token_client, mode):
        body = expect(token_client.post(f"{URL}/bytag/NOPE/checkout", {"assigned_user": UserFactory().pk},
                                        format="json"), mode, "not_found")
        assert body["message"] == "Asset not found"
        body = expect(token_client.post(f"{URL}/bytag/NOPE/checkin", {}, format="json"), mode, "not_found")
        assert body["message"] == "Asset with tag NOPE not found" and body["payload"] == {"asset": "NOPE"}


class TestCheckin:
    def test_already_checked_in(self, token_client, mode):
        asset = AssetFactory(asset_tag="IN-1")
        before = db_state()
        body = expect(token_client.post(f"{URL}/{asset.pk}/checkin", {}, format="json"), mode, "conflict")
        assert body["message"] == "That asset is already checked in."
        assert body["payload"]["asset_tag"] == "IN-1"
        assert db_state() == before

    def test_checkin_to_location_with_status_and_name(self, token_client):
        rtd = LocationFactory()
        elsewhere = LocationFactory()
        broken = StatusLabelFactory(type=StatusType.UNDEPLOYABLE)
        asset = checked_out_asset(UserFactory(), rtd_location=rtd, expected_checkin=dt.date(2030, 1, 1))
        resp = token_client.post(f"{URL}/{asset.pk}/checkin",
                                 {"location_id": elsewhere.pk, "status_id": broken.pk, "name": "renamed",
                                  "note": "n"}, format="json")
        assert resp.json()["status"] == "success"
        asset.refresh_from_db()
        assert asset.location == elsewhere and asset.status == broken and asset.name == "renamed"
        assert asset.expected_checkin is None and asset.last_checkin is not None and asset.checkin_counter == 1

    @pytest.mark.parametrize("payload", [{"location_id": 424242}, {"status_id": 424242}, {"location_id": "x"},
                                         {"note": "\x00"}])
    def test_bad_input(self, token_client, payload):
        asset = checked_out_asset(UserFactory())
        before = db_state()
        body = token_client.post(f"{URL}/{asset.pk}/checkin", payload, format="json").json()
        assert body["status"] == "error" and next(iter(payload)) in body["messages"]
        assert db_state() == before

    def test_checkinbytag(self, token_client):
        asset = checked_out_asset(UserFactory(), asset_tag="CT-1")
        resp = token_client.post(f"{URL}/checkinbytag", {"asset_tag": "ct-1"}, format="json")
        assert resp.json()["status"] == "success"
        asset.refresh_from_db()
        assert not asset.is_assigned
        body = token_client.post(f"{URL}/checkinbytag", {"asset_tag": "zz"}, format="json").json()
        assert body["message"] == "Asset with tag zz not found" and body["payload"] == {"asset": "zz"}
        body = token_client.post(f"{URL}/checkinbytag", {}, format="json").json()
        assert body["messages"] == {"asset_tag": ["The asset tag field is required."]}

    def test_needs_checkin_permission(self, make_client):
        asset = checked_out_asset(UserFactory())
        client = make_client(UserFactory(permissions={"assets.checkout": 1}))
        assert client.post(f"{URL}/{asset.pk}/checkin").status_code == 403
        assert asset.__class__.objects.get(pk=asset.pk).is_assigned


class TestAudit:
    def test_audit_with_date_and_location(self, token_client):
        place = LocationFactory()
        asset = AssetFactory()
        resp = token_client.post(f"{URL}/{asset.pk}/audit",
                                 {"next_audit_date": "2031-06-30", "location_id": place.pk}, format="json")
        assert resp.json()["payload"]["next_audit_date"] == "2031-06-30"
        asset.refresh_from_db()
        assert asset.next_audit_date == dt.date(2031, 6, 30) and asset.location == place
        log = ActionLog.objects.get(action_type="audit")
        assert log.location == place and "next_audit_date" in log.log_meta

    def test_audit_interval_setting(self, token_client, site_settings):
        site_settings.audit_interval = 3
        site_settings.save()
        asset = AssetFactory()
        token_client.post(f"{URL}/{asset.pk}/audit", {}, format="json")
        asset.refresh_from_db()
        today = timezone.localdate()
        months = (asset.next_audit_date.year - today.year) * 12 + asset.next_audit_date.month - today.month
        assert months == 3

    @pytest.mark.parametrize("payload", [{"next_audit_date": "garbage"}, {"next_audit_date": "2023-02-30"},
                                         {"location_id": 424242}])
    def test_bad_input(self, token_client, payload):
        asset = AssetFactory()
        before = db_state()
        body = token_client.post(f"{URL}/{asset.pk}/audit", payload, format="json").json()
        assert body["status"] == "error" and next(iter(payload)) in body["messages"]
        assert db_state() == before

    def test_legacy_audit_by_tag(self, token_client):
        asset = AssetFactory(asset_tag="AUD-1")
        resp = token_client.post(f"{URL}/audit", {"asset_tag": "aud-1", "note": "ok"}, format="json")
        assert resp.json()["payload"]["id"] == asset.pk
        body = token_client.post(f"{URL}/audit", {"asset_tag": "nope"}, format="json").json()
        assert body["message"] == "Asset does not exist."

    def test_needs_audit_permission(self, make_client):
        asset = AssetFactory()
        client = make_client(UserFactory(permissions={"assets.view": 1}))
        assert client.post(f"{URL}/{asset.pk}/audit").status_code == 403
        assert ActionLog.objects.count() == 0
