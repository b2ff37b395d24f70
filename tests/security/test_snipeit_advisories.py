"""One regression test per Snipe-IT company-scoping, privilege-escalation and mass-assignment advisory that applies
to this service (reference/snipeit-advisories.md). Each test is named after what it guards."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.models import PermissionGroup, User
from activity.models import ActionLog
from inventory.models import Asset
from tests.factories import AssetFactory, PermissionGroupFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db

USER_MANAGER = {"users.view": 1, "users.create": 1, "users.edit": 1, "users.delete": 1, "self.api": 1}
FORBIDDEN = {"status": "error", "message": "Insufficient permissions.", "messages": "Insufficient permissions.",
             "payload": None}


def state(user: User):
    user.refresh_from_db()
    return (user.email, user.password, user.permissions, user.company_id, user.is_active, user.deleted_at,
            sorted(user.groups.values_list("pk", flat=True)))


def test_cve_2026_86750_user_company_is_refused_before_anything_is_saved(make_client, fmcs_on, company,
                                                                          other_company):
    """API store/update saved the user before filtering company_id against the actor's company."""
    client = make_client(UserFactory(company=company, permissions=dict(USER_MANAGER)))
    body = {"first_name": "F", "username": "floater", "password": "long-enough-1"}
    for extra in ({"company_id": other_company.pk}, {"company_id": str(other_company.pk)},
                  {"company_id": [other_company.pk]}):
        response = client.post("/api/v1/users", {**body, **extra}, format="json")
        assert (response.status_code, response.json()) == (403, FORBIDDEN)
        assert not User.objects.filter(username="floater").exists()
    colleague = UserFactory(company=company)
    before = state(colleague)
    response = client.patch(f"/api/v1/users/{colleague.pk}", {"company_id": other_company.pk, "jobtitle": "x"},
                            format="json")
    assert response.status_code == 403 and state(colleague) == before
    # Snipe-IT's company_ids[] is not a field here: it cannot smuggle a company in either.
    response = client.post("/api/v1/users", {**body, "company_ids": [other_company.pk]}, format="json")
    assert User.objects.get(username="floater").company == company


def test_cve_2026_55643_users_without_company_are_not_floaters(make_client, fmcs_on, company):
    """Users with company_id NULL skipped the per-object check: leaked PII, allowed edits, deletes, transfers."""
    client = make_client(UserFactory(company=company, permissions={**USER_MANAGER, "assets.view": 1,
                                                                   "assets.checkout": 1}))
    floater = UserFactory(username="floater", company=None)
    before = state(floater)
    rows = client.get("/api/v1/users", {"limit": 500}).json()["rows"]
    assert floater.pk not in {row["id"] for row in rows}
    assert client.get(f"/api/v1/users/{floater.pk}").json()["status"] == "error"
    assert client.patch(f"/api/v1/users/{floater.pk}", {"email": "x@evil.test"}, format="json").json()[
        "status"] == "error"
    assert client.delete(f"/api/v1/users/{floater.pk}").json()["status"] == "error"
    asset = AssetFactory(company=company)
    response = client.post(f"/api/v1/hardware/{asset.pk}/checkout", {"assigned_user": floater.pk}, format="json")
    assert response.json()["status"] == "error"
    asset.refresh_from_db()
    assert asset.assigned_user is None and state(floater) == before


def test_cve_2026_44832_users_edit_cannot_grant_admin(make_client, user):
    """A user with users.edit could PATCH permissions[admin]=1; only superuser was stripped."""
    client = make_client(UserFactory(permissions=dict(USER_MANAGER)))
    before = state(user)
    assert client.patch(f"/api/v1/users/{user.pk}", {"permissions": {"admin": 1}}, format="json").status_code == 403
    assert client.patch(f"/api/v1/users/{user.pk}?permissions[admin]=1").status_code == 403
    assert client.patch(f"/api/v1/users/{user.pk}", {"permissions": '{"admin": "1"}'},
                        format="json").status_code == 403
    assert state(user) == before


def test_cve_2026_48493_nobody_grants_themselves_permissions(make_client):
    """users.edit + api could PATCH their own record to grant themselves any non-admin permission."""
    me = UserFactory(permissions=dict(USER_MANAGER))
    client = make_client(me)
    before = state(me)
    for grant in ({**USER_MANAGER, "assets.delete": 1}, {**USER_MANAGER, "reports.view": 1},
                  {**USER_MANAGER, "companies.edit": 1}):
        assert client.patch(f"/api/v1/users/{me.pk}", {"permissions": grant}, format="json").status_code == 403
    assert state(me) == before


