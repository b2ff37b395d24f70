"""Generic serializer fields, one home for each (issue 9): lenient input (text, integers, dates, money, booleans,
e-mail), scoped foreign keys, and the read-side references that hide what company separation hides.

References to people and companies: a visible record may point at another company's user (who created a global
catalogue entry, a location's manager, the actor of a log row) or at another company. With separation on, a caller
limited to company A must not learn company B's people or name through such a reference, so it is answered as
``null`` (references without a company stay visible). Every record builder uses :func:`visible_reference` -- through
:class:`UserBriefField`/:class:`CompanyBriefField` in serializers, or directly in dict-built records -- so the rule
has one home. The limit comes from the ``scope_policy`` hook (``assetsvc.scoping``).
"""

from __future__ import annotations

import copy
import re
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from django.core.validators import EmailValidator
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.formats import brief, record_timestamp
from assetsvc.scoping import hidden_company, limiting_company_id

BRIEF_SCHEMA = {
    "type": "object",
    "nullable": True,
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
}
#: Snipe-IT's user dates (:func:`assetsvc.api.formats.datetime_object`).
DATETIME_OBJECT_SCHEMA = {
    "type": "object",
    "properties": {"datetime": {"type": "string", "example": "2026-03-01 14:05:00"},
                   "formatted": {"type": "string", "example": "2026-03-01 02:05 PM"}},
    "required": ["datetime", "formatted"],
}
MAX_INT = 2_147_483_647
#: The one shape a date field takes (:class:`StrictDateField`).
DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
#: ``purchase_cost`` is Decimal(13, 2) in the database.
MAX_PURCHASE_COST = Decimal("99999999999.99")


# --- references that separation hides -------------------------------------------------------------------------


def reference_limit(context: dict[str, Any]) -> int | None:
    """The company the caller of a serializer ``context`` is limited to (computed once per serializer tree)."""
    if "limit_company_id" not in context:
        request = context.get("request")
        context["limit_company_id"] = limiting_company_id(getattr(request, "user", None))
    return context["limit_company_id"]


def visible_reference(obj: Any, limit_company_id: int | None, *, kind: str = "person") -> Any:
    """``obj`` when the caller may see it, else None. ``kind`` is ``"person"`` (a row with ``company_id``, such as a
    user) or ``"company"`` (a company itself)."""
    if obj is None or limit_company_id is None:
        return obj
    company_id = obj.pk if kind == "company" else getattr(obj, "company_id", None)
    return None if hidden_company(limit_company_id, company_id) else obj


def may_change_record(context: dict[str, Any], obj: Any) -> bool:
    """Whether the caller of a serializer ``context`` may change ``obj`` as far as separation goes: a caller limited
    to a company changes only that company's rows, never a shared record without a company (issue 25; the services
    enforce it, this only keeps ``available_actions`` truthful)."""
    limit = reference_limit(context)
    return limit is None or getattr(obj, "company_id", None) == limit


def person_brief(user: Any, limit_company_id: int | None) -> dict[str, Any] | None:
    """``{"id", "name"}`` of a user, or null when absent or hidden by separation."""
    return brief(visible_reference(user, limit_company_id), "full_name")


def company_brief(company: Any, limit_company_id: int | None) -> dict[str, Any] | None:
    return brief(visible_reference(company, limit_company_id, kind="company"))


class TextField(serializers.CharField):
    """Optional text: null (and Laravel's empty string → null) is stored as ``""``; trimmed; no NUL bytes."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def validate_empty_values(self, data):
        if data is None:
            return True, ""
        return super().validate_empty_values(data)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A required string: numbers are accepted as text, lists and objects are not."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """An integer: ``12`` or ``"12"``; not ``1.5``, ``true`` or ``[1]``."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or isinstance(data, list | dict):
            self.fail("invalid")
        if isinstance(data, float) and not data.is_integer():
            self.fail("invalid")
        return super().to_internal_value(data)


class ScopedPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """A foreign key limited to what the caller may see: other companies' ids are as unknown as missing ones."""

    def get_queryset(self):
        queryset = super().get_queryset()
        request = self.context.get("request")
        restrict = getattr(queryset, "restrict", None)
        if restrict is not None:
            queryset = restrict(getattr(request, "user", None))
        return queryset

    def to_internal_value(self, data):
        if isinstance(data, bool) or isinstance(data, list | dict):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if isinstance(data, float):
            if not data.is_integer():
                self.fail("incorrect_type", data_type="float")
            data = int(data)
        if isinstance(data, str):
            data = data.strip()
            if not data.lstrip("-").isdigit():
                self.fail("incorrect_type", data_type="str")
        try:
            if abs(int(data)) > 2**62:
                self.fail("does_not_exist", pk_value=data)
        except (TypeError, ValueError):
            self.fail("incorrect_type", data_type=type(data).__name__)
        return super().to_internal_value(data)


