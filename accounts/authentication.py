"""Bearer authentication with personal access tokens (DOT access tokens, stored as SHA-256 checksums only).

The token is resolved once per request (the rate limiter needs the user before the view runs); DRF's
authentication class reuses that result.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from django.utils import timezone
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from oauth2_provider.models import get_access_token_model
from rest_framework.exceptions import AuthenticationFailed

from assetsvc.api.exceptions import INVALID_TOKEN

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


@cache
def _token_columns() -> tuple[str, ...]:
    """What a request reads of its token: the expiry, the personal-token record's revocation, and the whole user
    (``request.user``: permissions, company, names). Every other column of the three tables is left out of the one
    query each request runs (issue 13: compiling and reading them was a fixed cost of every request)."""
    from accounts.models import User

    return ("id", "expires", "user", "personal_token__id", "personal_token__revoked",
            *(f"user__{field.name}" for field in User._meta.concrete_fields))


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
    access_token = (
        get_access_token_model()
        .objects.select_related("user", "personal_token")
        .only(*_token_columns())
        .filter(token_checksum=token_checksum(raw))
        .order_by()
        .first()
    )
    if access_token is None or access_token.expires is None or access_token.expires <= timezone.now():
        return INVALID
    record = getattr(access_token, "personal_token", None)
    if record is None or record.revoked:
        return INVALID  # only the secret of a live personal-token record works (a deleted record revokes it)
    user = access_token.user
    if user is None or not user.is_active or user.deleted_at is not None:
        return INVALID
    return BearerResult(supplied=True, user=user, token=access_token)


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
