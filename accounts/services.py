"""Domain verbs of accounts: personal access tokens, users and permission groups."""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

from accounts import permissions as perms
from accounts.departments import ensure_department_fits
from accounts.holdings import blocking_holdings, holds_items_of_other_company, move_held_items
from accounts.models import Department, PermissionGroup, PersonalAccessToken, User
from assetsvc.conf import app_settings
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import lock_or_not_found, save_unique
from assetsvc.site import get_site_settings
from assetsvc.typing import Actor
from companies.querysets import may_manage_user_companies

PERSONAL_CLIENT_NAME = "Personal Access Client"
DEFAULT_TOKEN_NAME = "Auth Token"


def _add_years(moment: datetime, years: int) -> datetime:
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February into a year without one
        return moment.replace(year=moment.year + years, day=28)


def personal_access_client():
    """The one OAuth client that personal access tokens belong to (created on first use)."""
    Application = get_application_model()
    client = Application.objects.filter(name=PERSONAL_CLIENT_NAME, user__isnull=True).order_by("id").first()
    if client is None:
        client = Application.objects.create(
            name=PERSONAL_CLIENT_NAME,
            client_id=str(uuid.uuid4()),
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
            skip_authorization=True,
        )
    return client


@transaction.atomic
def personal_token_issue(*, user: User, name: str = DEFAULT_TOKEN_NAME) -> tuple[PersonalAccessToken, str]:
    """Create a personal access token for ``user``; return the record and the raw value (shown once, never
    stored: the database keeps only its SHA-256 checksum)."""
    raw = secrets.token_urlsafe(48)
    now = timezone.now()
    expires = _add_years(now, app_settings.API_TOKEN_EXPIRATION_YEARS)
    client = personal_access_client()
    AccessToken = get_access_token_model()
    access_token = AccessToken(user=user, application=client, expires=expires, scope="")
    set_token_value(access_token, raw)
    access_token.save()
    record = PersonalAccessToken.objects.create(
        user=user, application=client, access_token=access_token, name=name, expires_at=expires
    )
    return record, raw


@transaction.atomic
def personal_token_revoke(*, user: User, token_id: str | uuid.UUID) -> PersonalAccessToken:
    """Revoke one of ``user``'s tokens: the DOT access token is deleted, so the next request with it fails."""
    try:
        token_uuid = uuid.UUID(str(token_id))
    except (ValueError, TypeError, AttributeError) as exc:
        raise NotFoundError("Token not found.") from exc
    record = (
        PersonalAccessToken.objects.select_for_update(of=("self",)).filter(pk=token_uuid, user=user).select_related(
            "access_token").first()
    )
    if record is None:
        raise NotFoundError("Token not found.")
    if record.access_token_id is not None:
        record.access_token.delete()
    record.access_token = None
    record.revoked = True
    record.save(update_fields=["access_token", "revoked", "updated_at"])
    return record


@transaction.atomic
def personal_token_delete(*, token: PersonalAccessToken) -> None:
    """Delete a token record (the admin's delete): the DOT access token goes first, so the value stops working on
    the next request; deleting only the record would leave a working secret behind."""
    locked = PersonalAccessToken.objects.select_for_update(of=("self",)).filter(pk=token.pk).first()
    if locked is None:
        return
    if locked.access_token_id is not None:
        get_access_token_model().objects.filter(pk=locked.access_token_id).delete()
    locked.delete()


def personal_tokens_active(*, user: User):
    """The caller's tokens that are neither revoked nor expired, newest first."""
    return PersonalAccessToken.objects.filter(
        user=user, revoked=False, expires_at__gt=timezone.now()
    ).select_related("application").order_by("-created_at", "-id")


def revoke_all_tokens_of(user: User) -> int:
    """Used when a user is deleted or deactivated: no token of theirs may work again."""
    count = 0
    for record in PersonalAccessToken.objects.filter(user=user, revoked=False):
        personal_token_revoke(user=user, token_id=record.pk)
        count += 1
    get_access_token_model().objects.filter(user=user).delete()
    return count






# Users and permission groups ------------------------------------------------------------------------------------------
#
# Every guard against privilege escalation lives here, so the API, the admin and commands share them
# (docs/companies-and-users.md "Privilege rules"). A refused escalation is PermissionDenied (403 "Insufficient
# permissions.") and nothing is written.

