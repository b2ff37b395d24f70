"""License and seat records (reference §3.12 in our formats: ISO UTC timestamps, ``YYYY-MM-DD`` dates, two-decimal
cost strings, ``{id, name}`` nesting, ``available_actions`` for the caller), and the license write and seat inputs.

The product key is read as ``product_key`` and only by callers who may see keys (``context["can"]["keys"]``);
everybody else reads :data:`~inventory.services.licenses.HIDDEN_KEY`. ``free_seats_count`` (and ``remaining``) come
from the
``free_seats`` subquery the view annotates, so a page costs one query whatever its length.
"""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import EmailValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.fields import (
    BRIEF_SCHEMA,
    BriefField,
    CompanyBriefField,
    IsoUtcField,
    LenientBooleanField,
    MoneyField,
    NullIfEmptyField,
    OptionalIntegerField,
    ScopedPrimaryKeyRelatedField,
    StrictCharField,
    StrictDateField,
    StrictIntegerField,
    TextField,
    actions_schema,
    reference_limit,
    visible_reference,
)
from assetsvc.api.formats import record_timestamp
from assetsvc.api.serializers import ApiModelSerializer, ApiSerializer
from companies.models import Company
from inventory.api.base import DateField, MoneyRecordField, RecordSerializer
from inventory.models import Category, License, LicenseSeat, Manufacturer, Supplier
from inventory.services.licenses import HIDDEN_KEY, MAX_SEATS

#: A seat PATCH naming a user and an asset (Snipe-IT's ``select_asset_or_person``).
BOTH_TARGETS = "You must select an asset or a user, but not both."
#: ``serial`` and its alias ``product_key`` sent with different values (Laravel's ``same`` rule text).
KEY_ALIAS_MISMATCH = "The product key field must match serial."
_NULLABLE_BRIEF = {"type": "object", "nullable": True}


# --- records ------------------------------------------------------------------------------------------------------


class LicenseSerializer(RecordSerializer):
    """A license (reference §3.12). ``context["can"]`` holds the caller's verbs of the section (view, create, edit,
    delete, checkout) and ``keys`` (may read product keys)."""

    company = CompanyBriefField()
    manufacturer = BriefField()
    supplier = BriefField()
    category = BriefField()
    product_key = serializers.SerializerMethodField()
    order_number = NullIfEmptyField()
    purchase_order = NullIfEmptyField()
    purchase_date = DateField()
    termination_date = DateField()
    expiration_date = DateField()
    depreciation = serializers.SerializerMethodField()
    purchase_cost = MoneyRecordField()
    purchase_cost_numeric = MoneyRecordField(source="purchase_cost")
    notes = NullIfEmptyField()
    seats = serializers.IntegerField(read_only=True)
    free_seats_count = serializers.SerializerMethodField()
    remaining = serializers.SerializerMethodField()
    min_amt = serializers.IntegerField(read_only=True, allow_null=True)
    license_name = NullIfEmptyField()
    license_email = NullIfEmptyField()
    reassignable = serializers.BooleanField(read_only=True)
    maintained = serializers.BooleanField(read_only=True)
    deleted_at = IsoUtcField(allow_null=True)
    user_can_checkout = serializers.SerializerMethodField()

    class Meta:
        model = License
        fields = ["id", "name", "company", "manufacturer", "product_key", "order_number", "purchase_order",
                  "purchase_date", "termination_date", "depreciation", "purchase_cost", "purchase_cost_numeric",
                  "notes", "expiration_date", "seats", "free_seats_count", "remaining", "min_amt", "license_name",
                  "license_email", "reassignable", "maintained", "supplier", "category", "created_by", "created_at",
                  "updated_at", "deleted_at", "user_can_checkout", "available_actions"]

    def get_product_key(self, obj) -> str:
        return obj.serial if self.can("keys") else HIDDEN_KEY

    @extend_schema_field({**BRIEF_SCHEMA, "description": "Always null: there are no depreciations here."})
    def get_depreciation(self, obj) -> None:
        return None

    def get_free_seats_count(self, obj) -> int:
        return int(getattr(obj, "free_seats", 0) or 0)

    def get_remaining(self, obj) -> int:
        return self.get_free_seats_count(obj)

    def assigned_seats(self, obj) -> int:
        return max(obj.seats - self.get_free_seats_count(obj), 0)

    def get_user_can_checkout(self, obj) -> bool:
        return obj.deleted_at is None and self.get_free_seats_count(obj) > 0

    @extend_schema_field(actions_schema("checkout", "checkin", "clone", "update", "delete", "restore"))
    def get_available_actions(self, obj) -> dict[str, bool]:
        """Snipe-IT offers ``delete`` while a seat is free (a defect: the delete is refused while one is
        assigned); here ``delete`` is offered exactly when the delete would succeed."""
        live = obj.deleted_at is None
        return {"checkout": self.can("checkout") and live and self.get_free_seats_count(obj) > 0,
                "checkin": self.can("checkout") and live and self.assigned_seats(obj) > 0,
                "clone": self.can("create"), "update": self.can("edit") and live,
                "delete": self.can("delete") and live and self.assigned_seats(obj) == 0,
                "restore": self.can("delete") and not live}


