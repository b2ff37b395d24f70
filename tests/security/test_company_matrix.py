"""The company separation matrix (specification rules 1 to 8, API-CONTRACT.md §7).

{separation off, on} x {super user, user of company A, user of company B, user without company} x every scoped
list, detail, count, update, delete, checkout target and foreign key, over objects of company A, company B and no
company. Expected outcome: ``sees(...)`` (rules 1 to 4). An object the caller may not see is answered exactly as
an id that does not exist (same status code, same body) and is never changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.utils import timezone

from accounts.models import User
from activity.models import ActionLog
from companies.models import Company
from inventory.models import Asset
from tests.api_mixins import same_answer
from tests.factories import AssetFactory, CompanyFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db

SEPARATION = [pytest.param(False, id="sep_off"), pytest.param(True, id="sep_on")]
ACTORS = ["super", "a", "b", "none"]
OWNERS = ["a", "b", "none"]
MISSING = 999_999
#: Everything the matrix exercises, so a refusal can only come from separation.
KEYS = {f"{section}.{verb}": 1 for section in ("assets", "users", "companies")
        for verb in ("view", "create", "edit", "delete")}
KEYS.update({"assets.checkout": 1, "assets.checkin": 1, "assets.audit": 1, "reports.view": 1})


def sees(separation: bool, actor: str, owner: str) -> bool:
    """Rules 1 to 4: off → all; super user → all; no company → all; else only the own company."""
    return not separation or actor in ("super", "none") or actor == owner


def rule_7_company(separation: bool, actor: str, requested: str) -> str:
    """The company a new item gets: the requested one, unless separation is on and the caller is not a super user,
    then the caller's own (or none)."""
    if separation and actor != "super":
        return actor
    return requested


def may_manage_user_companies(separation: bool, actor: str) -> bool:
    """Rule 8."""
    return not separation or actor in ("super", "none")


@dataclass
class World:
    separation: bool
    companies: dict[str, Company | None]
    actor_kind: str
    actor: User
    client: object

    def company_id(self, owner: str) -> int | None:
        company = self.companies[owner]
        return company.pk if company else None


@pytest.fixture(params=SEPARATION)
def separation(request, site_settings):
    site_settings.full_multiple_companies_support = request.param
    site_settings.save()
    return request.param


@pytest.fixture(params=ACTORS)
def world(request, separation, make_client, http_mode) -> World:
    companies = {"a": CompanyFactory(name="Company A"), "b": CompanyFactory(name="Company B"), "none": None}
    kind = request.param
    if kind == "super":
        actor = UserFactory(username="root", superuser=True, company=companies["a"])  # rule 2 beats the company
    else:
        actor = UserFactory(username=f"actor_{kind}", company=companies[kind], permissions=dict(KEYS))
    return World(separation, companies, kind, actor, make_client(actor))


@pytest.fixture
def http_mode(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}

def list_ids(client, path, **params):
    response = client.get(path, {"limit": 500, **params})
    assert response.status_code == 200, response.content
    data = response.json()
    return {row["id"] for row in data["rows"]}, data["total"]


# -- assets -------------------------------------------------------------------------------------------------------


@pytest.fixture
def assets(world) -> dict[str, Asset]:
    return {owner: AssetFactory(company=world.companies[owner], asset_tag=f"TAG-{owner}", serial=f"SER-{owner}")
            for owner in OWNERS}


