"""Snipe-IT's permission keys and their one evaluation (reference §7, API-CONTRACT.md §7).

Values in a permission map are integers: ``1`` grants, ``-1`` denies explicitly (beating every group), ``0`` or
absent inherits from the groups. ``superuser`` passes everything; ``admin`` passes every item permission
(``<section>.<verb>`` of an item section) except ``assets.view.encrypted_custom_fields``, and none of the
``self.*``/``reports``/``import`` abilities.
"""

from __future__ import annotations

from typing import Any

from assetsvc.typing import Actor

ITEM_SECTIONS: dict[str, tuple[str, ...]] = {
    "assets": ("view", "create", "edit", "delete", "checkout", "checkin", "audit", "view.requestable",
               "view.encrypted_custom_fields"),
    "accessories": ("view", "create", "edit", "delete", "checkout", "checkin", "files"),
    "consumables": ("view", "create", "edit", "delete", "checkout", "checkin", "files"),
    "licenses": ("view", "create", "edit", "delete", "checkout", "keys", "files"),
    "components": ("view", "create", "edit", "delete", "checkout", "checkin", "files"),
    "kits": ("view", "create", "edit", "delete"),
    "users": ("view", "create", "edit", "delete"),
    "models": ("view", "create", "edit", "delete"),
    "categories": ("view", "create", "edit", "delete"),
    "departments": ("view", "create", "edit", "delete"),
    "statuslabels": ("view", "create", "edit", "delete"),
    "customfields": ("view", "create", "edit", "delete"),
    "suppliers": ("view", "create", "edit", "delete"),
    "manufacturers": ("view", "create", "edit", "delete"),
    "depreciations": ("view", "create", "edit", "delete"),
    "locations": ("view", "create", "edit", "delete"),
    "companies": ("view", "create", "edit", "delete"),
    # not a Snipe-IT section: it checks asset keys for maintenances, which also grant these (docs/decisions.md)
    "maintenances": ("view", "create", "edit", "delete"),
}
#: Abilities that ``admin`` does not imply (Gate-defined in Snipe-IT).
GATE_KEYS = ("import", "reports.view", "self.two_factor", "self.api", "self.edit_location", "self.checkout_assets",
             "self.view_purchase_cost")
#: Item keys that ``admin`` does not pass either: reading and writing encrypted custom fields is a Gate ability in
#: Snipe-IT, granted only by ``superuser`` or explicitly (API-CONTRACT.md §11.1).
NOT_FROM_ADMIN_KEYS = frozenset({"assets.view.encrypted_custom_fields"})
ITEM_KEYS = tuple(f"{section}.{verb}" for section, verbs in ITEM_SECTIONS.items() for verb in verbs)
PRIVILEGED_KEYS = ("superuser", "admin")
PERMISSION_KEYS: tuple[str, ...] = PRIVILEGED_KEYS + GATE_KEYS + ITEM_KEYS
PERMISSION_KEY_SET = frozenset(PERMISSION_KEYS)
ALLOWED_VALUES = (-1, 0, 1)


def normalize_permission_value(value: Any) -> int | None:
    """Accept Snipe-IT's spellings (``"1"``, ``1``, ``true``, ``"-1"``); return None for anything else."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int):
        return value if value in ALLOWED_VALUES else None
    if isinstance(value, str) and value.strip() in {"1", "0", "-1"}:
        return int(value.strip())
    return None


#: Why a permission map is refused (the API's and the admin's messages; ``{name}`` is the offending key).
PERMISSION_MAP_MESSAGES = {
    "not_a_dict": "The permissions must be an object.",
    "unknown_key": 'The permission "{name}" does not exist.',
    "bad_value": 'The permission "{name}" must be 1, 0 or -1.',
}


class PermissionMapError(ValueError):
    """A permission map with an unknown key or value; ``code`` is a key of :data:`PERMISSION_MAP_MESSAGES`."""

    def __init__(self, code: str, name: str = "") -> None:
        self.code = code
        self.name = name
        super().__init__(PERMISSION_MAP_MESSAGES[code].format(name=name))


def clean_permission_map(data: Any) -> dict[str, int]:
    """The one rule for a stored permission map: an object of known keys to ``1``, ``0`` or ``-1`` (Snipe-IT's
    ``"1"``/``true`` spellings normalised). Shared by the API's ``PermissionsField`` and the services, so the admin
    and commands cannot store junk keys either. Raises :class:`PermissionMapError`."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PermissionMapError("not_a_dict")
    out: dict[str, int] = {}
    for key, value in data.items():
        if key not in PERMISSION_KEY_SET:
            raise PermissionMapError("unknown_key", str(key)[:100])
        normalized = normalize_permission_value(value)
        if normalized is None:
            raise PermissionMapError("bad_value", key)
        out[key] = normalized
    return out


