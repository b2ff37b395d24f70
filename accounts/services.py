"""Domain verbs of accounts: issuing and revoking personal access tokens."""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

from accounts.models import PersonalAccessToken, User
from assetsvc.api.exceptions import NotFoundError
from assetsvc.conf import app_settings

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
        PersonalAccessToken.objects.select_for_update().filter(pk=token_uuid, user=user).select_related(
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




