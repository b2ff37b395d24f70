"""``/users``: list, read, create, update, delete and restore (reference §6.3, API-CONTRACT.md §3 and §7)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.api.users import UserViewSet
from accounts.models import User
from accounts.services import personal_token_issue
from activity.models import ActionLog
from tests.api_mixins import QueryBudgetTests
from tests.factories import (
    AssetFactory,
    CompanyFactory,
    DepartmentFactory,
    LocationFactory,
    PermissionGroupFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

USER_NOT_FOUND = "User does not exist or you do not have permission view them."
ALL_USER_KEYS = {"users.view": 1, "users.create": 1, "users.edit": 1, "users.delete": 1}


class TestUsersAPI(QueryBudgetTests):
    """The shared list budget (``tests/api_mixins.py``): users with a company, a department, a group and an asset
    each."""

    url = "/api/v1/users"
    viewset = UserViewSet
    section = "users"
    model = User
    factory = UserFactory
    item_type = "user"

    def make_listed(self) -> None:
        company = CompanyFactory()
        user = UserFactory(company=company, location=LocationFactory(), department=DepartmentFactory(company=company))
        user.groups.add(PermissionGroupFactory())
        AssetFactory(assigned_user=user)

    def listed_count(self) -> int:
        return User.objects.filter(deleted_at__isnull=True).count()


@pytest.fixture
def http_mode(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}


@pytest.fixture
def manager(make_client):
    """A non-super user who manages users."""
    return make_client(UserFactory(username="manager", permissions=dict(ALL_USER_KEYS)))


def new_user_body(**extra):
    return {"first_name": "Ada", "last_name": "Lovelace", "username": "ada", "password": "analytical-engine",
            "email": "ada@example.com", **extra}


class TestRead:
    def test_list_record_shape(self, token_client, company):
        group = PermissionGroupFactory(name="Helpdesk")
        user = UserFactory(username="zed", company=company, permissions={"assets.view": 1})
        user.groups.add(group)
        AssetFactory.create_batch(2, assigned_user=user)
        r = token_client.get("/api/v1/users", {"search": "zed"})
        assert r.status_code == 200
        row = r.json()["rows"][0]
        assert r.json()["total"] == 1
        assert row["username"] == "zed" and row["activated"] is True
        assert row["company"] == {"id": company.pk, "name": "Company A"}
        assert row["permissions"] == {"assets.view": 1}
        assert row["groups"] == {"total": 1, "rows": [{"id": group.pk, "name": "Helpdesk"}]}
        assert row["assets_count"] == 2
        assert set(row["created_at"]) == {"datetime", "formatted"}
        assert "password" not in row

    def test_list_constant_queries(self, token_client, django_assert_max_num_queries):
        group = PermissionGroupFactory()
        for _ in range(5):
            user = UserFactory(company=CompanyFactory())
            user.groups.add(group)
            AssetFactory(assigned_user=user)
        with django_assert_max_num_queries(14) as small:
            token_client.get("/api/v1/users")
        for _ in range(50):
            user = UserFactory(company=CompanyFactory())
            user.groups.add(group)
            AssetFactory(assigned_user=user)
        with django_assert_max_num_queries(len(small.captured_queries)):
            assert len(token_client.get("/api/v1/users", {"limit": 100}).json()["rows"]) == 56

    def test_filters_and_deleted(self, token_client, company):
        active = UserFactory(username="active1", company=company)
        UserFactory(username="inactive1", is_active=False)
        gone = UserFactory(username="gone1", deleted_at=timezone.now())
        group = PermissionGroupFactory()
        active.groups.add(group)
        ids = lambda r: {row["id"] for row in r.json()["rows"]}  # noqa: E731
        assert gone.pk not in ids(token_client.get("/api/v1/users"))
        assert ids(token_client.get("/api/v1/users", {"deleted": "true"})) == {gone.pk}
        assert gone.pk in ids(token_client.get("/api/v1/users", {"all": "true"}))
        assert ids(token_client.get("/api/v1/users", {"company_id": company.pk})) == {active.pk}
        assert ids(token_client.get("/api/v1/users", {"group_id": group.pk})) == {active.pk}
        inactive = ids(token_client.get("/api/v1/users", {"activated": "false"}))
        assert {u.username for u in User.objects.filter(pk__in=inactive)} == {"inactive1"}

    def test_detail_and_not_found(self, token_client, user, http_mode):
        r = token_client.get(f"/api/v1/users/{user.pk}")
        assert r.status_code == 200 and r.json()["id"] == user.pk
        for bad in ("999999", "abc", "1.5"):
            r = token_client.get(f"/api/v1/users/{bad}")
            assert r.status_code == 404 and r.json()["message"] == USER_NOT_FOUND

    def test_needs_users_view(self, make_client, user):
        client = make_client(UserFactory())
        assert client.get("/api/v1/users").status_code == 403
        assert client.get(f"/api/v1/users/{user.pk}").status_code == 403

    def test_me_still_works(self, token_client):
        r = token_client.get("/api/v1/users/me")
        assert r.status_code == 200 and r.json()["username"] == "admin"
        assert token_client.get("/api/v1/users/me/").json()["username"] == "admin"


class TestCreate:
    def test_create(self, token_client, superuser, company):
        group = PermissionGroupFactory()
        location = LocationFactory()
        body = new_user_body(company_id=company.pk, location_id=location.pk, permissions={"assets.view": "1"},
                             groups=[group.pk], employee_num="E-1", jobtitle="Engineer", activated=True)
        r = token_client.post("/api/v1/users", body, format="json")
        data = r.json()
        assert data["status"] == "success", data
        assert data["messages"] == "User was successfully created."
        record = data["payload"]
        assert record["username"] == "ada" and record["company"]["id"] == company.pk
        assert record["permissions"] == {"assets.view": 1}
        user = User.objects.get(username="ada")
        assert user.check_password("analytical-engine") and user.password != "analytical-engine"
        assert user.created_by == superuser and list(user.groups.all()) == [group]
        assert user.location == location
        assert ActionLog.objects.filter(item_type="user", item_id=user.pk, action_type="create").exists()

    def test_form_style_permissions(self, token_client):
        r = token_client.post("/api/v1/users?" + "&".join(
            ["first_name=Form", "username=form", "password=longenough1", "permissions[assets.view]=1"]))
        assert r.json()["status"] == "success", r.json()
        assert User.objects.get(username="form").permissions == {"assets.view": 1}

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"username": None}, "username"),
            ({"first_name": None}, "first_name"),
            ({"password": None}, "password"),
            ({"password": "short"}, "password"),
            ({"password": "long-enough", "password_confirmation": "different"}, "password"),
            ({"email": "not-an-email"}, "email"),
            ({"username": "u" * 192}, "username"),
            ({"username": "ADMIN"}, "username"),  # the super user's name in another case
            ({"company_id": 999999}, "company_id"),
            ({"company_id": "abc"}, "company_id"),
            ({"company_id": [1]}, "company_id"),
            ({"location_id": 999999}, "location_id"),
            ({"permissions": {"assets.fly": 1}}, "permissions"),
            ({"permissions": {"assets.view": 2}}, "permissions"),
            ({"permissions": ["assets.view"]}, "permissions"),
            ({"groups": [999999]}, "groups"),
            ({"groups": ["x"]}, "groups"),
            ({"activated": "maybe"}, "activated"),
        ],
    )
    def test_invalid_input_creates_nothing(self, token_client, body, field, http_mode):
        before = User.objects.count()
        r = token_client.post("/api/v1/users", new_user_body(**body), format="json")
        assert r.status_code == 422, r.json()
        assert field in r.json()["messages"], r.json()
        assert User.objects.count() == before

    def test_deleted_users_free_their_username(self, token_client):
        UserFactory(username="ada", deleted_at=timezone.now())
        assert token_client.post("/api/v1/users", new_user_body(), format="json").json()["status"] == "success"

    def test_needs_users_create(self, make_client):
        client = make_client(UserFactory(permissions={"users.view": 1}))
        assert client.post("/api/v1/users", new_user_body(), format="json").status_code == 403
        assert not User.objects.filter(username="ada").exists()


class TestUpdate:
    def test_partial_update(self, token_client, user):
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"jobtitle": "CTO", "password": "new-password-1"},
                               format="json")
        assert r.json()["status"] == "success" and r.json()["messages"] == "User was successfully updated."
        user.refresh_from_db()
        assert user.jobtitle == "CTO" and user.check_password("new-password-1")
        log = ActionLog.objects.get(item_type="user", item_id=user.pk, action_type="update")
        assert log.log_meta["jobtitle"] == {"old": "", "new": "CTO"}
        assert log.log_meta["password"] == {"old": "*", "new": "*"}  # never the hash

    def test_put_is_partial_too(self, token_client, user):
        r = token_client.put(f"/api/v1/users/{user.pk}", {"last_name": "Hopper"}, format="json")
        assert r.json()["status"] == "success"
        user.refresh_from_db()
        assert user.last_name == "Hopper" and user.username.startswith("user")

    def test_deactivating_revokes_every_token(self, token_client, make_client, user):
        victim = make_client(user)
        assert victim.get("/api/v1/users/me").status_code == 200
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"activated": False}, format="json")
        assert r.json()["payload"]["activated"] is False
        assert victim.get("/api/v1/users/me").status_code == 401
        assert not user.personal_tokens.filter(revoked=False).exists()

    def test_nobody_deactivates_themselves(self, token_client, superuser):
        r = token_client.patch(f"/api/v1/users/{superuser.pk}", {"activated": False}, format="json")
        assert r.json()["message"] == "You cannot deactivate yourself."
        superuser.refresh_from_db()
        assert superuser.is_active

    def test_username_clash_and_unknown_keys(self, token_client, user):
        UserFactory(username="taken")
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"username": "TAKEN"}, format="json")
        assert r.json()["messages"] == {"username": ["The username must be unique."]}
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"is_superuser": True, "deleted_at": None,
                                                            "password_hash": "x"}, format="json")
        assert r.json()["status"] == "success"  # unknown keys are ignored, never written

    def test_location_change_moves_their_assets(self, token_client, user):
        asset = AssetFactory(assigned_user=user)
        location = LocationFactory()
        token_client.patch(f"/api/v1/users/{user.pk}", {"location_id": location.pk}, format="json")
        asset.refresh_from_db()
        assert asset.location == location

    def test_company_change_refused_while_holding_other_company_items(self, token_client, company, other_company,
                                                                      fmcs_on):
        user = UserFactory(company=company)
        AssetFactory(company=company, assigned_user=user)
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"company_id": other_company.pk}, format="json")
        assert r.json()["message"] == (
            "This user has items assigned that belong to a different company. Please check them in or edit their "
            "company.")
        user.refresh_from_db()
        assert user.company == company

    def test_deleted_user_cannot_be_edited(self, token_client):
        gone = UserFactory(deleted_at=timezone.now())
        r = token_client.patch(f"/api/v1/users/{gone.pk}", {"jobtitle": "x"}, format="json")
        assert r.json()["message"].startswith("This user has been deleted.")


class TestDeleteAndRestore:
    def test_delete_soft_deletes_and_revokes_tokens(self, token_client, user):
        personal_token_issue(user=user, name="t")
        r = token_client.delete(f"/api/v1/users/{user.pk}")
        assert r.json() == {"status": "success", "messages": "User was successfully deleted.", "payload": None}
        user.refresh_from_db()
        assert user.deleted_at is not None
        assert not user.personal_tokens.filter(revoked=False).exists()

    def test_nobody_deletes_themselves(self, token_client, superuser, http_mode):
        r = token_client.delete(f"/api/v1/users/{superuser.pk}")
        assert r.status_code == 409
        assert r.json()["message"] == "We would feel really bad if you deleted yourself, please reconsider."
        superuser.refresh_from_db()
        assert superuser.deleted_at is None

    def test_user_holding_assets_is_kept(self, token_client, user):
        AssetFactory(assigned_user=user)
        r = token_client.delete(f"/api/v1/users/{user.pk}")
        assert r.json()["message"] == "This user still has an asset assigned. Please check it in first."
        AssetFactory(assigned_user=user)
        r = token_client.delete(f"/api/v1/users/{user.pk}")
        assert r.json()["message"] == "This user still has 2 assets assigned. Please check their assets in first."
        user.refresh_from_db()
        assert user.deleted_at is None

    def test_location_manager_is_kept(self, token_client, user):
        LocationFactory(manager=user)
        r = token_client.delete(f"/api/v1/users/{user.pk}")
        assert r.json()["message"] == "This user still manages a location. Please select another manager first."

    def test_already_deleted(self, token_client):
        gone = UserFactory(deleted_at=timezone.now())
        r = token_client.delete(f"/api/v1/users/{gone.pk}")
        assert r.json()["message"].startswith("This user has been deleted.")

    def test_restore(self, token_client):
        gone = UserFactory(username="back", deleted_at=timezone.now())
        r = token_client.post(f"/api/v1/users/{gone.pk}/restore")
        assert r.json() == {"status": "success", "messages": "User was successfully restored.", "payload": None}
        gone.refresh_from_db()
        assert gone.deleted_at is None

    def test_restore_refusals(self, token_client, user):
        r = token_client.post(f"/api/v1/users/{user.pk}/restore")
        assert r.json()["message"] == "The User was not deleted and therefore cannot be restored"
        gone = UserFactory(username="dup", deleted_at=timezone.now())
        UserFactory(username="DUP")
        r = token_client.post(f"/api/v1/users/{gone.pk}/restore")
        assert r.json()["message"] == "The username must be unique."
        gone.refresh_from_db()
        assert gone.deleted_at is not None

    def test_restore_needs_users_delete(self, make_client):
        gone = UserFactory(deleted_at=timezone.now())
        client = make_client(UserFactory(permissions={"users.view": 1, "users.edit": 1}))
        assert client.post(f"/api/v1/users/{gone.pk}/restore").status_code == 403
        manager = make_client(UserFactory(permissions=dict(ALL_USER_KEYS)))
        assert manager.post(f"/api/v1/users/{gone.pk}/restore").json()["status"] == "success"