class TestAssets:
    def test_list_and_count(self, world, assets):
        ids, total = list_ids(world.client, "/api/v1/hardware")
        expected = {assets[o].pk for o in OWNERS if sees(world.separation, world.actor_kind, o)}
        assert ids == expected and total == len(expected)
        for owner in ("a", "b"):
            ids, total = list_ids(world.client, "/api/v1/hardware", company_id=world.company_id(owner))
            visible = sees(world.separation, world.actor_kind, owner)
            assert (ids, total) == (({assets[owner].pk}, 1) if visible else (set(), 0))
        ids, total = list_ids(world.client, "/api/v1/hardware", search="TAG-")
        assert total == len(expected)

    def test_company_record_counts(self, world, assets):
        for owner in ("a", "b"):
            response = world.client.get(f"/api/v1/companies/{world.company_id(owner)}")
            if sees(world.separation, world.actor_kind, owner):
                assert response.json()["assets_count"] == 1
            else:
                same_answer(response, world.client.get(f"/api/v1/companies/{MISSING}"))

    @pytest.mark.parametrize("owner", OWNERS)
    def test_detail_bytag_byserial(self, world, assets, owner):
        asset = assets[owner]
        visible = sees(world.separation, world.actor_kind, owner)
        response = world.client.get(f"/api/v1/hardware/{asset.pk}")
        by_tag = world.client.get(f"/api/v1/hardware/bytag/{asset.asset_tag}")
        if visible:
            assert response.status_code == 200 and response.json()["id"] == asset.pk
            assert by_tag.json()["id"] == asset.pk
        else:
            same_answer(response, world.client.get(f"/api/v1/hardware/{MISSING}"))
            same_answer(by_tag, world.client.get("/api/v1/hardware/bytag/NO-SUCH-TAG"))
        assert list_ids(world.client, f"/api/v1/hardware/byserial/{asset.serial}")[1] == (1 if visible else 0)

    def test_activity_report_and_history(self, world, assets):
        for owner, asset in assets.items():
            ActionLog.objects.create(action_type="update", item_type="asset", item_id=asset.pk,
                                     company=world.companies[owner], action_date=timezone.now())
        response = world.client.get("/api/v1/reports/activity", {"limit": 500})
        assert response.status_code == 200, response.content
        seen = {row["item"]["id"] for row in response.json()["rows"]}
        assert seen == {assets[o].pk for o in OWNERS if sees(world.separation, world.actor_kind, o)}
        for owner, asset in assets.items():
            history = world.client.get(f"/api/v1/hardware/{asset.pk}/history")
            if sees(world.separation, world.actor_kind, owner):
                assert history.json()["total"] == 1
            else:
                same_answer(history, world.client.get(f"/api/v1/hardware/{MISSING}/history"))

    @pytest.mark.parametrize("owner", OWNERS)
    def test_update(self, world, assets, owner):
        asset = assets[owner]
        response = world.client.patch(f"/api/v1/hardware/{asset.pk}", {"name": "changed"}, format="json")
        asset.refresh_from_db()
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success" and asset.name == "changed"
        else:
            same_answer(response, world.client.patch(f"/api/v1/hardware/{MISSING}", {"name": "x"}, format="json"))
            assert asset.name != "changed"

    @pytest.mark.parametrize("owner", OWNERS)
    def test_delete(self, world, assets, owner):
        asset = assets[owner]
        response = world.client.delete(f"/api/v1/hardware/{asset.pk}")
        asset.refresh_from_db()
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success" and asset.deleted_at is not None
        else:
            same_answer(response, world.client.delete(f"/api/v1/hardware/{MISSING}"))
            assert asset.deleted_at is None

    @pytest.mark.parametrize("owner", OWNERS)
    def test_checkout_item_of_a_company(self, world, assets, owner):
        asset = assets[owner]
        target = UserFactory(company=world.actor.company)  # a target the caller sees
        response = world.client.post(f"/api/v1/hardware/{asset.pk}/checkout", {"assigned_user": target.pk},
                                     format="json")
        asset.refresh_from_db()
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success" and asset.assigned_user == target
        else:
            missing = world.client.post(f"/api/v1/hardware/{MISSING}/checkout", {"assigned_user": target.pk},
                                        format="json")
            same_answer(response, missing)
            assert asset.assigned_user is None

    @pytest.mark.parametrize("owner", OWNERS)
    @pytest.mark.parametrize("target_kind", ["assigned_user", "assigned_asset"])
    def test_checkout_target_of_a_company(self, world, owner, target_kind):
        own = AssetFactory(company=world.actor.company)
        if target_kind == "assigned_user":
            target = UserFactory(company=world.companies[owner])
        else:
            target = AssetFactory(company=world.companies[owner])
        response = world.client.post(f"/api/v1/hardware/{own.pk}/checkout", {target_kind: target.pk}, format="json")
        own.refresh_from_db()
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success", response.json()
            assert own.assigned_target == target
        else:
            missing = world.client.post(f"/api/v1/hardware/{own.pk}/checkout", {target_kind: MISSING},
                                        format="json")
            same_answer(response, missing, ignore_payload_keys=("target_id",))
            assert own.assigned_target is None

    @pytest.mark.parametrize("owner", OWNERS)
    def test_create_with_company_id_follows_rule_7(self, world, owner):
        status = StatusLabelFactory()
        model = AssetFactory().model
        response = world.client.post("/api/v1/hardware", {
            "asset_tag": "NEW-1", "model_id": model.pk, "status_id": status.pk,
            "company_id": world.company_id(owner),
        }, format="json")
        assert response.json()["status"] == "success", response.json()
        created = Asset.objects.get(asset_tag="NEW-1")
        expected = rule_7_company(world.separation, world.actor_kind, owner)
        assert created.company_id == world.company_id(expected)

    @pytest.mark.parametrize("owner", OWNERS)
    def test_create_checked_out_to_a_user_of_a_company(self, world, owner):
        status = StatusLabelFactory()
        model = AssetFactory().model
        target = UserFactory(company=world.companies[owner])
        body = {"asset_tag": "NEW-2", "model_id": model.pk, "status_id": status.pk}
        response = world.client.post("/api/v1/hardware", {**body, "assigned_user": target.pk}, format="json")
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success", response.json()
            assert Asset.objects.get(asset_tag="NEW-2").assigned_user == target
        else:
            missing = world.client.post("/api/v1/hardware", {**body, "assigned_user": MISSING}, format="json")
            same_answer(response, missing)
            assert not Asset.objects.filter(asset_tag="NEW-2").exists()


