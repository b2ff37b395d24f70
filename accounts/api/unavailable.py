"""Snipe-IT routes whose feature this server does not have yet: they answer "not configured", never a 404 or a 500.

Each view checks who may call it exactly as Snipe-IT does (the permission key, then the record), and only then
refuses with :class:`NotConfiguredError`, the documented error envelope whose HTTP status follows
``API_ERROR_STATUS`` (200 in ``compat`` mode, 409 in ``http`` mode). The issue that builds a feature replaces its
view here (and the route's line in ``tests/compat/test_snipeit_routes.py`` keeps walking it):

- sign-in records (issue 30): ``GET /settings/login-attempts`` (super users).

The directory's routes (``users/ldapsync``, ``settings/ldaptest``, ``settings/ldaptestlogin``) moved to
``accounts/api/ldap.py``; they still answer :data:`DIRECTORY_NOT_CONFIGURED` while ``LDAP_SERVER_URI`` is empty.

Snipe-IT v8.1.4 has no acceptance or EULA route in its API, so there is none here.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from accounts.ldap.services import DIRECTORY_NOT_CONFIGURED
from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.permissions import HasItemPermission, IsSuperUser
from assetsvc.api.viewsets import ApiView
from assetsvc.exceptions import ConflictError

LOGIN_ATTEMPTS_NOT_RECORDED = "Login attempts are not recorded on this server: it has no LDAP or password sign-in."

#: The answer is always the error envelope (its 409 in ``http`` mode is added with every operation's errors).
NOT_CONFIGURED_RESPONSES = {200: OpenApiTypes.OBJECT}


__all__ = ["DIRECTORY_NOT_CONFIGURED", "LOGIN_ATTEMPTS_NOT_RECORDED", "LoginAttemptsView", "NotConfiguredError"]


class NotConfiguredError(ConflictError):
    """The server has no such feature configured: a state error, 409 in ``http`` mode."""

    default_code = "not_configured"


class SuperUserOnlyView(ApiView):
    """The ``settings/...`` tools: Snipe-IT's ``authorize:superuser`` group."""

    permission_section = None  # not a permission key: super users only
    permission_classes = [HasItemPermission, IsSuperUser]


class LoginAttemptsView(SuperUserOnlyView):
    @extend_schema(operation_id="settings_login_attempts", responses=NOT_CONFIGURED_RESPONSES)
    def get(self, request):
        raise NotConfiguredError(LOGIN_ATTEMPTS_NOT_RECORDED)


_SUPER = "Super users only; everyone else gets 403."
register_operation_texts({
    "settings_login_attempts": OperationText(
        "Recent sign-in attempts", "Answers \"" + LOGIN_ATTEMPTS_NOT_RECORDED + "\"", _SUPER),
})