def _evaluate(own: dict[str, int], groups: list[dict[str, int]], key: str) -> bool:
    value = own.get(key, 0)
    if value == 1:
        return True
    if value == -1:
        return False
    return any(group.get(key, 0) == 1 for group in groups)


def _normalized(perms: dict | None) -> dict[str, int]:
    return {k: normalize_permission_value(v) or 0 for k, v in (perms or {}).items()}


def _maps(user: Actor) -> tuple[dict[str, int], list[dict[str, int]]]:
    cached = getattr(user, "_permission_maps", None)
    if cached is None:
        groups = user.groups.values_list("permissions", flat=True) if user.pk else ()
        cached = remember_group_permissions(user, groups)
    return cached


def remember_group_permissions(user: Actor, groups) -> tuple[dict[str, int], list[dict[str, int]]]:
    """Keep the permission maps of ``user``'s groups (read by the caller, e.g. with the bearer token in one query)
    for this request's checks."""
    cached = (_normalized(user.permissions), [_normalized(perms) for perms in groups])
    user._permission_maps = cached
    return cached


def forget_permissions(user: Actor) -> None:
    user.__dict__.pop("_permission_maps", None)


def is_superuser(user: Actor) -> bool:
    if user is None or not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        return False
    own, groups = _maps(user)
    return _evaluate(own, groups, "superuser")


def has_access(user: Actor, key: str) -> bool:
    """The one permission check: superuser passes all; admin passes item keys (not those of
    :data:`NOT_FROM_ADMIN_KEYS`); -1 denies; groups grant."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    own, groups = _maps(user)
    if _evaluate(own, groups, "superuser"):
        return True
    if key in ITEM_KEYS and key not in NOT_FROM_ADMIN_KEYS and _evaluate(own, groups, "admin"):
        return True
    return _evaluate(own, groups, key)


# --- the Django admin (back office) -------------------------------------------------------------------------------

#: The Django permission actions (``<action>_<model>`` codenames).
ADMIN_SITE_ACTIONS = frozenset({"view", "add", "change", "delete"})
#: What an administrator who is not a super user (the ``admin`` key) may do in the Django admin: app label → model
#: name (``"*"``: every model of the app) → actions. Anything not listed is refused: companies, site settings,
#: webhook deliveries, permission groups, personal access tokens, adding or changing users. Users are viewable only so
#: that the admin's user pickers (autocomplete, which checks the user admin's view permission) work. Labels are
#: strings: this layer imports no app above it.
ADMIN_SITE_RIGHTS: dict[str, dict[str, frozenset[str]]] = {
    "inventory": {"*": ADMIN_SITE_ACTIONS},
    "activity": {"actionlog": frozenset({"view"}), "storedfile": frozenset({"view", "delete"})},
    "accounts": {"user": frozenset({"view"}), "department": ADMIN_SITE_ACTIONS},
    # The mail log (issue 29), read-only and limited to the administrator's company under separation.
    "notifications": {"outboundmail": frozenset({"view"})},
}


def may_use_admin_site(user: Actor | None) -> bool:
    """Whether ``user`` signs in to the Django admin (``is_staff``): active, not deleted, and holding ``admin`` (or
    ``superuser``, which passes every key) in their own map or a group, not denied by their own ``-1``."""
    if user is None or not getattr(user, "is_active", False) or getattr(user, "deleted_at", None) is not None:
        return False
    return has_access(user, "admin")


def admin_site_allows(user: Actor | None, perm: str) -> bool:
    """Django's ``user.has_perm("<app_label>.<action>_<model>")`` for the admin: everything for a super user who may
    sign in; for any other administrator, what :data:`ADMIN_SITE_RIGHTS` lists; nothing for anyone else."""
    if not may_use_admin_site(user):
        return False
    if is_superuser(user):
        return True
    app_label, _, codename = str(perm).partition(".")
    action, _, model_name = codename.partition("_")
    rights = ADMIN_SITE_RIGHTS.get(app_label, {})
    return action in rights.get(model_name, rights.get("*", frozenset()))


def admin_site_allows_app(user: Actor | None, app_label: str) -> bool:
    """Django's ``user.has_module_perms(app_label)``: whether the app is shown in the admin at all."""
    if not may_use_admin_site(user):
        return False
    return is_superuser(user) or app_label in ADMIN_SITE_RIGHTS