# -- users --------------------------------------------------------------------------------------------------------


@pytest.fixture
def people(world) -> dict[str, User]:
    return {owner: UserFactory(username=f"person_{owner}", company=world.companies[owner]) for owner in OWNERS}


class TestUsers:
    def test_list_and_count(self, world, people):
        ids, total = list_ids(world.client, "/api/v1/users", search="person_")
        expected = {people[o].pk for o in OWNERS if sees(world.separation, world.actor_kind, o)}
        assert ids == expected and total == len(expected)
        for owner in ("a", "b"):
            ids, _ = list_ids(world.client, "/api/v1/users", company_id=world.company_id(owner), search="person_")
            assert ids == ({people[owner].pk} if sees(world.separation, world.actor_kind, owner) else set())
        response = world.client.get(f"/api/v1/companies/{world.company_id('b')}")
        if sees(world.separation, world.actor_kind, "b"):
            assert response.json()["users_count"] == 1 + (world.actor_kind == "b")

    @pytest.mark.parametrize("owner", OWNERS)
    def test_detail(self, world, people, owner):
        response = world.client.get(f"/api/v1/users/{people[owner].pk}")
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["id"] == people[owner].pk
        else:
            same_answer(response, world.client.get(f"/api/v1/users/{MISSING}"))

    @pytest.mark.parametrize("owner", OWNERS)
    def test_update(self, world, people, owner):
        person = people[owner]
        response = world.client.patch(f"/api/v1/users/{person.pk}", {"jobtitle": "changed"}, format="json")
        person.refresh_from_db()
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success" and person.jobtitle == "changed"
        else:
            same_answer(response, world.client.patch(f"/api/v1/users/{MISSING}", {"jobtitle": "x"}, format="json"))
            assert person.jobtitle != "changed"

    @pytest.mark.parametrize("owner", OWNERS)
    def test_delete_and_restore(self, world, people, owner):
        person = people[owner]
        response = world.client.delete(f"/api/v1/users/{person.pk}")
        person.refresh_from_db()
        if sees(world.separation, world.actor_kind, owner):
            assert response.json()["status"] == "success" and person.deleted_at is not None
            assert world.client.post(f"/api/v1/users/{person.pk}/restore").json()["status"] == "success"
        else:
            same_answer(response, world.client.delete(f"/api/v1/users/{MISSING}"))
            assert person.deleted_at is None
            person.deleted_at = "2026-01-01T00:00:00Z"
            person.save()
            same_answer(world.client.post(f"/api/v1/users/{person.pk}/restore"),
                        world.client.post(f"/api/v1/users/{MISSING}/restore"))

    @pytest.mark.parametrize("owner", OWNERS)
    def test_create_with_company_id_follows_rules_7_and_8(self, world, owner):
        body = {"first_name": "New", "username": "newcomer", "password": "long-enough-1",
                "company_id": world.company_id(owner)}
        response = world.client.post("/api/v1/users", body, format="json")
        if may_manage_user_companies(world.separation, world.actor_kind):
            assert User.objects.get(username="newcomer").company_id == world.company_id(owner)
        elif owner in (world.actor_kind, "none"):  # the own company, or nothing asked: rule 7
            assert User.objects.get(username="newcomer").company_id == world.actor.company_id
        else:
            assert response.status_code == 403
            assert not User.objects.filter(username="newcomer").exists()

    @pytest.mark.parametrize("owner", ["a", "b"])
    def test_move_a_visible_user_to_a_company(self, world, owner):
        colleague = UserFactory(company=world.actor.company)
        response = world.client.patch(f"/api/v1/users/{colleague.pk}", {"company_id": world.company_id(owner)},
                                      format="json")
        colleague.refresh_from_db()
        if may_manage_user_companies(world.separation, world.actor_kind) or owner == world.actor_kind:
            assert response.json()["status"] == "success"
            assert colleague.company_id == world.company_id(owner)
        else:
            assert response.status_code == 403 and colleague.company_id == world.actor.company_id


