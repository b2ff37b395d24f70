"""The SCIM verbs, over the accounts services: every guard of ``accounts.services`` (company rules 7 and 8, nobody
takes over a user with more rights, only super users change group membership and never their own, no
self-deactivation) applies, each write is one transaction with its action-log rows, and deactivating revokes the
user's tokens there."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction

from accounts.departments import department_create
from accounts.models import Department, PermissionGroup, User
from accounts.scim.errors import ScimError
from accounts.services import group_create, group_update, user_create, user_update
from companies.models import Company
from companies.querysets import may_manage_user_companies


def _department(*, actor: User, name: str, company_id: int | None) -> Department | None:
    """The department called ``name`` (ignoring case) of the user's company (or one without a company), created in
    that company when there is none: the directory names departments, it cannot know our ids."""
    if not name:
        return None
    found = (Department.objects.restrict(actor).filter(name__iexact=name, company_id=company_id).order_by("pk").first()
             or Department.objects.restrict(actor).filter(name__iexact=name, company__isnull=True)
             .order_by("pk").first())
    if found is not None:
        return found
    company = None
    if company_id is not None:
        company = Company.objects.get(pk=company_id)
    return department_create(actor=actor, data={"name": name, "company": company})


def _with_department(*, actor: User, values: dict[str, Any], company_id: int | None) -> dict[str, Any]:
    if "department" not in values:
        return values
    return {**values, "department": _department(actor=actor, name=values["department"], company_id=company_id)}


@transaction.atomic
def scim_user_create(*, actor: User, values: dict[str, Any]) -> User:
    """A provisioned user: in the caller's company when separation limits the caller (rule 7), without a company for
    anyone else; no password (they sign in through the directory), no permissions, no groups."""
    company_id = None if may_manage_user_companies(actor) else actor.company_id
    values = _with_department(actor=actor, values=values, company_id=company_id)
    return user_create(actor=actor, data={**values, "password": None})


@transaction.atomic
def scim_user_update(*, actor: User, user: User, values: dict[str, Any]) -> User:
    """Replace (PUT) or patch the attributes in ``values``; ``activated: False`` deactivates and revokes every token."""
    values = _with_department(actor=actor, values=values, company_id=user.company_id)
    return user_update(actor=actor, user=user, data=values)


def scim_user_deactivate(*, actor: User, user: User) -> User:
    """SCIM's DELETE: our people own history (checkouts, the action log), so they are deactivated, never deleted;
    they stay on the offboarding lists while they hold items."""
    return user_update(actor=actor, user=user, data={"activated": False})


def ensure_super_user(actor: User) -> None:
    """Groups are permission groups: as ``/api/v1/groups`` and the group guards of ``accounts.services``, only a
    super user changes them or their members."""
    if not actor.is_superuser:
        raise PermissionDenied("groups")


@transaction.atomic
def scim_group_create(*, actor: User, name: str) -> PermissionGroup:
    """A group the directory pushes is created with no permissions: a super user grants them here, explicitly."""
    ensure_super_user(actor)
    return group_create(actor=actor, data={"name": name, "permissions": {}})


def _members(*, actor: User, ids: list[str]) -> list[User]:
    wanted = {int(value) for value in ids if value.isdigit()}
    found = list(User.objects.alive().restrict(actor).filter(pk__in=wanted)) if wanted else []
    if len(found) != len(set(ids)):
        raise ScimError("A member is not a known user.", scim_type="invalidValue")
    return found


@transaction.atomic
def scim_group_change(*, actor: User, group: PermissionGroup, change: dict[str, Any]) -> PermissionGroup:
    """Rename and change the members of ``group``. Each member's groups change through ``user_update``, so its
    guards apply per person: nobody changes their own groups (a token cannot put its own user in a group), and only
    a super user changes anyone's."""
    ensure_super_user(actor)
    if change.get("name") is not None and change["name"] != group.name:
        group = group_update(actor=actor, group=group, data={"name": change["name"]})
    current = set(group.users.filter(deleted_at__isnull=True).values_list("pk", flat=True))
    if change.get("replace") is not None:
        wanted = {user.pk for user in _members(actor=actor, ids=change["replace"])}
    else:
        wanted = set(current)
    wanted |= {user.pk for user in _members(actor=actor, ids=change.get("add", []))}
    wanted -= {int(value) for value in change.get("remove", []) if value.isdigit()}
    for user in User.objects.filter(pk__in=wanted ^ current).order_by("pk"):
        groups = set(user.groups.all())
        groups = groups | {group} if user.pk in wanted else groups - {group}
        user_update(actor=actor, user=user, data={"groups": sorted(groups, key=lambda g: g.pk)})
    return group
