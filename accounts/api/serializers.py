from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import PersonalAccessToken, User
from accounts.permissions import normalize_permission_value
from assetsvc.api.formats import brief, datetime_object, iso_utc_micro
from assetsvc.api.serializers import ApiSerializer, StrictCharField


class TokenCreateSerializer(ApiSerializer):
    name = StrictCharField(max_length=255, required=False, allow_null=True, allow_blank=True)

    def validate_name(self, value: str | None) -> str:
        return value or "Auth Token"


class PersonalAccessTokenSerializer(serializers.Serializer):
    """A token record as the specification lists it (no token value, ever)."""

    def to_representation(self, token: PersonalAccessToken) -> dict[str, Any]:
        return {
            "id": str(token.pk),
            "user_id": token.user_id,
            "client_id": token.application.client_id,
            "name": token.name,
            "scopes": [],
            "revoked": token.revoked,
            "created_at": iso_utc_micro(token.created_at),
            "updated_at": iso_utc_micro(token.updated_at),
            "expires_at": iso_utc_micro(token.expires_at),
        }


def permissions_map(user: User) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, value in (user.permissions or {}).items():
        normalized = normalize_permission_value(value)
        if normalized is not None:
            out[key] = normalized
    return out


class UserProfileSerializer(serializers.Serializer):
    """The user record (`/users/me` and user lists): the specification's profile fields plus Snipe-IT's user keys.

    Counts are annotated by the caller's queryset when it lists users (``assets_count`` ...); otherwise 0.
    """

    def to_representation(self, user: User) -> dict[str, Any]:
        request = self.context.get("request")
        groups = list(user.groups.all())
        caller = getattr(request, "user", None)

        def can(key: str) -> bool:
            return bool(caller and caller.has_access(key))

        return {
            "id": user.pk,
            "name": user.full_name,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "username": user.username,
            "employee_num": user.employee_num,
            "email": user.email,
            "jobtitle": user.jobtitle or None,
            "phone": user.phone or None,
            "notes": user.notes or None,
            "permissions": permissions_map(user),
            "activated": bool(user.is_active),
            "company": brief(user.company),
            "location": brief(user.location),
            "assets_count": int(getattr(user, "assets_count", 0) or 0),
            "licenses_count": int(getattr(user, "licenses_count", 0) or 0),
            "accessories_count": int(getattr(user, "accessories_count", 0) or 0),
            "consumables_count": int(getattr(user, "consumables_count", 0) or 0),
            "created_at": datetime_object(user.created_at),
            "updated_at": datetime_object(user.updated_at),
            "last_login": datetime_object(user.last_login),
            "deleted_at": datetime_object(user.deleted_at),
            "available_actions": {
                "update": can("users.edit") and user.deleted_at is None,
                "delete": can("users.delete") and user.deleted_at is None,
                "clone": can("users.create") and user.deleted_at is None,
                "restore": can("users.delete") and user.deleted_at is not None,
            },
            "groups": (
                {"total": len(groups), "rows": [{"id": g.pk, "name": g.name} for g in groups]} if groups else None
            ),
        }