USER_NOT_FOUND = "User does not exist or you do not have permission view them."
USER_DELETED = "This user has been deleted. You will have to restore this user to edit them or assign them new assets."
USER_NOT_DELETED = "The User was not deleted and therefore cannot be restored"
CANNOT_DELETE_YOURSELF = "We would feel really bad if you deleted yourself, please reconsider."
CANNOT_DEACTIVATE_YOURSELF = "You cannot deactivate yourself."
MULTI_COMPANY_ITEMS = (
    "This user has items assigned that belong to a different company. Please check them in or edit their company."
)
USERNAME_TAKEN = "The username must be unique."
GROUP_NOT_FOUND = "Group not found"
#: Laravel's ``exists`` words, as for the other ids a user refers to (an unknown, deleted or invisible user).
MANAGER_NOT_FOUND = "The selected manager id is invalid."
#: Snipe-IT's words (``UsersController::update``).
OWN_MANAGER = "You cannot be your own manager"
MANAGER_LOOP = "This user is managed, directly or through others, by the user: a manager cannot report to them."
#: The advisory-lock key of manager changes (any constant unique to this purpose): two concurrent changes (A gets
#: manager B, B gets manager A) would each pass the loop check alone.
MANAGER_CHAIN_LOCK = 0x6D616E616765725F & 0x7FFFFFFFFFFFFFFF
#: How many managers up the loop check follows before giving up (a safety net: a stored loop cannot be made here).
MAX_MANAGER_DEPTH = 1000
GROUP_NAME_TAKEN = "The name has already been taken."
USER_FIELDS = ("first_name", "last_name", "username", "email", "employee_num", "jobtitle", "phone", "notes",
               "external_id")


def _has_items_word(count: int, one: str, many: str) -> str:
    return one if count == 1 else many.replace(":count", str(count))


def _permission_values(raw: dict | None) -> dict[str, int]:
    """A stored permission map as ``{key: -1|1}`` (0 and unreadable values mean "inherit", i.e. absent)."""
    out: dict[str, int] = {}
    for key, value in (raw or {}).items():
        normalized = perms.normalize_permission_value(value)
        if normalized:
            out[key] = normalized
    return out


def checked_permissions(raw: Any) -> dict[str, int]:
    """A permission map about to be stored, checked against the known keys and values (the API's serializer runs
    the same rule first; this keeps the admin and commands from storing what the API refuses)."""
    try:
        return perms.clean_permission_map(raw)
    except perms.PermissionMapError as exc:
        raise ValidationError({"permissions": [str(exc)]}) from exc


def user_outranks(target: User, actor: User) -> bool:
    """True when ``target`` holds a right ``actor`` lacks. Changing such a user (their e-mail, password, anything)
    would let ``actor`` take the account over and act with rights they were never given (GHSA-5448-v74m-7mv7),
    so only a super user may."""
    if actor.is_superuser:
        return False
    perms.forget_permissions(target)
    return any(perms.has_access(target, key) and not perms.has_access(actor, key) for key in perms.PERMISSION_KEYS)


def ensure_may_manage(*, actor: User, target: User) -> None:
    if target.pk != actor.pk and user_outranks(target, actor):
        raise PermissionDenied("target holds rights the caller lacks")


def ensure_permission_change_allowed(*, actor: User, target: User | None, new: dict[str, int]) -> None:
    """Nobody changes their own permissions; only super users touch ``superuser`` / ``admin``; a caller grants only
    keys they hold themselves (CVE-2026-44832, CVE-2026-48493)."""
    old = _permission_values(target.permissions if target is not None else {})
    new = _permission_values(new)
    if old == new:
        return
    if target is not None and target.pk == actor.pk:
        raise PermissionDenied("own permissions")
    if actor.is_superuser:
        return
    for key in perms.PRIVILEGED_KEYS:
        if old.get(key, 0) != new.get(key, 0):
            raise PermissionDenied(f"{key} is granted by super users only")
    for key, value in new.items():
        if value == 1 and old.get(key, 0) != 1 and not perms.has_access(actor, key):
            raise PermissionDenied(f"caller does not hold {key}")