class HeldLicenseSerializer(LicenseSerializer):
    """A license as one of a user's or an asset's holdings (``users/{id}/licenses``, ``hardware/{id}/licenses``):
    the license's record plus the seat it is held by (set on the instance by :func:`held_licenses`)."""

    assigned_pivot_id = serializers.IntegerField(read_only=True)
    checked_out_at = IsoUtcField()
    checkout_note = NullIfEmptyField()

    class Meta(LicenseSerializer.Meta):
        fields = [*LicenseSerializer.Meta.fields, "assigned_pivot_id", "checked_out_at", "checkout_note"]


def held_licenses(seats: list[LicenseSeat], licenses: dict[int, License]) -> list[License]:
    """One license record per seat (a copy when a holder has several seats of one license), carrying the seat's
    id, when it was assigned and its notes."""
    held = []
    for seat in seats:
        item = licenses.get(seat.license_id)
        if item is not None:
            item = copy.copy(item)
            item.assigned_pivot_id, item.checked_out_at, item.checkout_note = seat.pk, seat.updated_at, seat.notes
            held.append(item)
    return held


_SEAT_USER = {"type": "object", "nullable": True, "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": "string", "nullable": True},
    "department": _NULLABLE_BRIEF | {"description": "Always null: there are no departments here."},
    "created_at": {"type": "string", "format": "date-time"}}}
