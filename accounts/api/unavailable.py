"""Snipe-IT routes whose feature this server does not have yet: they answer "not configured", never a 404 or a 500.

Each view checks who may call it exactly as Snipe-IT does (the permission key, then the record), and only then
refuses with :class:`NotConfiguredError`, the documented error envelope whose HTTP status follows
``API_ERROR_STATUS`` (200 in ``compat`` mode, 409 in ``http`` mode). The issue that builds a feature replaces its
view here (and the route's line in ``tests/compat/test_snipeit_routes.py`` keeps walking it):

- the directory (issue 30): ``POST /users/ldapsync`` (``users.edit``, as Snipe-IT's LDAP import),
  ``GET /settings/ldaptest`` (v8.1.4's method; ``POST`` too), ``POST /settings/ldaptestlogin`` (super users).

Snipe-IT v8.1.4 has no acceptance or EULA route in its API, so there is none here.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.permissions import HasItemPermission, IsSuperUser
from assetsvc.api.viewsets import ApiView
from assetsvc.exceptions import ConflictError

DIRECTORY_NOT_CONFIGURED = "LDAP is not configured on this server."

#: The answer is always the error envelope (its 409 in ``http`` mode is added with every operation's errors).
NOT_CONFIGURED_RESPONSES = {200: OpenApiTypes.OBJECT}


class NotConfiguredError(ConflictError):
    """The server has no such feature configured: a state error, 409 in ``http`` mode."""

    default_code = "not_configured"


class SuperUserOnlyView(ApiView):
    """The ``settings/...`` tools: Snipe-IT's ``authorize:superuser`` group."""

    permission_section = None  # not a permission key: super users only
    permission_classes = [HasItemPermission, IsSuperUser]


class UserLdapSyncView(ApiView):
    """``POST /users/ldapsync``: Snipe-IT's LDAP import (``users.edit``). The path comes before ``users/{id}``; its
    other methods answer 405 (no user is called "ldapsync")."""

    permission_section = "users"
    action = "ldapsync"
    action_permissions = {"ldapsync": "edit"}

    @extend_schema(operation_id="users_ldap_sync", request=None, responses=NOT_CONFIGURED_RESPONSES)
    def post(self, request):
        raise NotConfiguredError(DIRECTORY_NOT_CONFIGURED)


class LdapTestView(SuperUserOnlyView):
    """Snipe-IT v8.1.4 routes ``GET``; issue 27 names ``POST``: both answer the same."""

    @extend_schema(operation_id="settings_ldap_test", request=None, responses=NOT_CONFIGURED_RESPONSES)
    def get(self, request):
        raise NotConfiguredError(DIRECTORY_NOT_CONFIGURED)

    @extend_schema(operation_id="settings_ldap_test_post", request=None, responses=NOT_CONFIGURED_RESPONSES)
    def post(self, request):
        raise NotConfiguredError(DIRECTORY_NOT_CONFIGURED)


class LdapTestLoginView(SuperUserOnlyView):
    @extend_schema(operation_id="settings_ldap_test_login", request=None, responses=NOT_CONFIGURED_RESPONSES)
    def post(self, request):
        raise NotConfiguredError(DIRECTORY_NOT_CONFIGURED)


_SUPER = "Super users only; everyone else gets 403."
register_operation_texts({
    "users_ldap_sync": OperationText(
        "Import users from LDAP", "Answers the error envelope \"" + DIRECTORY_NOT_CONFIGURED + "\" until a "
        "directory is set up on this server."),
    "settings_ldap_test": OperationText(
        "Test the LDAP connection", "Answers \"" + DIRECTORY_NOT_CONFIGURED + "\" until a directory is set up.",
        _SUPER),
    "settings_ldap_test_post": OperationText(
        "Test the LDAP connection (POST)", "The same as GET.", _SUPER),
    "settings_ldap_test_login": OperationText(
        "Test an LDAP sign-in", "Answers \"" + DIRECTORY_NOT_CONFIGURED + "\" until a directory is set up.",
        _SUPER),
})
