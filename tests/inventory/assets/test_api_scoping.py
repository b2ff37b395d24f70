"""Who may call which hardware route (401/403), and company separation (another company's asset is "not found",
never shown, never counted, never a target)."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from inventory.models import Asset
from tests.factories import AssetFactory, CompanyFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db


def routes(asset: Asset) -> list[tuple[str, str, str]]:
    """(method, path, permission key) of every hardware route."""
    tag = asset.asset_tag
    return [
        ("get", "/api/v1/hardware", "assets.view"),
        ("get", f"/api/v1/hardware/{asset.pk}", "assets.view"),
        ("get", f"/api/v1/hardware/bytag/{tag}", "assets.view"),
        ("get", f"/api/v1/hardware/byserial/{asset.serial}", "assets.view"),
        ("get", "/api/v1/hardware/audits/due", "assets.view"),
        ("get", "/api/v1/hardware/checkins/overdue", "assets.view"),
        ("get", f"/api/v1/hardware/{asset.pk}/history", "assets.view"),
        ("post", "/api/v1/hardware", "assets.create"),
        ("patch", f"/api/v1/hardware/{asset.pk}", "assets.edit"),
        ("put", f"/api/v1/hardware/{asset.pk}", "assets.edit"),
        ("delete", f"/api/v1/hardware/{asset.pk}", "assets.delete"),
        ("post", f"/api/v1/hardware/{asset.pk}/restore", "assets.delete"),
        ("post", f"/api/v1/hardware/{asset.pk}/checkout", "assets.checkout"),
        ("post", f"/api/v1/hardware/bytag/{tag}/checkout", "assets.checkout"),
        ("post", f"/api/v1/hardware/{asset.pk}/checkin", "assets.checkin"),
        ("post", f"/api/v1/hardware/bytag/{tag}/checkin", "assets.checkin"),
        ("post", "/api/v1/hardware/checkinbytag", "assets.checkin"),
        ("post", f"/api/v1/hardware/{asset.pk}/audit", "assets.audit"),
        ("post", "/api/v1/hardware/audit", "assets.audit"),
    ]


def state():
    return list(Asset.objects.order_by("id").values()), ActionLog.objects.count()


def test_anonymous_gets_401_everywhere(api_client):
    asset = AssetFactory()
    for method, path, _key in routes(asset):
        resp = getattr(api_client, method)(path)
        assert resp.status_code == 401, (method, path)
        assert resp.json()["message"] == "Unauthenticated."


def test_each_route_needs_its_permission(make_client):
    asset = checked_out_asset(UserFactory())
    before = state()
    for method, path, key in routes(asset):
        # every other asset permission, but not this one
        others = {k: 1 for _m, _p, k in routes(asset) if k != key}
        client = make_client(UserFactory(permissions=others))
        resp = getattr(client, method)(path, {}, format="json")
        assert resp.status_code == 403, (method, path, resp.content)
        assert resp.json()["message"] == "Insufficient permissions."
    assert state() == before


def test_admin_passes_asset_permissions(make_client):
    asset = AssetFactory()
    client = make_client(UserFactory(permissions={"admin": 1}))
    assert client.get(f"/api/v1/hardware/{asset.pk}").status_code == 200
    assert client.post(f"/api/v1/hardware/{asset.pk}/audit").json()["status"] == "success"


def test_explicit_deny_beats_admin_group(make_client):
    asset = AssetFactory()
    client = make_client(UserFactory(permissions={"assets.view": -1}))
    assert client.get(f"/api/v1/hardware/{asset.pk}").status_code == 403


class TestSeparation:
    @pytest.fixture
    def world(self, fmcs_on, make_client):
        mine, theirs = CompanyFactory(), CompanyFactory()
        every = {"assets.view": 1, "assets.create": 1, "assets.edit": 1, "assets.delete": 1, "assets.checkout": 1,
                 "assets.checkin": 1, "assets.audit": 1}
        return {
            "mine": AssetFactory(company=mine, asset_tag="MINE", serial="S-MINE"),
            "theirs": checked_out_asset(UserFactory(company=theirs), company=theirs, asset_tag="THEIRS",
                                        serial="S-THEIRS"),
            "client": make_client(UserFactory(company=mine, permissions=every)),
            "mine_company": mine,
            "their_user": UserFactory(company=theirs),
        }

    def test_lists_show_only_own_company(self, world):
        body = world["client"].get("/api/v1/hardware").json()
        assert body["total"] == 1 and body["rows"][0]["id"] == world["mine"].pk
        body = world["client"].get("/api/v1/hardware", {"search": "THEIRS"}).json()
        assert body == {"total": 0, "rows": []}
        assert world["client"].get("/api/v1/hardware/byserial/S-THEIRS").json()["total"] == 0

    def test_other_company_asset_is_not_found_everywhere(self, world, settings):
        settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
        client, theirs = world["client"], world["theirs"]
        before = state()
        for method, path, _key in routes(theirs):
            if path in ("/api/v1/hardware", "/api/v1/hardware/audits/due", "/api/v1/hardware/checkins/overdue") \
                    or "byserial" in path:
                continue
            data = {"asset_tag": "THEIRS"} if path.endswith(("checkinbytag", "hardware/audit")) else {}
            if path.endswith("checkout"):
                data = {"assigned_user": UserFactory(company=world["mine_company"]).pk}
            resp = getattr(client, method)(path, data, format="json")
            if method == "post" and path == "/api/v1/hardware":
                continue
            assert resp.status_code == 404, (method, path, resp.content)
            assert resp.json()["status"] == "error"
        assert state()[1] == before[1]
        theirs.refresh_from_db()
        assert theirs.deleted_at is None and theirs.is_assigned

    def test_other_company_targets_are_unknown(self, world):
        client, mine = world["client"], world["mine"]
        body = client.post(f"/api/v1/hardware/{mine.pk}/checkout", {"assigned_user": world["their_user"].pk},
                           format="json").json()
        assert body["status"] == "error"
        body = client.post(f"/api/v1/hardware/{mine.pk}/checkout", {"assigned_asset": world["theirs"].pk},
                           format="json").json()
        assert body["message"] == "Checkout target for asset MINE is invalid - asset does not exist."
        body = client.post("/api/v1/hardware", {"asset_tag": "N", "model_id": mine.model_id,
                                                "status_id": mine.status_id,
                                                "assigned_user": world["their_user"].pk}, format="json").json()
        assert body["messages"] == {"assigned_user": ["The selected assigned user is invalid."]}
        mine.refresh_from_db()
        assert not mine.is_assigned

    def test_company_less_user_sees_everything(self, world, make_client):
        client = make_client(UserFactory(permissions={"assets.view": 1}))
        assert client.get("/api/v1/hardware").json()["total"] == 2

    def test_super_user_sees_everything(self, world, token_client):
        assert token_client.get("/api/v1/hardware").json()["total"] == 2

    def test_log_company_follows_actor(self, world):
        world["client"].post(f"/api/v1/hardware/{world['mine'].pk}/audit")
        log = ActionLog.objects.get(action_type="audit")
        assert log.company_id == world["mine_company"].pk
