"""The one DRF permission class: Snipe-IT permission keys, evaluated by the ``permission_checker`` hook that
``accounts`` registers (``accounts.permissions.has_access``)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework.permissions import BasePermission

from assetsvc.registry import hook

#: Viewset action → permission verb; custom actions declare theirs in ``view.action_permissions``.
DEFAULT_ACTION_VERBS = {
    "list": "view",
    "retrieve": "view",
    "create": "create",
    "update": "edit",
    "partial_update": "edit",
    "destroy": "delete",
    "metadata": "view",  # OPTIONS: describing an endpoint needs the right to see it
}
METHOD_VERBS = {"GET": "view", "HEAD": "view", "OPTIONS": "view", "POST": "create", "PUT": "edit", "PATCH": "edit",
                "DELETE": "delete"}


def required_permission(request, view) -> str | None:
    """The key a request needs, or None when being authenticated is enough.

    A view must say which section it belongs to (``permission_section``, None for "any authenticated user");
    a view that says nothing is refused, so a new endpoint cannot be open by accident.
    """
    if not hasattr(view, "permission_section"):
        raise ImproperlyConfigured(f"{type(view).__name__} must declare permission_section")
    section = view.permission_section
    if section is None:
        return None
    action = getattr(view, "action", None)
    custom = getattr(view, "action_permissions", {}) or {}
    if action in custom:
        key = custom[action]
        if key is None:
            return None
        if key not in hook("permission_keys"):
            key = f"{section}.{key}"
    elif action in DEFAULT_ACTION_VERBS:
        key = f"{section}.{DEFAULT_ACTION_VERBS[action]}"
    elif action is None:
        key = f"{section}.{METHOD_VERBS.get(request.method, 'edit')}"
    else:
        raise ImproperlyConfigured(f"{type(view).__name__}.{action} has no entry in action_permissions")
    if key not in hook("permission_keys") and key not in getattr(view, "extra_permission_keys", ()):
        raise ImproperlyConfigured(f"unknown permission key {key!r}")
    return key


class HasItemPermission(BasePermission):
    def has_permission(self, request, view) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        key = required_permission(request, view)
        return key is None or hook("permission_checker")(user, key)


class IsSuperUser(BasePermission):
    """Super users only (the ``superuser`` key; ``admin`` does not pass): groups, backups, the settings tools."""

    #: What the API docs say of who may call a view guarded by this class.
    consumer_access = "Super users only; everyone else gets 403."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and getattr(user, "is_superuser", False))