class EmailField(serializers.EmailField):
    """An optional e-mail address with Laravel's message (DRF bakes its own text into the validator)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)
        for validator in self.validators:
            if isinstance(validator, EmailValidator):
                validator.message = "The email must be a valid email address."

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, bool) or not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictDateField(serializers.DateField):
    """Exactly ``YYYY-MM-DD`` (surrounding spaces aside). A date-time is refused rather than cut to its date
    (issue 12): ``2023-02-28T23:30:00-05:00`` is another day in UTC, so cutting it silently could store the wrong one;
    the ``format`` message tells the client what to send. Impossible dates such as 2023-02-30 are not a valid date.
    """

    default_error_messages = {"format": "The {attr} does not match the format YYYY-MM-DD."}

    def to_internal_value(self, value):
        if isinstance(value, date) and not isinstance(value, datetime):
            return value
        if not isinstance(value, str) or not DATE_ONLY.fullmatch(value.strip()):
            self.fail("format")
        try:
            parsed = parse_date(value.strip())
        except ValueError:
            parsed = None
        if parsed is None:
            self.fail("invalid", format="YYYY-MM-DD")
        return parsed


class LenientDateTimeField(serializers.DateTimeField):
    """A date (midnight in TIME_ZONE) or a date-time (``YYYY-MM-DD HH:MM:SS`` or ISO 8601)."""

    def to_internal_value(self, value):
        if not isinstance(value, str):
            self.fail("invalid", format="YYYY-MM-DD")
        text = value.strip()
        try:
            if len(text) == 10:
                day = parse_date(text)
                moment = datetime.combine(day, time.min) if day else None
            else:
                moment = parse_datetime(text.replace(" ", "T", 1))
        except ValueError:
            moment = None
        if moment is None:
            self.fail("invalid", format="YYYY-MM-DD")
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment)
        return moment


class MoneyField(serializers.DecimalField):
    """A non-negative amount up to 99,999,999,999.99, as a JSON number or a string (thousands commas are dropped,
    as Snipe-IT does); more than two decimals are rounded half up."""

    def __init__(self, **kwargs):
        super().__init__(max_digits=13, decimal_places=2, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        text = str(data).strip().replace(",", "")
        try:
            value = Decimal(text)
        except InvalidOperation:
            self.fail("invalid")
        if not value.is_finite():
            self.fail("invalid")
        if value < 0:
            self.fail("min_value", min_value=0)
        if value > MAX_PURCHASE_COST:
            self.fail("max_value", max_value=MAX_PURCHASE_COST)
        return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


class FlexibleBooleanField(serializers.BooleanField):
    """true/false, 1/0, "yes"/"no"; null reads as false."""

    def validate_empty_values(self, data):
        if data is None:
            return True, False
        return super().validate_empty_values(data)


@extend_schema_field(OpenApiTypes.DATETIME)
class IsoUtcField(serializers.ReadOnlyField):
    """A record's timestamp: ISO 8601 UTC, or Snipe-IT's object under ``API_DATE_FORMAT=snipeit``
    (:func:`assetsvc.api.formats.record_formats`; the schema documents the default)."""

    def to_representation(self, value):
        return record_timestamp(value)


@extend_schema_field(BRIEF_SCHEMA)
class BriefField(serializers.ReadOnlyField):
    def to_representation(self, value):
        return brief(value)


class VisibleMixin:
    """Answers null for a reference to another company's user or company (:func:`visible_reference`)."""

    reference_kind = "person"

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        return visible_reference(value, reference_limit(self.context), kind=self.reference_kind)


@extend_schema_field(BRIEF_SCHEMA)
class CompanyBriefField(VisibleMixin, BriefField):
    reference_kind = "company"


@extend_schema_field(BRIEF_SCHEMA)
class UserBriefField(VisibleMixin, serializers.ReadOnlyField):
    def to_representation(self, value):
        return brief(value, "full_name")


@extend_schema_field({"type": "string", "nullable": True})
class NullIfEmptyField(serializers.ReadOnlyField):
    """Snipe-IT answers ``null`` for these empty strings (location address parts, model number, notes)."""

    def to_representation(self, value):
        return value if value not in ("", None) else None


class CountField(serializers.IntegerField):
    """A count annotated on the queryset (never a per-row query)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value):
        return int(value or 0)


class LenientBooleanField(serializers.BooleanField):
    """An optional flag: ``null`` (or Laravel's empty string) means false, as Snipe-IT stores it."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def validate_empty_values(self, data):
        if data is None:
            return True, False
        return super().validate_empty_values(data)


class OptionalIntegerField(StrictIntegerField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_INT)
        super().__init__(**kwargs)


# --- keys of records built by a custom ``to_representation`` -------------------------------------------------------


def actions_schema(*verbs: str) -> dict[str, Any]:
    """``available_actions``: one boolean per verb."""
    return {"type": "object", "properties": {verb: {"type": "boolean"} for verb in verbs}, "required": list(verbs)}


class SchemaField(serializers.ReadOnlyField):
    """A read-only key of a record whose serializer builds the answer itself (a custom ``to_representation``): it
    declares the key and its JSON schema (``SchemaField(actions_schema("update", "delete"))``; ``allow_null=True``
    for a nullable key), so the record serializer both answers and describes the answer."""

    def __init__(self, schema: dict[str, Any], **kwargs: Any) -> None:
        self.schema = schema
        super().__init__(**kwargs)


class SchemaFieldExtension(OpenApiSerializerFieldExtension):
    target_class = SchemaField

    def map_serializer_field(self, auto_schema, direction):
        return copy.deepcopy(self.target.schema)
