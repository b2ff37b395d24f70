"""Nobody grants themselves rights: the escalation guards of the users API (API-CONTRACT.md §7). Every refusal is
403 ``Insufficient permissions.`` and leaves the database as it was."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.factories import CompanyFactory, PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db

MANAGER_KEYS = {"users.view": 1, "users.create": 1, "users.edit": 1, "users.delete": 1, "assets.view": 1}


@pytest.fixture
def manager_user():
    return UserFactory(username="manager", permissions=dict(MANAGER_KEYS))


@pytest.fixture
def manager(make_client, manager_user):
    return make_client(manager_user)


def assert_forbidden(response):
    assert response.status_code == 403, response.content
    assert response.json() == {"status": "error", "message": "Insufficient permissions.",
                               "messages": "Insufficient permissions.", "payload": None}


def snapshot(user: User):
    user.refresh_from_db()
    return (user.permissions, sorted(user.groups.values_list("pk", flat=True)), user.email, user.password,
            user.company_id, user.is_active, user.deleted_at)


class TestOwnRecord:
    @pytest.mark.parametrize("grant", [{"assets.view": 1, "reports.view": 1}, {"superuser": 1}, {"admin": 1},
                                       {"users.view": 1}, {"accessories.checkout": 1, "accessories.checkin": 1},
                                       {"consumables.checkout": 1}])
    def test_nobody_changes_their_own_permissions(self, manager, manager_user, grant):
        before = snapshot(manager_user)
        assert_forbidden(manager.patch(f"/api/v1/users/{manager_user.pk}", {"permissions": grant}, format="json"))
        assert snapshot(manager_user) == before

    def test_not_even_a_super_user(self, token_client, superuser):
        r = token_client.patch(f"/api/v1/users/{superuser.pk}", {"permissions": {"superuser": 1, "admin": 1}},
                               format="json")
        assert_forbidden(r)
        group = PermissionGroupFactory()
        assert_forbidden(token_client.patch(f"/api/v1/users/{superuser.pk}", {"groups": [group.pk]}, format="json"))
        assert not superuser.groups.exists()

    def test_sending_back_the_same_permissions_is_fine(self, manager, manager_user):
        r = manager.patch(f"/api/v1/users/{manager_user.pk}",
                          {"permissions": dict(MANAGER_KEYS), "jobtitle": "Lead"}, format="json")
        assert r.json()["status"] == "success"

    def test_own_groups(self, manager, manager_user):
        group = PermissionGroupFactory(permissions={"superuser": 1})
        assert_forbidden(manager.patch(f"/api/v1/users/{manager_user.pk}", {"groups": [group.pk]}, format="json"))
        assert not manager_user.groups.exists()


class TestGrantingOthers:
    @pytest.mark.parametrize("key", ["superuser", "admin"])
    @pytest.mark.parametrize("value", [1, "1", True, -1])
    def test_only_super_users_touch_superuser_and_admin(self, manager, user, key, value):
        before = snapshot(user)
        assert_forbidden(manager.patch(f"/api/v1/users/{user.pk}", {"permissions": {key: value}}, format="json"))
        assert snapshot(user) == before
        r = manager.post("/api/v1/users", {"first_name": "N", "username": "newbie", "password": "long-enough-1",
                                           "permissions": {key: value}}, format="json")
        assert_forbidden(r)
        assert not User.objects.filter(username="newbie").exists()

    def test_a_caller_grants_only_keys_they_hold(self, manager, user):
        r = manager.patch(f"/api/v1/users/{user.pk}", {"permissions": {"assets.view": 1}}, format="json")
        assert r.json()["status"] == "success"
        before = snapshot(user)
        assert_forbidden(manager.patch(f"/api/v1/users/{user.pk}",
                                       {"permissions": {"assets.view": 1, "assets.delete": 1}}, format="json"))
        assert snapshot(user) == before

    def test_denying_is_not_granting(self, manager, user):
        r = manager.patch(f"/api/v1/users/{user.pk}", {"permissions": {"reports.view": -1}}, format="json")
        assert r.json()["status"] == "success"

    def test_super_users_grant_anything_to_others(self, token_client, user):
        group = PermissionGroupFactory()
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"permissions": {"admin": 1}, "groups": [group.pk]},
                               format="json")
        assert r.json()["status"] == "success"
        user.refresh_from_db()
        assert user.permissions == {"admin": 1} and list(user.groups.all()) == [group]
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"groups": None}, format="json")
        assert not user.groups.exists()

    def test_only_super_users_set_groups(self, manager, user):
        group = PermissionGroupFactory(permissions={"assets.view": 1})
        assert_forbidden(manager.patch(f"/api/v1/users/{user.pk}", {"groups": [group.pk]}, format="json"))
        assert not user.groups.exists()
        r = manager.post("/api/v1/users", {"first_name": "N", "username": "grouped", "password": "long-enough-1",
                                           "groups": group.pk}, format="json")
        assert_forbidden(r)
        assert not User.objects.filter(username="grouped").exists()

    def test_unknown_permission_keys_are_refused(self, token_client, user):
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"permissions": {"assets.view": 1, "godmode": 1}},
                               format="json")
        assert r.json()["status"] == "error"
        assert r.json()["messages"] == {"permissions": ['The permission "godmode" does not exist.']}
        user.refresh_from_db()
        assert user.permissions == {}


class TestTakeover:
    """A caller cannot change (e-mail, password, anything), deactivate or delete a user holding rights they lack."""

    @pytest.mark.parametrize("body", [{"email": "attacker@evil.test"}, {"password": "attacker-pass-1"},
                                      {"activated": False}, {"username": "pwned"}])
    def test_stronger_accounts_are_out_of_reach(self, manager, body):
        for target in (UserFactory(superuser=True), UserFactory(permissions={"admin": 1}),
                       UserFactory(permissions={"reports.view": 1})):
            before = snapshot(target)
            assert_forbidden(manager.patch(f"/api/v1/users/{target.pk}", body, format="json"))
            assert_forbidden(manager.delete(f"/api/v1/users/{target.pk}"))
            assert snapshot(target) == before

    def test_group_rights_count_too(self, manager):
        target = UserFactory()
        target.groups.add(PermissionGroupFactory(permissions={"superuser": 1}))
        assert_forbidden(manager.patch(f"/api/v1/users/{target.pk}", {"email": "x@evil.test"}, format="json"))

    def test_peers_and_weaker_accounts_are_editable(self, manager):
        peer = UserFactory(permissions={"users.view": 1})
        r = manager.patch(f"/api/v1/users/{peer.pk}", {"email": "new@example.com"}, format="json")
        assert r.json()["status"] == "success"


class TestCompanyRule8:
    def test_company_user_cannot_move_users_between_companies(self, make_client, fmcs_on, company, other_company):
        caller = make_client(UserFactory(company=company, permissions=dict(MANAGER_KEYS)))
        colleague = UserFactory(company=company)
        for value in (other_company.pk, str(other_company.pk), None, 999999, "abc", [company.pk]):
            before = snapshot(colleague)
            assert_forbidden(caller.patch(f"/api/v1/users/{colleague.pk}", {"company_id": value}, format="json"))
            assert snapshot(colleague) == before
        r = caller.patch(f"/api/v1/users/{colleague.pk}", {"company_id": company.pk, "jobtitle": "x"}, format="json")
        assert r.json()["status"] == "success"  # keeping the company is no change

    def test_company_user_creates_users_in_own_company(self, make_client, fmcs_on, company, other_company):
        caller = make_client(UserFactory(company=company, permissions=dict(MANAGER_KEYS)))
        body = {"first_name": "N", "username": "n1", "password": "long-enough-1"}
        assert caller.post("/api/v1/users", body, format="json").json()["payload"]["company"]["id"] == company.pk
        assert User.objects.get(username="n1").company == company
        for value in (other_company.pk, 999999, "abc", [other_company.pk]):
            assert_forbidden(caller.post("/api/v1/users", {**body, "username": "n2", "company_id": value},
                                         format="json"))
        assert not User.objects.filter(username="n2").exists()

    @pytest.mark.parametrize("caller_kind", ["super", "no_company", "separation_off"])
    def test_allowed_callers(self, make_client, site_settings, company, other_company, caller_kind):
        if caller_kind != "separation_off":
            site_settings.full_multiple_companies_support = True
            site_settings.save()
        if caller_kind == "super":
            caller = make_client(UserFactory(superuser=True, company=company))
        elif caller_kind == "no_company":
            caller = make_client(UserFactory(permissions=dict(MANAGER_KEYS)))
        else:
            caller = make_client(UserFactory(company=company, permissions=dict(MANAGER_KEYS)))
        target = UserFactory(company=company) if caller_kind != "no_company" else UserFactory()
        r = caller.patch(f"/api/v1/users/{target.pk}", {"company_id": other_company.pk}, format="json")
        assert r.json()["status"] == "success", r.json()
        target.refresh_from_db()
        assert target.company == other_company

    def test_unknown_company_is_a_validation_error_for_allowed_callers(self, token_client, user):
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"company_id": 999999}, format="json")
        assert r.json()["messages"] == {"company_id": ["The selected company id is invalid."]}
        CompanyFactory()
        r = token_client.patch(f"/api/v1/users/{user.pk}", {"company_id": "abc"}, format="json")
        assert r.json()["messages"] == {"company_id": ["The selected company id is invalid."]}