def ensure_group_change_allowed(*, actor: User, target: User | None, new_ids: set[int]) -> None:
    """Only super users set groups, and nobody changes their own (CVE-2024-5685)."""
    old_ids = set(target.groups.values_list("pk", flat=True)) if target is not None and target.pk else set()
    if old_ids == new_ids:
        return
    if not actor.is_superuser or (target is not None and target.pk == actor.pk):
        raise PermissionDenied("groups")


def ensure_company_change_allowed(*, actor: User, current_company_id: int | None, new_company_id: Any) -> None:
    """Rule 8: a caller who may not manage users' companies may only keep the current one (CVE-2026-86750: checked
    before anything is saved)."""
    if may_manage_user_companies(actor):
        return
    if new_company_id != current_company_id:
        raise PermissionDenied("rule 8")


def ensure_company_input_allowed(*, actor: User, data: dict[str, Any], current_company_id: int | None,
                                 creating: bool) -> None:
    """Rule 8 on the raw ``company_id`` of a request, before validation, so another company's id answers 403
    exactly like an unknown one (no existence oracle) and nothing is written (CVE-2026-86750). A new user without
    a company gets the caller's (rule 7)."""
    if "company_id" not in data or may_manage_user_companies(actor):
        return
    raw = data["company_id"]
    if raw is None and creating:
        return
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, str) and raw.strip().isdigit():
        value = int(raw.strip())
    else:
        value = raw  # a list, an object, text: it can only differ
    if value != current_company_id:
        raise PermissionDenied("rule 8")


def _user_log(*, action: str, actor: User, user: User, meta: dict | None = None) -> None:
    from activity.services import log_action

    log_action(action_type=action, item_type="user", item_id=user.pk, target_type="user", target_id=user.pk,
               actor=actor, company_id=user.company_id, item=user, target=user, log_meta=meta)


def username_taken(username: str, exclude_pk: int | None) -> bool:
    """Another live user has this username (case-insensitively); certain only under the writes' own checks."""
    queryset = User.objects.alive().filter(username__iexact=username)
    if exclude_pk is not None:
        queryset = queryset.exclude(pk=exclude_pk)
    return queryset.exists()


def _locked_department(department: Department | None) -> Department | None:
    """The department a user is put in, locked until the transaction ends, so a concurrent delete of the department
    (which refuses while it has users) and this write are serialized; gone meanwhile is the unknown-id error."""
    if department is None:
        return None
    return lock_or_not_found(Department, department, lambda: ValidationError(
        {"department_id": ["The selected department id is invalid."]}))


