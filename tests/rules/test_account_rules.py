"""The guards of ``accounts.services``: tokens, privilege escalation, rule 8 and the user lifecycle. Each test fails
when one check is flipped, dropped, or its ``and``/``or`` swapped (docs/testing.md). Escalations are refused with
``PermissionDenied`` (403) and write nothing."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from accounts import services
from accounts.models import PersonalAccessToken, User
from activity.models import ActionLog
from tests.factories import AssetFactory, CompanyFactory, LocationFactory, PermissionGroupFactory, UserFactory
from tests.factories.inventory import checked_out_asset
from tests.rules.helpers import denied, field_error, refused

pytestmark = pytest.mark.django_db

AccessToken = get_access_token_model()


def plain_oauth_token(user: User) -> object:
    """An access token issued through an OAuth flow (no personal-token record)."""
    app = get_application_model().objects.create(
        name="third party", client_type="confidential", authorization_grant_type="client-credentials"
    )
    return AccessToken.objects.create(user=user, application=app, token=uuid.uuid4().hex,
                                      expires=timezone.now() + dt.timedelta(days=1), scope="")


def editor(company=None, **extra) -> User:
    return UserFactory(company=company,
                       permissions={"users.edit": 1, "users.create": 1, "users.delete": 1, **extra})


# --- tokens ---------------------------------------------------------------------------------------------------------


def test_revoke_only_ones_own_token_by_a_valid_id():
    owner, other = UserFactory(), UserFactory()
    record, _raw = services.personal_token_issue(user=owner)
    for bad in ("not-a-uuid", None, str(uuid.uuid4())):
        refused(lambda b=bad: services.personal_token_revoke(user=owner, token_id=b), "not_found")
    refused(lambda: services.personal_token_revoke(user=other, token_id=record.pk), "not_found")
    assert AccessToken.objects.filter(pk=record.access_token_id).exists()
    services.personal_token_revoke(user=owner, token_id=str(record.pk))
    record.refresh_from_db()
    assert record.revoked is True and record.access_token_id is None
    assert not AccessToken.objects.filter(user=owner).exists()
    services.personal_token_revoke(user=owner, token_id=record.pk)  # again: still fine


def test_token_delete_removes_the_secret_first():
    owner = UserFactory()
    record, _raw = services.personal_token_issue(user=owner)
    services.personal_token_delete(token=record)
    assert not PersonalAccessToken.objects.exists() and not AccessToken.objects.exists()
    services.personal_token_delete(token=record)  # already gone: nothing to do


def test_active_tokens_are_neither_revoked_nor_expired():
    owner = UserFactory()
    live, _ = services.personal_token_issue(user=owner, name="live")
    revoked, _ = services.personal_token_issue(user=owner, name="revoked")
    services.personal_token_revoke(user=owner, token_id=revoked.pk)
    expired, _ = services.personal_token_issue(user=owner, name="expired")
    PersonalAccessToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    services.personal_token_issue(user=UserFactory(), name="someone else's")
    assert [t.name for t in services.personal_tokens_active(user=owner)] == ["live"]


def test_revoke_all_tokens_also_deletes_plain_oauth_tokens():
    owner, bystander = UserFactory(), UserFactory()
    services.personal_token_issue(user=owner)
    services.personal_token_issue(user=owner)
    plain_oauth_token(owner)
    kept = plain_oauth_token(bystander)
    assert services.revoke_all_tokens_of(owner) == 2
    assert not AccessToken.objects.filter(user=owner).exists()
    assert AccessToken.objects.filter(pk=kept.pk).exists()
    assert services.revoke_all_tokens_of(owner) == 0  # revoked records are not counted twice


# --- escalation guards ----------------------------------------------------------------------------------------------


def test_user_outranks_and_ensure_may_manage():
    actor = editor()
    weaker = UserFactory(permissions={"users.edit": 1})
    stronger = UserFactory(permissions={"users.edit": 1, "reports.view": 1})
    assert services.user_outranks(weaker, actor) is False
    assert services.user_outranks(stronger, actor) is True
    assert services.user_outranks(stronger, UserFactory(superuser=True)) is False
    services.ensure_may_manage(actor=actor, target=weaker)
    services.ensure_may_manage(actor=actor, target=actor)
    denied(lambda: services.ensure_may_manage(actor=actor, target=stronger))


def test_permission_change_guards():
    actor = editor(**{"assets.view": 1})
    target = UserFactory(permissions={"assets.edit": 1})
    services.ensure_permission_change_allowed(actor=actor, target=target, new={"assets.edit": "1", "x": 0})  # same
    denied(lambda: services.ensure_permission_change_allowed(actor=actor, target=actor, new={}))  # own
    denied(lambda: services.ensure_permission_change_allowed(actor=actor, target=target, new={"admin": 1}))
    denied(lambda: services.ensure_permission_change_allowed(actor=actor, target=None, new={"superuser": 1}))
    denied(lambda: services.ensure_permission_change_allowed(actor=actor, target=target,
                                                             new={"assets.edit": 1, "reports.view": 1}))
    # granting a key the caller holds, keeping one they do not, and denying one are all fine
    services.ensure_permission_change_allowed(actor=actor, target=target,
                                              new={"assets.edit": 1, "assets.view": 1, "reports.view": -1})
    boss = UserFactory(superuser=True)
    services.ensure_permission_change_allowed(actor=boss, target=target, new={"admin": 1})
    denied(lambda: services.ensure_permission_change_allowed(actor=boss, target=boss, new={"admin": 1}))


def test_group_change_guard():
    group = PermissionGroupFactory()
    boss, actor = UserFactory(superuser=True), editor()
    target = UserFactory()
    target.groups.add(group)
    services.ensure_group_change_allowed(actor=actor, target=target, new_ids={group.pk})  # unchanged
    services.ensure_group_change_allowed(actor=actor, target=None, new_ids=set())
    denied(lambda: services.ensure_group_change_allowed(actor=actor, target=target, new_ids=set()))
    services.ensure_group_change_allowed(actor=boss, target=target, new_ids=set())
    services.ensure_group_change_allowed(actor=boss, target=None, new_ids={group.pk})
    denied(lambda: services.ensure_group_change_allowed(actor=boss, target=boss, new_ids={group.pk}))


def test_company_input_guard_rule_8(fmcs_on, company, other_company):
    member = editor(company=company)
    allowed = services.ensure_company_input_allowed
    allowed(actor=member, data={}, current_company_id=company.pk, creating=False)
    allowed(actor=member, data={"company_id": company.pk}, current_company_id=company.pk, creating=False)
    allowed(actor=member, data={"company_id": f" {company.pk} "}, current_company_id=company.pk, creating=False)
    allowed(actor=member, data={"company_id": None}, current_company_id=company.pk, creating=True)
    for raw in (other_company.pk, str(other_company.pk), None, [company.pk], "x"):
        denied(lambda r=raw: allowed(actor=member, data={"company_id": r}, current_company_id=company.pk,
                                     creating=False))
    allowed(actor=UserFactory(superuser=True), data={"company_id": other_company.pk}, current_company_id=None,
            creating=False)
    services.ensure_company_change_allowed(actor=member, current_company_id=company.pk, new_company_id=company.pk)
    denied(lambda: services.ensure_company_change_allowed(actor=member, current_company_id=company.pk,
                                                          new_company_id=other_company.pk))
    services.ensure_company_change_allowed(actor=UserFactory(), current_company_id=company.pk,
                                           new_company_id=other_company.pk)


# --- create / update ------------------------------------------------------------------------------------------------


def user_data(**extra):
    return {"username": f"new{uuid.uuid4().hex[:6]}", "password": "correct horse battery", **extra}


def test_create_company_rule_7_and_8(fmcs_on, company, other_company):
    member = editor(company=company)
    denied(lambda: services.user_create(actor=member, data=user_data(company=other_company)))
    made = services.user_create(actor=member, data=user_data(company=None))
    assert made.company_id == company.pk
    same = services.user_create(actor=member, data=user_data(company=company))
    assert same.company_id == company.pk
    chosen = services.user_create(actor=UserFactory(superuser=True), data=user_data(company=other_company))
    assert chosen.company_id == other_company.pk
    none = services.user_create(actor=UserFactory(superuser=True), data=user_data())
    assert none.company_id is None


def test_create_username_and_activation():
    UserFactory(username="taken")
    UserFactory(username="ghost", deleted_at=timezone.now())
    actor = UserFactory(superuser=True)
    assert field_error(lambda: services.user_create(actor=actor, data=user_data(username="TAKEN")), "username")
    revived = services.user_create(actor=actor, data=user_data(username="ghost", activated=False, first_name=None))
    assert revived.is_active is False and revived.first_name == ""


def test_update_guards(company, other_company):
    actor = UserFactory(superuser=True)
    gone = UserFactory(deleted_at=timezone.now())
    refused(lambda: services.user_update(actor=actor, user=gone, data={"first_name": "x"}), "user_deleted")
    refused(lambda: services.user_update(actor=actor, user=User(pk=987654), data={}), "not_found")
    err = refused(lambda: services.user_update(actor=actor, user=actor, data={"activated": False}), "invalid")
    assert "deactivate yourself" in err.message
    services.user_update(actor=actor, user=actor, data={"activated": True, "first_name": "Me"})
    UserFactory(username="taken")
    target = UserFactory(username="mine")
    field_error(lambda: services.user_update(actor=actor, user=target, data={"username": "Taken"}), "username")
    services.user_update(actor=actor, user=target, data={"username": "MINE"})
    target.refresh_from_db()
    assert target.username == "MINE"


def test_update_of_a_stronger_user_is_refused():
    actor = editor()
    stronger = UserFactory(permissions={"users.edit": 1, "reports.view": 1}, first_name="Kept")
    denied(lambda: services.user_update(actor=actor, user=stronger, data={"first_name": "Taken over"}))
    stronger.refresh_from_db()
    assert stronger.first_name == "Kept"


def test_update_company_rule_8_and_items_of_another_company(fmcs_on, company, other_company):
    member = editor(company=company)
    colleague = UserFactory(company=company)
    denied(lambda: services.user_update(actor=member, user=colleague, data={"company": other_company}))
    boss = UserFactory(superuser=True)
    checked_out_asset(colleague, company=company)
    refused(lambda: services.user_update(actor=boss, user=colleague, data={"company": other_company}), "invalid")
    colleague.refresh_from_db()
    assert colleague.company_id == company.pk
    services.user_update(actor=boss, user=colleague, data={"company": company})  # unchanged: fine
    free = UserFactory(company=company)
    checked_out_asset(free, company=other_company)
    services.user_update(actor=boss, user=free, data={"company": other_company})
    free.refresh_from_db()
    assert free.company_id == other_company.pk
    log = ActionLog.objects.get(item_type="user", item_id=free.pk)
    assert log.log_meta["company_id"] == {"old": company.pk, "new": other_company.pk}


def test_update_company_with_separation_off_ignores_items(site_settings, company, other_company):
    boss = UserFactory(superuser=True)
    holder = UserFactory(company=company)
    checked_out_asset(holder, company=company)
    services.user_update(actor=boss, user=holder, data={"company": other_company})
    holder.refresh_from_db()
    assert holder.company_id == other_company.pk


def test_update_location_moves_checked_out_assets():
    boss, holder = UserFactory(superuser=True), UserFactory()
    place = LocationFactory()
    mine, theirs = checked_out_asset(holder), AssetFactory()
    services.user_update(actor=boss, user=holder, data={"location": place})
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.location_id, theirs.location_id) == (place.pk, None)


def test_update_permissions_and_groups_pass_the_guards():
    actor = editor()
    target = UserFactory()
    denied(lambda: services.user_update(actor=actor, user=target, data={"permissions": {"reports.view": 1}}))
    denied(lambda: services.user_update(actor=actor, user=target, data={"groups": [PermissionGroupFactory()]}))
    target.refresh_from_db()
    assert target.permissions == {} and not target.groups.exists()


def test_deactivation_revokes_every_token():
    boss, target = UserFactory(superuser=True), UserFactory()
    services.personal_token_issue(user=target)
    plain_oauth_token(target)
    services.user_update(actor=boss, user=target, data={"first_name": "still active"})
    assert AccessToken.objects.filter(user=target).count() == 2
    services.user_update(actor=boss, user=target, data={"activated": False})
    assert not AccessToken.objects.filter(user=target).exists()
    assert PersonalAccessToken.objects.get(user=target).revoked is True


# --- delete / restore -----------------------------------------------------------------------------------------------


def test_delete_guards():
    actor = editor()
    refused(lambda: services.user_delete(actor=actor, user=actor), "delete_self")
    stronger = UserFactory(permissions={"reports.view": 1})
    denied(lambda: services.user_delete(actor=actor, user=stronger))
    gone = UserFactory(deleted_at=timezone.now())
    refused(lambda: services.user_delete(actor=actor, user=gone), "user_deleted")
    refused(lambda: services.user_delete(actor=actor, user=User(pk=987654)), "not_found")
    holder = UserFactory()
    checked_out_asset(holder)
    err = refused(lambda: services.user_delete(actor=actor, user=holder), "user_has_items")
    assert err.message == "This user still has an asset assigned. Please check it in first."
    checked_out_asset(holder)
    assert "2 assets" in refused(lambda: services.user_delete(actor=actor, user=holder), "user_has_items").message
    manager = UserFactory()
    LocationFactory(manager=manager)
    refused(lambda: services.user_delete(actor=actor, user=manager), "user_manages_locations")
    for user in (stronger, holder, manager):
        user.refresh_from_db()
        assert user.deleted_at is None


def test_delete_ignores_deleted_assets_and_revokes_tokens():
    actor = editor()
    target = UserFactory()
    checked_out_asset(target, deleted_at=timezone.now())
    services.personal_token_issue(user=target)
    plain_oauth_token(target)
    services.user_delete(actor=actor, user=target)
    target.refresh_from_db()
    assert target.deleted_at is not None
    assert not AccessToken.objects.filter(user=target).exists()


def test_restore_of_a_deleted_admin_by_a_weaker_user_is_refused():
    actor = editor()
    admin = UserFactory(permissions={"admin": 1}, deleted_at=timezone.now())
    denied(lambda: services.user_restore(actor=actor, user=admin))
    admin.refresh_from_db()
    assert admin.deleted_at is not None
    services.user_restore(actor=UserFactory(superuser=True), user=admin)
    admin.refresh_from_db()
    assert admin.deleted_at is None


def test_restore_guards():
    actor = UserFactory(superuser=True)
    refused(lambda: services.user_restore(actor=actor, user=UserFactory()), "user_not_deleted")
    refused(lambda: services.user_restore(actor=actor, user=User(pk=987654)), "not_found")
    UserFactory(username="twin")
    ghost = UserFactory(username="TWIN", deleted_at=timezone.now())
    refused(lambda: services.user_restore(actor=actor, user=ghost), "username_taken")
    free = UserFactory(username="free", deleted_at=timezone.now())
    services.user_restore(actor=actor, user=free)
    assert ActionLog.objects.filter(action_type="restore", item_id=free.pk).exists()


def test_group_update_of_a_vanished_group():
    group = PermissionGroupFactory()
    pk = group.pk
    group.delete()
    group.pk = pk
    refused(lambda: services.group_update(actor=UserFactory(superuser=True), group=group, data={"name": "x"}),
            "not_found")


def test_group_names_are_unique_and_notes_kept():
    boss = UserFactory(superuser=True)
    group = services.group_create(actor=boss, data={"name": "Staff", "notes": "desk",
                                                     "permissions": {"assets.view": 1}})
    assert (group.notes, group.permissions) == ("desk", {"assets.view": 1})
    assert services.group_create(actor=boss, data={"name": "Empty", "notes": None}).notes == ""
    field_error(lambda: services.group_create(actor=boss, data={"name": "Staff"}), "name")
    other = services.group_create(actor=boss, data={"name": "Other"})
    field_error(lambda: services.group_update(actor=boss, group=other, data={"name": "Staff"}), "name")
    services.group_update(actor=boss, group=group, data={"notes": "moved", "permissions": None})
    group.refresh_from_db()
    assert (group.name, group.notes, group.permissions) == ("Staff", "moved", {})
    services.group_update(actor=boss, group=group, data={"notes": None, "name": "Renamed"})
    group.refresh_from_db()
    assert (group.name, group.notes) == ("Renamed", "")


def test_personal_tokens_share_one_client():
    first = services.personal_access_client()
    assert services.personal_access_client() == first
    services.personal_token_issue(user=UserFactory())
    assert get_application_model().objects.count() == 1


def test_a_new_user_is_active_unless_told_otherwise():
    assert services.user_create(actor=UserFactory(superuser=True), data=user_data()).is_active is True


def test_update_blanks_logs_and_clears():
    boss = UserFactory(superuser=True)
    firm = CompanyFactory()
    target = UserFactory(first_name="Ann", employee_num="E1", company=firm, permissions={})
    place = LocationFactory()
    services.user_update(actor=boss, user=target, data={"first_name": None, "employee_num": None, "location": place,
                                                        "permissions": {"assets.view": 1}})
    target.refresh_from_db()
    assert (target.first_name, target.employee_num, target.location_id) == ("", None, place.pk)
    meta = ActionLog.objects.get(item_type="user", item_id=target.pk).log_meta
    assert meta["location_id"] == {"old": None, "new": place.pk}
    assert meta["permissions"] == {"old": {}, "new": {"assets.view": 1}}
    services.user_update(actor=boss, user=target, data={"location": None, "company": None,
                                                        "permissions": {"assets.view": "1"}})
    target.refresh_from_db()
    assert target.location_id is None and target.company_id is None
    meta = ActionLog.objects.filter(item_type="user", item_id=target.pk).latest("id").log_meta
    # "1" is the same permission as 1: not a change
    assert meta == {"location_id": {"old": place.pk, "new": None}, "company_id": {"old": firm.pk, "new": None}}
