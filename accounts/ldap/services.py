"""The directory's writes: ``ldap_sync`` (``manage.py ldap_sync``, ``POST /users/ldapsync``) and the user a directory
sign-in gives (``ldap_login_user``), plus the read-only checks behind ``/settings/ldaptest`` and ``ldaptestlogin``.

Rules (docs/directory.md):

- Only users that came from the directory (``User.ldap_import``) are updated or deactivated; a local user of the same
  username, and every super user, are never touched (reported as skipped).
- Directory data fills the mapped fields only: never permissions, groups, the super-user key or a password.
- Gone from the directory (under the base and filter) or disabled there: deactivated and their tokens revoked,
  never deleted. Nothing here activates a user again (not a sync, not a sign-in): that stays an administrator's
  decision, so a local deactivation of a leaver holds while the directory still lists them.
- Company, department and location are matched by name (ignoring case) among existing records; an unknown or
  ambiguous name leaves the field empty and is reported. A department or location of another company than the
  user's is not taken (company separation).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower

from accounts.holdings import holds_items_of_other_company, move_held_items
from accounts.ldap import directory
from accounts.ldap.config import LdapConfig, ldap_config
from accounts.models import Department, User
from accounts.services import _save_user, revoke_all_tokens_of
from assetsvc.exceptions import ConflictError
from assetsvc.registry import entries
from assetsvc.site import get_site_settings
from companies.models import Company

if TYPE_CHECKING:
    from accounts.ldap.directory import DirectoryPerson

logger = logging.getLogger(__name__)

DIRECTORY_NOT_CONFIGURED = "LDAP is not configured on this server."
TEXT_FIELDS = ("first_name", "last_name", "email", "employee_num", "phone", "jobtitle")
#: ``register_entry(LOOKUP_STORE, "location", resolve)``: ``resolve(name, company_id) -> Location | None``, filled by
#: inventory (Location lives above accounts).
LOOKUP_STORE = "directory_lookups"
USERNAME_MAX = User._meta.get_field("username").max_length


class DirectoryNotConfiguredError(ConflictError):
    """``LDAP_SERVER_URI`` is empty (the routes' "not configured" answer)."""

    default_code = "not_configured"


@dataclass
class SyncReport:
    """What a sync did (or, with ``dry_run``, would do): usernames per outcome and what it could not match."""

    dry_run: bool = False
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deactivated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    unmatched: list[dict[str, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"created": len(self.created), "updated": len(self.updated), "deactivated": len(self.deactivated),
                "unchanged": len(self.unchanged), "skipped": len(self.skipped)}

    def as_dict(self) -> dict[str, Any]:
        return {"dry_run": self.dry_run, **self.counts(), "created_users": self.created,
                "updated_users": self.updated, "deactivated_users": self.deactivated,
                "skipped_users": self.skipped, "unmatched": self.unmatched}


def enabled_config() -> LdapConfig:
    config = ldap_config()
    if not config.enabled:
        raise DirectoryNotConfiguredError(DIRECTORY_NOT_CONFIGURED)
    return config


def one_by_name(queryset, name: str, company_id: int | None):
    """The one record called ``name`` that a user of ``company_id`` may be in: of that company, else of none."""
    candidates = list(queryset.filter(Q(company_id=company_id) | Q(company__isnull=True), name__iexact=name)[:3])
    own = [record for record in candidates if record.company_id == company_id]
    pool = own or candidates
    return pool[0] if len(pool) == 1 else None


def _company(name: str) -> Company | None:
    matches = list(Company.objects.filter(name__iexact=name)[:2])
    return matches[0] if len(matches) == 1 else None


def _location(name: str, company_id: int | None):
    resolve = entries(LOOKUP_STORE).get("location")
    return resolve(name, company_id) if resolve is not None else None


def _field_max(name: str) -> int | None:
    return User._meta.get_field(name).max_length


def _apply(user: User, person: DirectoryPerson, config: LdapConfig, report: SyncReport) -> dict[str, Any]:
    """Set the mapped fields of ``user`` from ``person``; the changes as ``{field: {"old", "new"}}``."""
    changes: dict[str, dict[str, Any]] = {}

    def change(name: str, old: Any, new: Any) -> None:
        if old != new:
            changes[name] = {"old": old, "new": new}

    def unmatched(kind: str, value: str, why: str = "no such record") -> None:
        report.unmatched.append({"username": person.username, "field": kind, "value": value, "reason": why})

    if user.username != person.username:
        change("username", user.username, person.username)
        user.username = person.username
    for name in TEXT_FIELDS:
        if not config.attribute_of(name):
            continue
        value = (person.values.get(name) or "")[: _field_max(name)]
        if name == "employee_num":
            value = value or None
        change(name, getattr(user, name), value)
        setattr(user, name, value)

    if config.attribute_of("company"):
        name = person.values.get("company")
        company = _company(name) if name else None
        if name and company is None:
            unmatched("company", name)
        new_id = company.pk if company else None
        if new_id != user.company_id and user.pk and get_site_settings().full_multiple_companies_support \
                and holds_items_of_other_company(user, new_id):
            unmatched("company", name or "", "holds items of another company: company kept")
        else:
            change("company_id", user.company_id, new_id)
            user.company_id = new_id
    if config.attribute_of("department"):
        name = person.values.get("department")
        department = one_by_name(Department.objects.all(), name, user.company_id) if name else None
        if name and department is None:
            unmatched("department", name)
        new_id = department.pk if department else None
        change("department_id", user.department_id, new_id)
        user.department_id = new_id
    if config.attribute_of("location"):
        name = person.values.get("location")
        location = _location(name, user.company_id) if name else None
        if name and location is None:
            unmatched("location", name)
        new_id = location.pk if location else None
        if new_id != user.location_id:
            change("location_id", user.location_id, new_id)
            user.location = location
            if user.pk:
                move_held_items(user, location)  # as a location edit does (accounts.services.user_update)
    return changes


def _log(action: str, user: User, actor: User | None, meta: dict | None = None, note: str = "") -> None:
    from activity.services import log_action

    log_action(action_type=action, item_type="user", item_id=user.pk, target_type="user", target_id=user.pk,
               actor=actor, company_id=user.company_id, item=user, target=user, log_meta=meta or None,
               note=note or "From the directory (LDAP).")


def _set_active(user: User, active: bool, changes: dict) -> None:
    if user.is_active != active:
        changes["activated"] = {"old": user.is_active, "new": active}
        user.is_active = active


def _save(user: User, changes: dict, actor: User | None, created: bool = False, note: str = "") -> None:
    _save_user(user)
    if not user.is_active:
        revoke_all_tokens_of(user)
    if created:
        _log("create", user, actor)
    elif changes:
        _log("update", user, actor, changes, note)


def _managed(user: User) -> bool:
    """Directory data reaches only users it created, and never a super user."""
    return user.ldap_import and not user.is_superuser


def _create(person: DirectoryPerson, config: LdapConfig, report: SyncReport, actor: User | None) -> User:
    user = User(username=person.username, ldap_import=True, created_by=actor)
    user.set_unusable_password()
    _apply(user, person, config, report)
    _save(user, {}, actor, created=True)
    return user


def _people(config: Any) -> list[DirectoryPerson]:
    """Everyone the directory's base and filter find, through one bound connection (closed whatever happens)."""
    connection = directory.connect(config)
    try:
        return directory.search_people(connection, config)
    finally:
        connection.unbind()


def ldap_sync(*, actor: User | None = None, dry_run: bool = False) -> SyncReport:
    """Create, update and deactivate users from the directory, in one transaction (``dry_run``: rolled back, the
    report says what would change). A second run with nothing changed in the directory reports all unchanged."""
    config = enabled_config()
    people = _people(config)
    report = SyncReport(dry_run=dry_run)
    by_name: dict[str, list[DirectoryPerson]] = {}
    for person in people:
        by_name.setdefault(person.username.lower(), []).append(person)

    with transaction.atomic():
        alive = User.objects.alive().select_for_update().annotate(username_lower=Lower("username"))
        locals_by_name = {user.username.lower(): user for user in alive.filter(ldap_import=True)}
        names = sorted(by_name)
        for start in range(0, len(names), 500):  # usernames match ignoring case, as sign-in does
            for user in alive.filter(username_lower__in=names[start:start + 500]):
                locals_by_name[user.username.lower()] = user

        for name, group in sorted(by_name.items()):
            if len(group) > 1:
                report.skipped.append({"username": group[0].username,
                                       "reason": "several directory entries have this username"})
                continue
            person = group[0]
            if len(person.username) > USERNAME_MAX:
                report.skipped.append({"username": person.username[:USERNAME_MAX],
                                       "reason": f"a username longer than {USERNAME_MAX} characters"})
                continue
            user = locals_by_name.get(name)
            if user is None:
                if person.disabled:
                    continue  # nobody to create: a disabled account never seen here
                _create(person, config, report, actor)
                report.created.append(person.username)
                continue
            if not _managed(user):
                reason = ("a super user: never changed by the directory" if user.is_superuser
                          else "a local user, not from the directory")
                if user.is_superuser and person.disabled and user.is_active:
                    reason += "; disabled there: deactivate them here by hand if they left"
                report.skipped.append({"username": user.username, "reason": reason})
                continue
            was_active = user.is_active
            changes = _apply(user, person, config, report)
            if person.disabled:
                _set_active(user, False, changes)
            if changes:
                _save(user, changes, actor, note="Disabled in the directory (LDAP)." if "activated" in changes else "")
                (report.deactivated if was_active and not user.is_active else report.updated).append(user.username)
            else:
                report.unchanged.append(user.username)

        for name, user in sorted(locals_by_name.items()):
            if name in by_name or not user.ldap_import or not user.is_active:
                continue
            if user.is_superuser:
                report.skipped.append({"username": user.username, "reason": (
                    "a super user: never changed by the directory; gone from it: deactivate them here by hand if "
                    "they left")})
                continue
            changes: dict[str, Any] = {}
            _set_active(user, False, changes)
            _save(user, changes, actor, note="Gone from the directory (LDAP).")
            report.deactivated.append(user.username)
        if dry_run:
            transaction.set_rollback(True)
    logger.info("ldap_sync%s: %s", " (dry run)" if dry_run else "", report.counts())
    return report


def ldap_login_user(person: DirectoryPerson) -> User | None:
    """The user a directory sign-in of ``person`` gives, created or updated from the entry; ``None`` for a disabled
    person and for a local user of the same username (their own password signs them in, never the directory's). A
    super user who came from the directory signs in with it, their row untouched."""
    if person.disabled or len(person.username) > USERNAME_MAX:
        return None
    config = ldap_config()
    report = SyncReport()
    with transaction.atomic():
        user = User.objects.alive().select_for_update().filter(username__iexact=person.username).first()
        if user is None:
            user = _create(person, config, report, None)
        elif not user.ldap_import:
            return None
        elif user.is_superuser:
            return user
        else:
            changes = _apply(user, person, config, report)
            if changes:
                _save(user, changes, None)
    return user


def ldap_test() -> dict[str, Any]:
    """Connect, bind as the service account and search once: ``{"users": n}``. Raises ``LDAPException``."""
    config = enabled_config()
    people = _people(config)
    return {"users": len(people), "disabled": sum(1 for person in people if person.disabled)}


def ldap_test_login(*, username: str, password: str) -> DirectoryPerson | None:
    """A directory sign-in without touching any user here: the person, or ``None`` (unknown or wrong password)."""
    return directory.person_login(enabled_config(), username, password)