def _serialise_manager_changes() -> None:
    """One transaction-level lock for all manager changes (PostgreSQL advisory lock; SQLite serialises every writer
    anyway), taken before any user row is locked, so two crossing changes wait for each other instead of both
    passing the loop check or deadlocking on each other's rows."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [MANAGER_CHAIN_LOCK])


def checked_manager(*, actor: Actor, user: User | None, manager: User | None) -> User | None:
    """The manager ``user`` (None: a new user) is given, checked and locked until the transaction ends: a live user
    ``actor`` may see (else the unknown-id error, so another company's people are not revealed), not ``user``
    themselves (Snipe-IT's ``cant_manage_self``), and not someone ``user`` manages, directly or through others (a
    loop; Snipe-IT does not check). The API, the admin and the Snipe-IT import all pass here."""
    if manager is None:
        return None
    manager_pk = getattr(manager, "pk", manager)
    if user is not None and user.pk is not None and manager_pk == user.pk:
        raise ValidationError({"manager_id": [OWN_MANAGER]})
    manager = lock_or_not_found(User.objects.restrict(actor).alive(), manager_pk,
                                lambda: ValidationError({"manager_id": [MANAGER_NOT_FOUND]}))
    if user is None or user.pk is None:
        return manager  # nobody reports to a user not yet saved
    above, seen = manager.manager_id, {manager.pk}
    while above is not None and above not in seen and len(seen) < MAX_MANAGER_DEPTH:
        if above == user.pk:
            raise ValidationError({"manager_id": [MANAGER_LOOP]})
        seen.add(above)
        above = User.objects.filter(pk=above).values_list("manager_id", flat=True).first()
    return manager


@transaction.atomic
def user_managers_set(*, actor: Actor, links: dict[int, int]) -> dict[int, str]:
    """Give many users their managers at once (``links``: user id → manager id), with :func:`checked_manager`'s
    rules judged over the whole set in memory: a live user ``actor`` may see, a live manager ``actor`` may see, not
    oneself, no loop (through the stored chains and the links of this call, in their order). Returns user id → why,
    for each link refused; the others are written in one statement, without action-log rows (the Snipe-IT import's
    path, issue 31: 20,000 users' managers one ``user_update`` at a time took minutes)."""
    _serialise_manager_changes()
    ids = set(links) | set(links.values())
    visible = User.objects.restrict(actor).filter(pk__in=ids)
    rows = {pk: (manager_id, deleted_at) for pk, manager_id, deleted_at in
            visible.values_list("pk", "manager_id", "deleted_at")}
    chain = dict(User.objects.exclude(manager__isnull=True).values_list("pk", "manager_id"))
    refused: dict[int, str] = {}
    accepted: dict[int, int] = {}
    for user_id, manager_id in links.items():
        if user_id not in rows or rows[user_id][1] is not None:
            refused[user_id] = USER_DELETED if user_id in rows else USER_NOT_FOUND
            continue
        if manager_id == user_id:
            refused[user_id] = OWN_MANAGER
            continue
        if manager_id not in rows or rows[manager_id][1] is not None:
            refused[user_id] = MANAGER_NOT_FOUND
            continue
        above, seen = manager_id, set()
        while above is not None and above not in seen and len(seen) < MAX_MANAGER_DEPTH:
            if above == user_id:
                break
            seen.add(above)
            above = chain.get(above)
        if above == user_id:
            refused[user_id] = MANAGER_LOOP
            continue
        chain[user_id] = accepted[user_id] = manager_id
    changed = [User(pk=user_id, manager_id=manager_id) for user_id, manager_id in accepted.items()
               if rows[user_id][0] != manager_id]
    User.objects.bulk_update(changed, ["manager_id"], batch_size=1000)
    return refused


def _save_user(user: User) -> None:
    # a concurrent write took the username first
    save_unique(user, lambda exc: ValidationError({"username": [USERNAME_TAKEN]}))


def _new_user_rights(*, actor: Actor, data: dict[str, Any], may_manage: bool | None = None) -> tuple[int | None, dict]:
    """The company and permissions a new user gets from ``data``, through the guards every creation passes: rule 8
    decides who may choose the company (a caller who may not gets their own, rule 7), then the permission and group
    escalation guards. ``may_manage``: :func:`may_manage_user_companies` of ``actor``, when the caller knows it."""
    company = data.get("company")
    company_id = company.pk if company is not None else None
    if not (may_manage_user_companies(actor) if may_manage is None else may_manage):
        if "company" in data and company is not None:
            ensure_company_change_allowed(actor=actor, current_company_id=actor.company_id, new_company_id=company_id)
        company_id = actor.company_id
    permissions = checked_permissions(data.get("permissions"))
    ensure_permission_change_allowed(actor=actor, target=None, new=permissions)
    ensure_group_change_allowed(actor=actor, target=None, new_ids={g.pk for g in data.get("groups") or []})
    return company_id, permissions


def _new_user(*, actor: Actor, data: dict[str, Any], company_id: int | None, department: Department | None,
              manager: User | None, permissions: dict) -> User:
    """The unsaved user of checked ``data`` (no password yet)."""
    return User(
        **{field: data[field] for field in USER_FIELDS if field in data and data[field] is not None},
        company_id=company_id,
        location=data.get("location"),
        department=department,
        manager=manager,
        is_active=data.get("activated", True),
        permissions=permissions,
        created_by=actor if actor.pk else None,
    )


@transaction.atomic
def user_create(*, actor: User, data: dict[str, Any], pk: int | None = None, log: bool = True) -> User:
    """Create a user from validated input. Company: rule 8 decides who may choose it; a caller who may not gets
    their own (rule 7). Permissions and groups pass the escalation guards before anything is saved. ``pk`` and
    ``log=False`` are the Snipe-IT import's (issue 31): the user keeps the id, the history is imported instead; an
    unsaved actor (the import's) is recorded as nobody."""
    company_id, permissions = _new_user_rights(actor=actor, data=data)
    groups = data.get("groups") or []
    if username_taken(data["username"], None):
        raise ValidationError({"username": [USERNAME_TAKEN]})

    department = _locked_department(data.get("department"))
    ensure_department_fits(department=department, company_id=company_id)
    manager = checked_manager(actor=actor, user=None, manager=data.get("manager"))

    user = _new_user(actor=actor, data=data, company_id=company_id, department=department, manager=manager,
                     permissions=permissions)
    if pk is not None:
        user.pk = pk
    user.set_password(data.get("password"))  # none (a provisioned person signs in elsewhere): unusable
    _save_user(user)
    if groups:
        user.groups.set(groups)
    if log:
        _user_log(action="create", actor=actor, user=user)
    return user


@transaction.atomic
def users_create_many(*, actor: Actor, entries: list[dict[str, Any]]) -> tuple[dict[int, User], dict[int, Exception]]:
    """Create many users at once with :func:`user_create`'s checks, judged for the whole list in a fixed number of
    queries: rule 7/8 for the company, the permission and group escalation guards, the username free among live users
    (case-insensitively, the list's own live users included), the department locked and fitting the company, the
    manager checked and locked as :func:`checked_manager` does for a new user; no password (unusable), no action-log
    row. Each entry is ``user_create``'s ``data`` plus, optionally, ``pk`` (the id to keep) and ``deleted_at`` (created
    deleted: its username is then not checked, as the database's rule covers live users only). Returns the created
    users and the refusals (``ValidationError`` or ``PermissionDenied``), each by its index in ``entries``; refused
    entries are not written. The Snipe-IT import's path (issue 31): 20,000 users one ``user_create`` at a time took
    minutes."""
    may_manage = may_manage_user_companies(actor)
    refused: dict[int, Exception] = {}
    departments = {d.pk: d for d in Department.objects.select_for_update().filter(
        pk__in={getattr(e.get("department"), "pk", None) for e in entries} - {None})}
    managers = {m.pk: m for m in User.objects.restrict(actor).alive().select_for_update(of=("self",)).filter(
        pk__in={getattr(e.get("manager"), "pk", e.get("manager")) for e in entries} - {None})}
    live_names = [str(e["username"]).lower() for e in entries if not e.get("deleted_at")]
    taken = {name.lower() for name in User.objects.alive().annotate(_name=Lower("username")).filter(
        _name__in=live_names).values_list("username", flat=True)}
    users: dict[int, User] = {}
    for index, data in enumerate(entries):
        try:
            company_id, permissions = _new_user_rights(actor=actor, data=data, may_manage=may_manage)
            name = str(data["username"]).lower()
            if not data.get("deleted_at") and name in taken:
                raise ValidationError({"username": [USERNAME_TAKEN]})
            department = data.get("department")
            if department is not None:
                department = departments.get(department.pk)
                if department is None:
                    raise ValidationError({"department_id": ["The selected department id is invalid."]})
            ensure_department_fits(department=department, company_id=company_id)
            manager = data.get("manager")
            if manager is not None:
                manager = managers.get(getattr(manager, "pk", manager))
                if manager is None:
                    raise ValidationError({"manager_id": [MANAGER_NOT_FOUND]})
        except (ValidationError, PermissionDenied) as exc:
            refused[index] = exc
            continue
        if not data.get("deleted_at"):
            taken.add(name)
        user = _new_user(actor=actor, data=data, company_id=company_id, department=department, manager=manager,
                         permissions=permissions)
        user.deleted_at = data.get("deleted_at")
        if data.get("pk") is not None:
            user.pk = data["pk"]
        user.set_unusable_password()
        users[index] = user
    created = User.objects.bulk_create(list(users.values()), batch_size=1000)
    memberships = [User.groups.through(user_id=user.pk, permissiongroup_id=group.pk)
                   for user, index in zip(created, users, strict=True) for group in entries[index].get("groups") or []]
    User.groups.through.objects.bulk_create(memberships, batch_size=1000)
    return dict(zip(users, created, strict=True)), refused


@transaction.atomic
def user_update(*, actor: User, user: User, data: dict[str, Any], log: bool = True) -> User:
    """Partial update of ``user`` (already limited to what ``actor`` may see). Guards, in order: the row is live;
    ``actor`` does not take over a user with more rights; rule 8 for the company; permissions and groups; no
    self-deactivation; the manager (:func:`checked_manager`). Deactivating revokes every token of the user.
    ``log=False`` is the Snipe-IT import's (issue 31: it sets users' managers once every user is written, and imports
    the history instead of logging the change)."""
    if data.get("manager") is not None:
        _serialise_manager_changes()
    user = lock_or_not_found(User, user, lambda: NotFoundError(USER_NOT_FOUND))
    if user.deleted_at is not None:
        raise ConflictError(USER_DELETED, code="user_deleted", messages={"deleted_at": [USER_DELETED]})
    ensure_may_manage(actor=actor, target=user)
    if "company" in data:
        new_company = data["company"]
        new_company_id = new_company.pk if new_company is not None else None
        ensure_company_change_allowed(actor=actor, current_company_id=user.company_id, new_company_id=new_company_id)
    if "permissions" in data:
        data = {**data, "permissions": checked_permissions(data["permissions"])}
        ensure_permission_change_allowed(actor=actor, target=user, new=data["permissions"])
    if "groups" in data:
        ensure_group_change_allowed(actor=actor, target=user, new_ids={g.pk for g in data["groups"] or []})
    if user.pk == actor.pk and data.get("activated") is False:
        raise InvalidInputError(CANNOT_DEACTIVATE_YOURSELF, messages={"activated": [CANNOT_DEACTIVATE_YOURSELF]})
    if "username" in data and username_taken(data["username"], user.pk):
        raise ValidationError({"username": [USERNAME_TAKEN]})

    changes: dict[str, dict[str, Any]] = {}

    def change(field: str, old: Any, new: Any) -> None:
        if old != new:
            changes[field] = {"old": old, "new": new}

    for field in USER_FIELDS:
        if field in data:
            value = data[field]
            if value is None and field != "employee_num":
                value = ""
            change(field, getattr(user, field), value)
            setattr(user, field, value)
    if "company" in data and data["company"] != user.company:
        new_company_id = data["company"].pk if data["company"] is not None else None
        if get_site_settings().full_multiple_companies_support and holds_items_of_other_company(user, new_company_id):
            raise InvalidInputError(MULTI_COMPANY_ITEMS, messages={"company_id": [MULTI_COMPANY_ITEMS]})
        change("company_id", user.company_id, new_company_id)
        user.company_id = new_company_id
    if "department" in data or "company" in data:
        department = _locked_department(data["department"]) if "department" in data else user.department
        ensure_department_fits(department=department, company_id=user.company_id,
                               field="department_id" if "department" in data else "company_id")
        if "department" in data and user.department_id != (department.pk if department else None):
            change("department_id", user.department_id, department.pk if department else None)
            user.department = department
    if "location" in data and data["location"] != user.location:
        new_location = data["location"]
        change("location_id", user.location_id, new_location.pk if new_location else None)
        user.location = new_location
        # Snipe-IT moves the assets checked out to the user along with them.
        move_held_items(user, new_location)
    if "manager" in data:
        manager = checked_manager(actor=actor, user=user, manager=data["manager"])
        new_manager_id = manager.pk if manager is not None else None
        change("manager_id", user.manager_id, new_manager_id)
        user.manager = manager
    if "activated" in data:
        change("activated", user.is_active, data["activated"])
        user.is_active = data["activated"]
    if "permissions" in data:
        new_permissions = data["permissions"] or {}
        if _permission_values(new_permissions) != _permission_values(user.permissions):
            change("permissions", user.permissions, new_permissions)
        user.permissions = new_permissions
    if data.get("password"):
        user.set_password(data["password"])
        changes["password"] = {"old": "*", "new": "*"}
    _save_user(user)
    if "groups" in data:
        user.groups.set(data["groups"] or [])
    perms.forget_permissions(user)
    if not user.is_active:
        revoke_all_tokens_of(user)
    if changes and log:
        _user_log(action="update", actor=actor, user=user, meta=changes)
    return user


PROFILE_MANAGED = "Your profile is managed by your directory: change it there."
PROFILE_LOCATION_DENIED = "You may not change your location."


def profile_managed_by_directory(user: User) -> bool:
    """The directory keeps ``user``'s profile: imported from LDAP (``ldap_import``) or provisioned by SCIM (an
    ``external_id``). A change made here would be overwritten at the next sync, so none is taken."""
    return bool(user.ldap_import or user.external_id)


@transaction.atomic
def user_profile_update(*, user: User, actor: User, first_name: str, last_name: str, phone: str,
                        location: Any) -> User:
    """A person's change to their own profile (the employees' portal, issue 32): names and phone; the location only
    with ``self.edit_location`` (Snipe-IT's Gate); nothing when the directory manages the profile; the e-mail never.
    Written by :func:`user_update` (the row locked, one ``update`` row in the action log listing what changed, the
    held items moved along with a new location)."""
    locked = lock_or_not_found(User, user, lambda: NotFoundError(USER_NOT_FOUND))
    if locked.pk != actor.pk:
        raise PermissionDenied("a profile is changed by its owner only")
    if profile_managed_by_directory(locked):
        raise ConflictError(PROFILE_MANAGED, code="profile_managed")
    data: dict[str, Any] = {"first_name": first_name, "last_name": last_name, "phone": phone}
    if getattr(location, "pk", location) != locked.location_id:
        if not perms.has_access(actor, "self.edit_location"):
            raise PermissionDenied(PROFILE_LOCATION_DENIED)
        data["location"] = location
    return user_update(actor=actor, user=locked, data=data)


@transaction.atomic
def user_delete(*, actor: User, user: User) -> None:
    """Soft-delete ``user`` and revoke their tokens. Refused for oneself, a user with more rights than the caller,
    an already deleted user, and a user who still holds assets or manages locations (Snipe-IT DeleteUserRequest)."""
    user = lock_or_not_found(User, user, lambda: NotFoundError(USER_NOT_FOUND))
    if user.pk == actor.pk:
        raise ConflictError(CANNOT_DELETE_YOURSELF, code="delete_self", messages={"user": [CANNOT_DELETE_YOURSELF]})
    ensure_may_manage(actor=actor, target=user)
    if user.deleted_at is not None:
        raise ConflictError(USER_DELETED, code="user_deleted", messages={"deleted_at": [USER_DELETED]})
    for holding, count in blocking_holdings(user):
        one, many = holding.blocks_delete
        text = _has_items_word(count, one, many)
        raise ConflictError(text, code=holding.code, messages={holding.messages_key: [text]})
    user.deleted_at = timezone.now()
    user.save(update_fields=["deleted_at", "updated_at"])
    revoke_all_tokens_of(user)
    _user_log(action="delete", actor=actor, user=user)


@transaction.atomic
def user_restore(*, actor: User, user: User) -> User:
    """Bring a soft-deleted user back, if their username is still free."""
    user = lock_or_not_found(User, user, lambda: NotFoundError(USER_NOT_FOUND))
    ensure_may_manage(actor=actor, target=user)
    if user.deleted_at is None:
        raise ConflictError(USER_NOT_DELETED, code="user_not_deleted")
    if username_taken(user.username, user.pk):
        raise ConflictError(USERNAME_TAKEN, code="username_taken", messages={"username": [USERNAME_TAKEN]})
    user.deleted_at = None
    _save_user(user)
    _user_log(action="restore", actor=actor, user=user)
    return user


def _save_group(group: PermissionGroup) -> None:
    save_unique(group, lambda exc: ValidationError({"name": [GROUP_NAME_TAKEN]}))


@transaction.atomic
def group_create(*, actor: User, data: dict[str, Any], pk: int | None = None) -> PermissionGroup:
    """Create a permission group (super users only: the view refuses everyone else). ``pk``: the Snipe-IT import
    keeps the group's id (issue 31); an unsaved actor (the import's) is recorded as nobody."""
    group = PermissionGroup(
        pk=pk, name=data["name"], permissions=checked_permissions(data.get("permissions")),
        notes=data.get("notes") or "", created_by=actor if actor.pk else None,
    )
    _save_group(group)
    return group


@transaction.atomic
def group_update(*, actor: User, group: PermissionGroup, data: dict[str, Any]) -> PermissionGroup:
    group = lock_or_not_found(PermissionGroup, group, lambda: NotFoundError(GROUP_NOT_FOUND))
    if "name" in data:
        group.name = data["name"]
    if "permissions" in data:
        group.permissions = checked_permissions(data["permissions"])
    if "notes" in data:
        group.notes = data["notes"] or ""
    _save_group(group)
    return group


@transaction.atomic
def group_delete(*, actor: User, group: PermissionGroup) -> None:
    """Hard delete, as Snipe-IT; memberships go with it."""
    PermissionGroup.objects.filter(pk=group.pk).delete()
