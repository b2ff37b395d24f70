"""Bearer authentication with personal access tokens (DOT access tokens, stored as SHA-256 checksums only).

The token is resolved once per request (the rate limiter needs the user before the view runs); DRF's
authentication class reuses that result.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from django.db import DEFAULT_DB_ALIAS
from django.db.models import F, Func, Subquery, TextField
from django.db.models.functions import JSONObject
from django.utils import timezone
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from oauth2_provider.models import get_access_token_model
from rest_framework.exceptions import AuthenticationFailed

from accounts.permissions import remember_group_permissions
from assetsvc.api.exceptions import INVALID_TOKEN
from assetsvc.prepared import CompiledValues
from assetsvc.site import remember_site_settings

if TYPE_CHECKING:
    from accounts.models import User

MAX_TOKEN_LENGTH = 512


@dataclass(frozen=True)
class BearerResult:
    """``supplied`` is False when the request carries no bearer token at all; ``user`` is set only when valid."""

    supplied: bool
    user: User | None = None
    token: object | None = None


NO_TOKEN = BearerResult(supplied=False)
INVALID = BearerResult(supplied=True)


#: The columns of the token and its personal-token record a request reads (its expiry, the record's revocation).
TOKEN_COLUMNS = ("id", "expires", "personal_token__id", "personal_token__revoked")


class GroupPermissionMaps(Func):
    """The permission maps of every group of the token's user, as one JSON array (text): a correlated subquery, so
    the groups ride in the token's query instead of a query of their own."""

    output_field = TextField()

    def as_sql(self, compiler, connection, **extra_context):
        from accounts.models import PermissionGroup, User

        through = User.groups.through._meta
        group_fk = through.get_field("permissiongroup").column
        user_fk = through.get_field("user").column
        value = "json_group_array(json(g.permissions))"
        if connection.vendor == "postgresql":
            value = "COALESCE(json_agg(g.permissions), '[]')::text"
        user_sql, params = compiler.compile(self.source_expressions[0])
        sql = (f"(SELECT {value} FROM {PermissionGroup._meta.db_table} g JOIN {through.db_table} ug "
               f"ON ug.{group_fk} = g.id WHERE ug.{user_fk} = {user_sql})")
        return sql, params


def _site_settings_json():
    from assetsvc.models import SiteSettings

    fields = {field.attname: F(field.attname) for field in SiteSettings._meta.concrete_fields}
    return Subquery(SiteSettings.objects.filter(pk=1).order_by().values(row=JSONObject(**fields))[:1])


def _request_context(checksum: str):
    """Everything a bearer request needs before its view runs, in one query: the token, its personal-token
    record, the whole user (``request.user``: permissions, company, names), the user's group permissions and the
    site settings. Read fresh on every request (a revoked token, a changed group or setting applies to the next
    request of every process) and compiled only once per process (:mod:`assetsvc.prepared`)."""
    from accounts.models import User

    user_columns = [f"user__{field.name}" for field in User._meta.concrete_fields]
    return (
        get_access_token_model().objects.filter(token_checksum=checksum).order_by()
        .annotate(group_permissions=GroupPermissionMaps("user_id"), site_settings=_site_settings_json())
        .values_list(*TOKEN_COLUMNS, *user_columns, "group_permissions", "site_settings")
    )


REQUEST_CONTEXT = CompiledValues(_request_context, lambda shape: ("\x00assetsvc-token-sentinel",))


def token_checksum(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _resolve(request) -> BearerResult:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not header.strip():
        return NO_TOKEN
    parts = header.strip().split(" ", 1)
    if parts[0].lower() != "bearer":
        return NO_TOKEN  # another scheme (e.g. "Token abc") supplies no bearer token
    raw = parts[1].strip() if len(parts) == 2 else ""
    if not raw:
        return NO_TOKEN
    if len(raw) > MAX_TOKEN_LENGTH or any(c in raw for c in ", \t\x00"):
        return INVALID  # two Authorization headers arrive joined by a comma
    found = REQUEST_CONTEXT.rows(token_checksum(raw))
    if not found:
        return INVALID
    token_id, expires, record_id, revoked, *user_values, group_permissions, site_settings = found[0]
    if expires is None or expires <= timezone.now():
        return INVALID
    if record_id is None or revoked:
        return INVALID  # only the secret of a live personal-token record works (a deleted record revokes it)
    user = _user_from_row(user_values)
    if user is None or not user.is_active or user.deleted_at is not None:
        return INVALID
    remember_group_permissions(user, json.loads(group_permissions or "[]"))
    if site_settings is not None:
        remember_site_settings(_site_settings_from_json(site_settings))
    token = get_access_token_model().from_db(
        DEFAULT_DB_ALIAS, ["id", "expires", "user_id"], [token_id, expires, user.pk])
    return BearerResult(supplied=True, user=user, token=token)


def _user_from_row(values: list):
    from accounts.models import User

    if values[0] is None:
        return None
    fields = User._meta.concrete_fields
    return User.from_db(DEFAULT_DB_ALIAS, [field.attname for field in fields], values)


def _site_settings_from_json(data: dict):
    from assetsvc.models import SiteSettings

    fields = SiteSettings._meta.concrete_fields
    values = [field.to_python(data.get(field.attname)) for field in fields]
    # SQLite's JSON carries its stored UTC text without an offset: the row's timestamps are aware, as the ORM's
    values = [timezone.make_aware(value, UTC) if isinstance(value, datetime) and timezone.is_naive(value) else value
              for value in values]
    return SiteSettings.from_db(DEFAULT_DB_ALIAS, [field.attname for field in fields], values)


def resolve_bearer(request) -> BearerResult:
    """Resolve (and remember on the Django request) the bearer token of ``request``."""
    request = getattr(request, "_request", request)
    cached = getattr(request, "_assetsvc_bearer", None)
    if cached is None:
        cached = _resolve(request)
        request._assetsvc_bearer = cached
    return cached


class PersonalAccessTokenAuthentication(OAuth2Authentication):
    """DOT's DRF authentication, resolving tokens by checksum: none → anonymous (401 ``Unauthenticated.``);
    unknown, revoked, expired, or of a deactivated or deleted user → 401 ``The token is invalid or has expired.``"""

    www_authenticate_realm = "api"

    def authenticate(self, request):
        result = resolve_bearer(request)
        if not result.supplied:
            return None
        if result.user is None:
            raise AuthenticationFailed(INVALID_TOKEN)
        return result.user, result.token

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="api"'