_SEAT_PLACE = {"type": "object", "nullable": True, "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "created_at": {"type": "string", "format": "date-time"}}}


class LicenseSeatSerializer(serializers.Serializer):
    """One seat (reference §3.12): who holds it, where, and what the caller may do with it. A holder of another
    company (assigned by a super user) is null for a caller limited to their own, as every reference to a person.
    ``available_actions.update`` is the seat PATCH, which needs ``licenses.checkout`` (seats are neither cloned nor
    deleted one by one)."""

    id = serializers.IntegerField(read_only=True)
    license_id = serializers.IntegerField(read_only=True)
    updated_at = IsoUtcField()
    assigned_user = serializers.SerializerMethodField()
    assigned_asset = serializers.SerializerMethodField()
    location = serializers.SerializerMethodField()
    reassignable = serializers.SerializerMethodField()
    notes = NullIfEmptyField()
    user_can_checkout = serializers.SerializerMethodField()
    available_actions = serializers.SerializerMethodField()

    def can(self, verb: str) -> bool:
        return bool(self.context.get("can", {}).get(verb))

    def holder(self, seat: LicenseSeat) -> Any:
        return visible_reference(seat.assigned_target, reference_limit(self.context))

    @extend_schema_field(_SEAT_USER)
    def get_assigned_user(self, seat: LicenseSeat) -> dict[str, Any] | None:
        user = visible_reference(seat.assigned_user, reference_limit(self.context))
        if user is None:
            return None
        return {"id": user.pk, "name": user.full_name, "email": user.email or None, "department": None,
                "created_at": record_timestamp(seat.created_at)}

    @extend_schema_field(_SEAT_PLACE)
    def get_assigned_asset(self, seat: LicenseSeat) -> dict[str, Any] | None:
        asset = visible_reference(seat.assigned_asset, reference_limit(self.context))
        if asset is None:
            return None
        return {"id": asset.pk, "name": asset.name or asset.asset_tag, "created_at": record_timestamp(seat.created_at)}

    @extend_schema_field(_SEAT_PLACE)
    def get_location(self, seat: LicenseSeat) -> dict[str, Any] | None:
        holder = self.holder(seat)
        location = getattr(holder, "location", None) if holder is not None else None
        if location is None:
            return None
        return {"id": location.pk, "name": location.name, "created_at": record_timestamp(seat.created_at)}

    def get_reassignable(self, seat: LicenseSeat) -> bool:
        return seat.license.reassignable

    def get_user_can_checkout(self, seat: LicenseSeat) -> bool:
        return not seat.is_assigned

    @extend_schema_field(actions_schema("checkout", "checkin", "clone", "update", "delete"))
    def get_available_actions(self, seat: LicenseSeat) -> dict[str, bool]:
        may = self.can("checkout")
        return {"checkout": may and (not seat.is_assigned or seat.license.reassignable),
                "checkin": may and seat.is_assigned, "clone": False, "update": may, "delete": False}


# --- writes -------------------------------------------------------------------------------------------------------


def _fk(queryset, **kwargs) -> ScopedPrimaryKeyRelatedField:
    kwargs.setdefault("required", False)
    kwargs.setdefault("allow_null", True)
    return ScopedPrimaryKeyRelatedField(queryset=queryset, **kwargs)


class EmailTextField(TextField):
    """Optional text that must be an e-mail address when given (``license_email``); null is stored as ``""``."""

    def to_internal_value(self, data):
        text = super().to_internal_value(data)
        if text:
            try:
                EmailValidator()(text)
            except DjangoValidationError:
                raise serializers.ValidationError(
                    f"The {self.field_name.replace('_', ' ')} must be a valid email address.") from None
        return text


class LicenseWriteSerializer(ApiModelSerializer):
    """Create and (partial) update input. ``name``, ``seats`` and ``category_id`` are required on create; ``seats``
    is a whole number from 1 to 100,000 (API-CONTRACT.md §10); the product key is written as ``serial`` (at most
    65,535 characters), or as ``product_key``, the name it is read under (issue 25: two real clients write it so;
    Snipe-IT drops it silently). Both sent with different values is a field error on ``product_key``."""

    name = StrictCharField(max_length=255)
    seats = StrictIntegerField(min_value=1, max_value=MAX_SEATS)
    category_id = ScopedPrimaryKeyRelatedField(source="category", queryset=Category.objects.all())
    company_id = _fk(Company.objects.all(), source="company")
    manufacturer_id = _fk(Manufacturer.objects.filter(deleted_at__isnull=True), source="manufacturer")
    supplier_id = _fk(Supplier.objects.all(), source="supplier")
    serial = TextField(max_length=65535)
    product_key = TextField(max_length=65535, write_only=True)
    license_name = TextField(max_length=100)
    license_email = EmailTextField(max_length=120)
    reassignable = LenientBooleanField()
    maintained = LenientBooleanField()
    expiration_date = StrictDateField(required=False, allow_null=True)
    termination_date = StrictDateField(required=False, allow_null=True)
    purchase_date = StrictDateField(required=False, allow_null=True)
    purchase_order = TextField(max_length=255)
    order_number = TextField(max_length=255)
    purchase_cost = MoneyField(required=False, allow_null=True)
    min_amt = OptionalIntegerField(max_value=MAX_SEATS)
    notes = TextField(max_length=65535)

    class Meta:
        model = License
        validators: list = []
        fields = ["name", "seats", "category_id", "company_id", "manufacturer_id", "supplier_id", "serial",
                  "product_key", "license_name", "license_email", "reassignable", "maintained", "expiration_date",
                  "termination_date", "purchase_date", "purchase_order", "order_number", "purchase_cost", "min_amt",
                  "notes"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if "product_key" in attrs:
            key = attrs.pop("product_key")
            if "serial" in attrs and attrs["serial"] != key:
                raise serializers.ValidationError({"product_key": [KEY_ALIAS_MISMATCH]})
            attrs["serial"] = key
        return attrs


class SeatUpdateSerializer(ApiSerializer):
    """``PATCH``/``PUT licenses/{id}/seats/{seat_id}`` (reference §4.12): ``assigned_to`` (a user id) or ``asset_id``
    checks the seat out, both null check it in; ``notes`` is written on the seat and is the log's note (``note`` is
    taken when ``notes`` is not sent, as on the other checkout routes)."""

    assigned_to = StrictIntegerField(required=False, allow_null=True)
    asset_id = StrictIntegerField(required=False, allow_null=True)
    notes = TextField(max_length=65535, default=None)
    note = TextField(max_length=65535)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("assigned_to") is not None and attrs.get("asset_id") is not None:
            raise serializers.ValidationError({"assigned_to": [BOTH_TARGETS], "asset_id": [BOTH_TARGETS]})
        return attrs
