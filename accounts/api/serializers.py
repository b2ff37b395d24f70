from __future__ import annotations

import json
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import PermissionGroup, PersonalAccessToken, User
from accounts.permissions import (
    PERMISSION_MAP_MESSAGES,
    PermissionMapError,
    clean_permission_map,
    normalize_permission_value,
)
from assetsvc.api.fields import (
    BRIEF_SCHEMA,
    DATETIME_OBJECT_SCHEMA,
    BriefField,
    CompanyBriefField,
    CountField,
    SchemaField,
    StrictCharField,
    UserBriefField,
    actions_schema,
    company_brief,
    person_brief,
    reference_limit,
    visible_reference,
)
from assetsvc.api.formats import brief, datetime_object, iso_utc_micro
from assetsvc.api.serializers import ApiSerializer


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


PERMISSION_MAP_SCHEMA = {"type": "object", "additionalProperties": {"type": "integer", "enum": [-1, 0, 1]}}
BRIEF_LIST_SCHEMA = {
    "type": "object",
    "properties": {"total": {"type": "integer"}, "rows": {"type": "array", "items": BRIEF_SCHEMA}},
    "required": ["total", "rows"],
}


def _datetime_object_field(**kwargs) -> SchemaField:
    return SchemaField(DATETIME_OBJECT_SCHEMA, **kwargs)


class UserProfileSerializer(serializers.Serializer):
    """The user record (`/users`, `/users/{id}`, `/users/me`): the specification's profile fields plus Snipe-IT's
    user keys.

    Counts are annotated by the caller's queryset when it lists users (``assets_count`` ...); otherwise 0. The
    declared fields are the record's keys for the schema; :meth:`to_representation` builds the answer
    (tests/api/test_record_schemas.py checks that they agree).
    """

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    first_name = serializers.CharField(read_only=True)
    last_name = serializers.CharField(read_only=True)
    username = serializers.CharField(read_only=True)
    employee_num = serializers.CharField(read_only=True, allow_null=True)
    manager = UserBriefField(help_text="The user's manager; null without one, or when another company's person.")
    email = serializers.CharField(read_only=True)
    jobtitle = serializers.CharField(read_only=True, allow_null=True)
    phone = serializers.CharField(read_only=True, allow_null=True)
    notes = serializers.CharField(read_only=True, allow_null=True)
    permissions = SchemaField(PERMISSION_MAP_SCHEMA)
    activated = serializers.BooleanField(read_only=True)
    ldap_import = serializers.BooleanField(read_only=True, help_text="Came from the directory (docs/directory.md).")
    company = CompanyBriefField()
    department = BriefField()
    location = BriefField()
    assets_count = CountField()
    licenses_count = CountField()
    accessories_count = CountField()
    consumables_count = CountField()
    created_by = UserBriefField()
    created_at = _datetime_object_field()
    updated_at = _datetime_object_field()
    last_login = _datetime_object_field(allow_null=True)
    deleted_at = _datetime_object_field(allow_null=True)
    available_actions = SchemaField(actions_schema("update", "delete", "clone", "restore"))
    groups = SchemaField(BRIEF_LIST_SCHEMA, allow_null=True, help_text="The user's groups; null without any.")

    def to_representation(self, user: User) -> dict[str, Any]:
        request = self.context.get("request")
        groups = list(user.groups.all())
        caller = getattr(request, "user", None)
        limit = reference_limit(self.context)

        def can(key: str) -> bool:
            return bool(caller and caller.has_access(key))

        return {
            "id": user.pk,
            "name": user.full_name,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "username": user.username,
            "employee_num": user.employee_num,
            # Snipe-IT's {id, name}; a manager of another company is hidden like any person of it (issue 31)
            "manager": person_brief(user.manager, limit),
            "email": user.email,
            "jobtitle": user.jobtitle or None,
            "phone": user.phone or None,
            "notes": user.notes or None,
            "permissions": permissions_map(user),
            "activated": bool(user.is_active),
            "ldap_import": bool(user.ldap_import),
            "company": company_brief(user.company, limit),
            # a department of another company is hidden like a person of it (services keep them apart anyway)
            "department": brief(visible_reference(user.department, limit)),
            "location": brief(user.location),
            "assets_count": int(getattr(user, "assets_count", 0) or 0),
            "licenses_count": int(getattr(user, "licenses_count", 0) or 0),
            "accessories_count": int(getattr(user, "accessories_count", 0) or 0),
            "consumables_count": int(getattr(user, "consumables_count", 0) or 0),
            "created_by": person_brief(user.created_by, limit),
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


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer", "enum": [-1, 0, 1]}})
class PermissionsField(serializers.Field):
    """A permission map: an object (or its JSON text, as some clients send) of known keys to ``1``, ``0`` or ``-1``
    (Snipe-IT's ``"1"``/``true`` spellings accepted). Unknown keys and other values are refused, never stored."""

    default_error_messages = dict(PERMISSION_MAP_MESSAGES)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def validate_empty_values(self, data):
        if data is None:
            return True, {}
        return super().validate_empty_values(data)

    def to_internal_value(self, data: Any) -> dict[str, int]:
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                self.fail("not_a_dict")
        if not isinstance(data, dict):
            self.fail("not_a_dict")
        try:
            return clean_permission_map(data)
        except PermissionMapError as exc:
            self.fail(exc.code, name=exc.name)

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field({"type": "array", "items": {"type": "integer"}, "nullable": True})
class GroupsField(serializers.Field):
    """``groups``: a list of group ids, one id, or null (no groups). Every id must exist."""

    default_error_messages = {"invalid": "The selected groups is invalid."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def validate_empty_values(self, data):
        if data is None:
            return True, []
        return super().validate_empty_values(data)

    def to_internal_value(self, data: Any) -> list[PermissionGroup]:
        values = data if isinstance(data, list) else [data]
        ids: list[int] = []
        for value in values:
            if value is None or value == "":
                continue
            if isinstance(value, bool) or isinstance(value, dict | list | float):
                self.fail("invalid")
            text = str(value).strip()
            if not text.isdigit() or len(text) > 18:
                self.fail("invalid")
            ids.append(int(text))
        groups = list(PermissionGroup.objects.filter(pk__in=ids))
        if len(groups) != len(set(ids)):
            self.fail("invalid")
        return groups

    def to_representation(self, value: Any) -> Any:
        return [group.pk for group in value]