# -- companies ----------------------------------------------------------------------------------------------------


class TestCompanies:
    def test_list_and_count(self, world):
        ids, total = list_ids(world.client, "/api/v1/companies")
        expected = {world.company_id(o) for o in ("a", "b") if sees(world.separation, world.actor_kind, o)}
        assert ids == expected and total == len(expected)

    @pytest.mark.parametrize("owner", ["a", "b"])
    def test_detail_update_delete(self, world, owner):
        company = world.companies[owner]
        visible = sees(world.separation, world.actor_kind, owner)
        detail = world.client.get(f"/api/v1/companies/{company.pk}")
        update = world.client.patch(f"/api/v1/companies/{company.pk}", {"notes": "changed"}, format="json")
        company.refresh_from_db()
        if visible:
            assert detail.json()["id"] == company.pk and update.json()["status"] == "success"
            assert company.notes == "changed"
        else:
            same_answer(detail, world.client.get(f"/api/v1/companies/{MISSING}"))
            same_answer(update, world.client.patch(f"/api/v1/companies/{MISSING}", {"notes": "x"}, format="json"))
            assert company.notes == ""
        empty = CompanyFactory(name="Empty")  # a third company: only the unrestricted callers see it
        response = world.client.delete(f"/api/v1/companies/{empty.pk}")
        if not world.separation or world.actor_kind in ("super", "none"):
            assert response.json()["status"] == "success"
        else:
            same_answer(response, world.client.delete(f"/api/v1/companies/{MISSING}"))
            assert Company.objects.filter(pk=empty.pk).exists()