def test_ghsa_5448_low_privileged_user_cannot_take_over_the_super_admin(make_client):
    """Mass assignment: a low-privileged user changed the super admin's e-mail, then reset the password."""
    admin = UserFactory(username="superadmin", superuser=True)
    me = UserFactory(permissions=dict(USER_MANAGER))
    client = make_client(me)
    before = state(admin)
    for body in ({"email": "attacker@evil.test"}, {"password": "attacker-pass-1"}, {"username": "gone"},
                 {"activated": False}):
        assert client.patch(f"/api/v1/users/{admin.pk}", body, format="json").status_code == 403
    assert client.delete(f"/api/v1/users/{admin.pk}").status_code == 403
    assert state(admin) == before
    # Privileged attributes outside the allowlist are never assigned, not even on one's own record.
    response = client.patch(f"/api/v1/users/{me.pk}", {"is_superuser": True, "is_staff": True, "deleted_at": None,
                                                       "created_by": admin.pk, "password_hash": "x",
                                                       "company": 1, "superuser": 1}, format="json")
    assert response.json()["status"] == "success"
    me.refresh_from_db()
    assert not me.is_superuser and me.permissions == USER_MANAGER and me.created_by is None


def test_cve_2024_5685_users_edit_cannot_change_group_memberships(make_client, user):
    """User:edit + Self:api could promote or demote anyone by changing group memberships over the API."""
    admins = PermissionGroupFactory(name="Admins", permissions={"superuser": 1})
    member = UserFactory()
    member.groups.add(admins)
    me = UserFactory(permissions=dict(USER_MANAGER))
    client = make_client(me)
    assert client.patch(f"/api/v1/users/{user.pk}", {"groups": [admins.pk]}, format="json").status_code == 403
    assert client.patch(f"/api/v1/users/{me.pk}", {"groups": [admins.pk]}, format="json").status_code == 403
    assert client.patch(f"/api/v1/users/{member.pk}", {"groups": None}, format="json").status_code == 403
    assert client.patch(f"/api/v1/groups/{admins.pk}", {"permissions": {}}, format="json").status_code == 403
    assert client.post("/api/v1/groups", {"name": "Mine", "permissions": {"superuser": 1}},
                       format="json").status_code == 403
    assert not user.groups.exists() and not me.groups.exists() and list(member.groups.all()) == [admins]
    assert PermissionGroup.objects.get(pk=admins.pk).permissions == {"superuser": 1}
    assert not PermissionGroup.objects.filter(name="Mine").exists()


def test_snipeit_4277_admins_cannot_check_out_to_users_of_other_companies(make_client, fmcs_on, company,
                                                                           other_company):
    """Admins could check items out to users of other companies."""
    client = make_client(UserFactory(company=company, permissions={"admin": 1}))
    asset = AssetFactory(company=company)
    stranger = UserFactory(company=other_company)
    foreign_asset = AssetFactory(company=other_company)
    for body in ({"assigned_user": stranger.pk}, {"assigned_asset": foreign_asset.pk}):
        response = client.post(f"/api/v1/hardware/{asset.pk}/checkout", body, format="json")
        assert response.json()["status"] == "error"
    asset.refresh_from_db()
    assert asset.assigned_target is None


def test_snipeit_15654_asset_create_ignores_arbitrary_company_id_of_non_super_users(make_client, fmcs_on, company,
                                                                                     other_company):
    """API asset create accepted an arbitrary company_id for non-superusers."""
    client = make_client(UserFactory(company=company, permissions={"assets.create": 1, "assets.view": 1,
                                                                   "assets.edit": 1}))
    model = AssetFactory(company=company).model
    response = client.post("/api/v1/hardware", {"asset_tag": "X-1", "model_id": model.pk,
                                                 "status_id": StatusLabelFactory().pk,
                                                 "company_id": other_company.pk}, format="json")
    assert response.json()["status"] == "success"
    created = Asset.objects.get(asset_tag="X-1")
    assert created.company == company
    client.patch(f"/api/v1/hardware/{created.pk}", {"company_id": other_company.pk}, format="json")
    created.refresh_from_db()
    assert created.company == company
    assert not Asset.objects.filter(company=other_company).exists()


def test_snipeit_15252_activity_is_not_visible_across_companies(make_client, fmcs_on, company, other_company):
    """Activity was partly visible across companies."""
    mine, theirs = AssetFactory(company=company), AssetFactory(company=other_company)
    for asset in (mine, theirs):
        ActionLog.objects.create(action_type="update", item_type="asset", item_id=asset.pk, company=asset.company,
                                 action_date=timezone.now())
    client = make_client(UserFactory(company=company, permissions={"reports.view": 1, "assets.view": 1}))
    rows = client.get("/api/v1/reports/activity").json()["rows"]
    assert {row["item"]["id"] for row in rows} == {mine.pk}
    assert client.get(f"/api/v1/hardware/{theirs.pk}/history").json()["status"] == "error"
