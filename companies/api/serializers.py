from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers

from assetsvc.api.fields import (
    CountField,
    EmailField,
    IsoUtcField,
    SchemaField,
    StrictCharField,
    TextField,
    UserBriefField,
    actions_schema,
    person_brief,
    reference_limit,
)
from assetsvc.api.formats import brief, record_formats
from assetsvc.api.serializers import ApiSerializer
from companies.counts import COUNT_NAMES
from companies.models import Company

TAG_COLOR_PATTERN = r"^#(?:[0-9a-fA-F]{3}){1,2}$"


class CompanySerializer(serializers.Serializer):
    """The company record: the specification's fields, ``notes``, ``tag_color``, the six counts (annotated by
    ``Company.objects.with_counts()``), ISO timestamps, and Snipe-IT's ``created_by`` / ``available_actions``.

    The declared fields are the record's keys for the schema; :meth:`to_representation` builds the answer
    (tests/api/test_record_schemas.py checks that they agree)."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    phone = serializers.CharField(read_only=True, allow_null=True)
    fax = serializers.CharField(read_only=True, allow_null=True)
    email = serializers.CharField(read_only=True, allow_null=True)
    image = serializers.CharField(read_only=True, allow_null=True)
    tag_color = serializers.CharField(read_only=True, allow_null=True)
    assets_count = CountField()
    licenses_count = CountField()
    accessories_count = CountField()
    consumables_count = CountField()
    components_count = CountField()
    users_count = CountField()
    created_by = UserBriefField()
    notes = serializers.CharField(read_only=True, allow_null=True)
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    available_actions = SchemaField(actions_schema("update", "delete"))

    def to_representation(self, company: Company) -> dict[str, Any]:
        request = self.context.get("request")
        caller = getattr(request, "user", None)
        counts = {name: int(getattr(company, name, 0) or 0) for name in COUNT_NAMES}
        stamp, _day = record_formats()

        def can(key: str) -> bool:
            return bool(caller and caller.has_access(key))

        return {
            "id": company.pk,
            "name": company.name,
            "phone": company.phone or None,
            "fax": company.fax or None,
            "email": company.email or None,
            "image": None,
            "tag_color": company.tag_color or None,
            **counts,
            "created_by": person_brief(company.created_by, reference_limit(self.context)),
            "notes": company.notes or None,
            "created_at": stamp(company.created_at),
            "updated_at": stamp(company.updated_at),
            "available_actions": {
                "update": can("companies.edit"),
                # Snipe-IT's isDeletable(): allowed and empty; the listed asset count may hide archived assets,
                # the delete itself re-checks every live row (companies.services.company_delete).
                "delete": can("companies.delete") and not any(counts.values()),
            },
        }


class CompanyBriefSerializer(serializers.Serializer):
    def to_representation(self, company: Company) -> dict[str, Any] | None:
        return brief(company)


class CompanyWriteSerializer(ApiSerializer):
    """Company input (create; ``partial=True`` for update). Rules: specification "Company" and Snipe-IT §5."""

    name = StrictCharField(max_length=255)
    phone = StrictCharField(min_length=7, max_length=35, required=False, allow_null=True)
    fax = StrictCharField(min_length=7, max_length=35, required=False, allow_null=True)
    email = EmailField(max_length=150)
    notes = TextField(max_length=65535)
    tag_color = StrictCharField(max_length=10, required=False, allow_null=True)

    def validate_tag_color(self, value: str | None) -> str | None:
        if value and not re.fullmatch(TAG_COLOR_PATTERN, value):
            raise serializers.ValidationError("The tag color must be a hex colour like #1a2b3c.")
        return value or None

    def validate_email(self, value):
        if isinstance(value, str) and value:
            return value
        return None

    def validate_name(self, value: str) -> str:
        queryset = Company.objects.filter(name__iexact=value)
        if self.instance is not None:
            queryset = queryset.exclude(pk=self.instance.pk)
        if queryset.exists():
            raise serializers.ValidationError("The name has already been taken.")
        return value
