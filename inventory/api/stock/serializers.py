"""Accessory and consumable records (reference §3.9, §3.10 in our formats: ISO UTC timestamps, ``YYYY-MM-DD``
dates, two-decimal cost strings, ``{id, name}`` nesting), their checkout rows, and the write and checkout inputs.

``remaining`` is ``qty`` minus the units out, from the ``units_out`` subquery the view annotates (one query per
page); ``checkouts_count`` is those units, as Snipe-IT's (one row per unit there, one row per checkout here).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.fields import (
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
    UserBriefField,
    person_brief,
    reference_limit,
    visible_reference,
)
from assetsvc.api.serializers import ApiModelSerializer, ApiSerializer
from companies.models import Company
from inventory.api.base import DateField, MoneyRecordField, RecordSerializer
from inventory.api.checkout import CheckoutSerializer, quantity_input
from inventory.choices import CategoryType
from inventory.models import (
    Accessory,
    Category,
    Component,
    Consumable,
    Location,
    Manufacturer,
    Supplier,
)
from inventory.services.stock import MAX_STOCK

#: A checkout naming two different targets (``assigned_to`` beside another target key).
TWO_TARGETS = "Only one target may be given: assigned_to and {key} name different targets."

def _holder_schema(kind: str, **extra: dict[str, Any]) -> dict[str, Any]:
    properties = {"id": {"type": "integer"}, "name": {"type": "string"},
                  "type": {"type": "string", "enum": [kind]}, **extra}
    return {"type": "object", "properties": properties, "required": list(properties)}


_TEXT = {"type": "string"}
_NULLABLE_TEXT = {"type": "string", "nullable": True}
#: ``assigned_to`` of a checkout row: a user, an asset or a location (compact), or null.
ASSIGNED_TO_SCHEMA = {
    "nullable": True,
    "oneOf": [
        _holder_schema("user", username=_TEXT, first_name=_TEXT, last_name=_TEXT, email=_NULLABLE_TEXT,
                       employee_number=_NULLABLE_TEXT),
        _holder_schema("asset", asset_tag=_TEXT, serial=_NULLABLE_TEXT),
        _holder_schema("location"),
    ],
}


# --- records ------------------------------------------------------------------------------------------------------


class StockRecordSerializer(RecordSerializer):
    """What both records share. ``context["can"]`` holds the caller's verbs of the section (view, create, edit,
    delete, checkout, checkin)."""

    image = serializers.SerializerMethodField()
    company = CompanyBriefField()
    manufacturer = BriefField()
    supplier = BriefField()
    category = BriefField()
    location = BriefField()
    model_number = NullIfEmptyField()
    order_number = NullIfEmptyField()
    notes = NullIfEmptyField()
    qty = serializers.IntegerField(read_only=True)
    min_amt = serializers.IntegerField(read_only=True, allow_null=True)
    purchase_date = DateField()
    purchase_cost = MoneyRecordField()
    remaining = serializers.SerializerMethodField()
    user_can_checkout = serializers.SerializerMethodField()
    deleted_at = IsoUtcField(allow_null=True)

    def get_image(self, obj) -> str | None:
        return None

    def units_out(self, obj) -> int:
        return int(getattr(obj, "units_out", 0) or 0)

    def get_remaining(self, obj) -> int:
        return max(obj.qty - self.units_out(obj), 0)

    def get_user_can_checkout(self, obj) -> bool:
        return obj.deleted_at is None and self.get_remaining(obj) > 0

    def get_available_actions(self, obj) -> dict[str, bool]:
        live = obj.deleted_at is None
        return {"checkout": self.can("checkout") and live and self.get_remaining(obj) > 0,
                "checkin": False, "update": self.can("edit") and live, "delete": self.deletable(obj),
                "clone": self.can("create"), "restore": self.can("delete") and not live}


class AccessorySerializer(StockRecordSerializer):
    min_qty = serializers.IntegerField(source="min_amt", read_only=True, allow_null=True)
    remaining_qty = serializers.SerializerMethodField()
    checkouts_count = serializers.SerializerMethodField()

    class Meta:
        model = Accessory
        fields = ["id", "name", "image", "company", "manufacturer", "supplier", "model_number", "category",
                  "location", "notes", "qty", "purchase_date", "purchase_cost", "order_number", "min_qty", "min_amt",
                  "remaining_qty", "remaining", "checkouts_count", "requestable", "created_by", "created_at",
                  "updated_at", "deleted_at", "available_actions", "user_can_checkout"]

    def get_remaining_qty(self, obj) -> int:
        return self.get_remaining(obj)

    def get_checkouts_count(self, obj) -> int:
        return self.units_out(obj)

    def deletable(self, obj) -> bool:
        """Snipe-IT's ``checkouts_count === 0``: an accessory with units out cannot be deleted."""
        return self.can("delete") and obj.deleted_at is None and self.units_out(obj) == 0


class ConsumableSerializer(StockRecordSerializer):
    item_no = NullIfEmptyField()

    class Meta:
        model = Consumable
        fields = ["id", "name", "image", "category", "company", "item_no", "location", "manufacturer", "supplier",
                  "min_amt", "model_number", "remaining", "order_number", "purchase_cost", "purchase_date", "qty",
                  "notes", "requestable", "created_by", "created_at", "updated_at", "deleted_at",
                  "user_can_checkout", "available_actions"]

    def get_available_actions(self, obj) -> dict[str, bool]:
        return {**super().get_available_actions(obj), "checkin": False}


class ComponentSerializer(StockRecordSerializer):
    serial = NullIfEmptyField()

    class Meta:
        model = Component
        fields = ["id", "name", "image", "serial", "location", "qty", "min_amt", "category", "supplier",
                  "manufacturer", "model_number", "order_number", "purchase_date", "purchase_cost", "remaining",
                  "company", "notes", "requestable", "created_by", "created_at", "updated_at", "deleted_at",
                  "user_can_checkout", "available_actions"]

    def deletable(self, obj) -> bool:
        """Snipe-IT refuses to delete a component with units installed."""
        return self.can("delete") and obj.deleted_at is None and self.units_out(obj) == 0

    def get_available_actions(self, obj) -> dict[str, bool]:
        """Snipe-IT offers ``checkin`` to callers with ``components.checkin`` (installation rows are checked in, unlike
        accessories'); here only while units are installed, as ``checkout`` only while a unit is left."""
        checkin = self.can("checkin") and obj.deleted_at is None and self.units_out(obj) > 0
        return {**super().get_available_actions(obj), "checkin": checkin}


def assigned_to(row: Any, limit_company_id: int | None) -> dict[str, Any] | None:
    """The holder of a checkout row, compact (reference §3.9): a user, an asset or a location; null when gone or
    hidden by company separation."""
    user = getattr(row, "assigned_user", None)
    if user is not None:
        user = visible_reference(user, limit_company_id)
        if user is None:
            return None
        return {"id": user.pk, "name": user.full_name, "type": "user", "username": user.username,
                "first_name": user.first_name, "last_name": user.last_name, "email": user.email,
                "employee_number": user.employee_num or None}
    asset = getattr(row, "assigned_asset", None)
    if asset is not None:
        if visible_reference(asset, limit_company_id) is None:
            return None
        return {"id": asset.pk, "name": asset.name or asset.asset_tag, "type": "asset", "asset_tag": asset.asset_tag,
                "serial": asset.serial or None}
    location = getattr(row, "assigned_location", None)
    if location is not None:
        return {"id": location.pk, "name": location.name, "type": "location"}
    return None


class CheckoutRowSerializer(serializers.Serializer):
    """One accessory checkout (``GET accessories/{id}/checkedout``, ``hardware/{id}/assigned/accessories``,
    ``locations/{id}/assigned/accessories``): its ``id`` is what ``POST accessories/{id}/checkin`` takes."""

    id = serializers.IntegerField(read_only=True)
    accessory = BriefField()
    assigned_to = serializers.SerializerMethodField()
    checkout_qty = serializers.IntegerField(source="assigned_qty", read_only=True)
    note = NullIfEmptyField()
    created_by = UserBriefField()
    created_at = IsoUtcField()
    available_actions = serializers.SerializerMethodField()

    @extend_schema_field(ASSIGNED_TO_SCHEMA)
    def get_assigned_to(self, row) -> dict[str, Any] | None:
        return assigned_to(row, reference_limit(self.context))

    def get_available_actions(self, row) -> dict[str, bool]:
        return {"checkin": bool(self.context.get("can", {}).get("checkin"))}


class ConsumableUserRowSerializer(serializers.Serializer):
    """One consumable handout (``GET consumables/{id}/users``): Snipe-IT's ``name``/``admin`` keys as plain text,
    plus the user and the units."""

    id = serializers.IntegerField(read_only=True)
    consumable = BriefField()
    assigned_to = serializers.SerializerMethodField()
    name = serializers.SerializerMethodField()
    checkout_qty = serializers.IntegerField(source="assigned_qty", read_only=True)
    note = NullIfEmptyField()
    admin = serializers.SerializerMethodField()
    created_by = UserBriefField()
    created_at = IsoUtcField()

    @extend_schema_field(ASSIGNED_TO_SCHEMA)
    def get_assigned_to(self, row) -> dict[str, Any] | None:
        return assigned_to(row, reference_limit(self.context))

    def get_name(self, row) -> str | None:
        holder = self.get_assigned_to(row)
        return holder["name"] if holder else None

    def get_admin(self, row) -> str | None:
        admin = person_brief(row.created_by, reference_limit(self.context))
        return admin["name"] if admin else None


class HeldMixin(serializers.Serializer):
    """An item record as one of a user's holdings (``users/{id}/accessories``, ``users/{id}/consumables``): the
    item's record plus the row it is held by (set on the instance by :func:`held_items`)."""

    assigned_pivot_id = serializers.IntegerField(read_only=True)
    checkout_qty = serializers.IntegerField(read_only=True)
    checked_out_at = IsoUtcField()
    checkout_note = NullIfEmptyField()

    HELD_FIELDS = ["assigned_pivot_id", "checkout_qty", "checked_out_at", "checkout_note"]


class HeldAccessorySerializer(HeldMixin, AccessorySerializer):
    class Meta(AccessorySerializer.Meta):
        fields = [*AccessorySerializer.Meta.fields, *HeldMixin.HELD_FIELDS]


class HeldConsumableSerializer(HeldMixin, ConsumableSerializer):
    class Meta(ConsumableSerializer.Meta):
        fields = [*ConsumableSerializer.Meta.fields, *HeldMixin.HELD_FIELDS]


class HeldComponentSerializer(HeldMixin, ComponentSerializer):
    class Meta(ComponentSerializer.Meta):
        fields = [*ComponentSerializer.Meta.fields, *HeldMixin.HELD_FIELDS]


class ComponentAssetRowSerializer(serializers.Serializer):
    """One installation (``GET components/{id}/assets``, reference §3.11): the asset with the row's id
    (``assigned_pivot_id``, what ``POST components/{id}/checkin`` takes) and its units."""

    assigned_pivot_id = serializers.IntegerField(source="pk", read_only=True)
    id = serializers.IntegerField(source="assigned_asset_id", read_only=True)
    name = serializers.SerializerMethodField()
    asset_tag = serializers.CharField(source="assigned_asset.asset_tag", read_only=True)
    qty = serializers.IntegerField(source="assigned_qty", read_only=True)
    note = NullIfEmptyField()
    type = serializers.SerializerMethodField()
    created_by = UserBriefField()
    created_at = IsoUtcField()
    available_actions = serializers.SerializerMethodField()

    def get_name(self, row) -> str:
        return row.assigned_asset.name or row.assigned_asset.asset_tag

    def get_type(self, row) -> str:
        return "asset"

    def get_available_actions(self, row) -> dict[str, bool]:
        return {"checkin": bool(self.context.get("can", {}).get("checkin"))}


# --- writes -------------------------------------------------------------------------------------------------------


def _fk(queryset, **kwargs) -> ScopedPrimaryKeyRelatedField:
    kwargs.setdefault("required", False)
    kwargs.setdefault("allow_null", True)
    return ScopedPrimaryKeyRelatedField(queryset=queryset, **kwargs)


class StockWriteSerializer(ApiModelSerializer):
    """Create and (partial) update input. ``name``, ``qty`` and ``category_id`` are required on create; ``qty`` is a
    whole number from 1 to 100,000 (API-CONTRACT.md §10); the category must be of the kind's type."""

    category_type: str

    name = StrictCharField(max_length=255)
    qty = StrictIntegerField(min_value=1, max_value=MAX_STOCK)
    category_id = ScopedPrimaryKeyRelatedField(source="category", queryset=Category.objects.all())
    company_id = _fk(Company.objects.all(), source="company")
    manufacturer_id = _fk(Manufacturer.objects.filter(deleted_at__isnull=True), source="manufacturer")
    supplier_id = _fk(Supplier.objects.all(), source="supplier")
    location_id = _fk(Location.objects.all(), source="location")
    model_number = TextField(max_length=255)
    order_number = TextField(max_length=255)
    purchase_date = StrictDateField(required=False, allow_null=True)
    purchase_cost = MoneyField(required=False, allow_null=True)
    min_amt = OptionalIntegerField(max_value=MAX_STOCK)
    requestable = LenientBooleanField()
    notes = TextField(max_length=65535)

    class Meta:
        validators: list = []
        fields = ["name", "qty", "category_id", "company_id", "manufacturer_id", "supplier_id", "location_id",
                  "model_number", "order_number", "purchase_date", "purchase_cost", "min_amt", "requestable", "notes"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        category = attrs.get("category")
        if category is not None and category.category_type != self.category_type:
            label = self.category_type
            raise serializers.ValidationError(
                {"category_id": [f"The category must be {'an' if label[0] in 'aeiou' else 'a'} {label} category."]})
        return super().validate(attrs)


class AccessoryWriteSerializer(StockWriteSerializer):
    category_type = CategoryType.ACCESSORY

    class Meta(StockWriteSerializer.Meta):
        model = Accessory


class ComponentWriteSerializer(StockWriteSerializer):
    category_type = CategoryType.COMPONENT
    serial = TextField(max_length=255)

    class Meta(StockWriteSerializer.Meta):
        model = Component
        fields = [*StockWriteSerializer.Meta.fields, "serial"]


class ConsumableWriteSerializer(StockWriteSerializer):
    category_type = CategoryType.CONSUMABLE
    item_no = TextField(max_length=255)

    class Meta(StockWriteSerializer.Meta):
        model = Consumable
        fields = [*StockWriteSerializer.Meta.fields, "item_no"]


class AccessoryCheckoutSerializer(CheckoutSerializer):
    """``checkout_qty`` units (default 1) to one of ``assigned_user`` / ``assigned_asset`` / ``assigned_location``
    (or ``assigned_to`` + ``checkout_to_type`` from older clients, turned into the matching key)."""

    quantity_field = "checkout_qty"
    checkout_qty = quantity_input()

    def to_internal_value(self, data):
        """``assigned_to`` names the target of ``checkout_to_type`` (a user by default). Sent beside a target key,
        it must name the same target: two different targets are refused, never one of them silently used."""
        if isinstance(data, dict) and data.get("assigned_to") not in (None, ""):
            key = f"assigned_{str(data.get('checkout_to_type') or 'user').strip().lower()}"
            given = [name for name in self.target_keys if data.get(name) not in (None, "")]
            if key not in self.target_keys:  # an unknown checkout_to_type: its own field error
                return super().to_internal_value(data)
            if not given:
                data = {**data, key: data["assigned_to"]}
            elif given != [key] or str(data[key]).strip() != str(data["assigned_to"]).strip():
                raise serializers.ValidationError({"assigned_to": [TWO_TARGETS.format(key=given[0])]})
        return super().to_internal_value(data)


class SingleTargetCheckoutSerializer(CheckoutSerializer):
    """A kind with one target type, named by Snipe-IT's ``assigned_to`` (or by the shared target key, e.g.
    ``assigned_user``); the quantity input is the kind's ``quantity_field``. Both keys naming different targets
    are refused."""

    assigned_to = StrictIntegerField(required=False, allow_null=True)

    def validate(self, attrs):
        key = self.target_keys[0]
        legacy = attrs.pop("assigned_to", None)
        if attrs.get(key) is None:
            attrs[key] = legacy
        elif legacy is not None and legacy != attrs[key]:
            raise serializers.ValidationError({"assigned_to": [TWO_TARGETS.format(key=key)]})
        if attrs.get(key) is None:
            raise serializers.ValidationError({"assigned_to": ["The assigned to field is required."]})
        return super().validate(attrs)


class ConsumableCheckoutSerializer(SingleTargetCheckoutSerializer):
    """``checkout_qty`` units (default 1) to a user: ``assigned_to`` (Snipe-IT's key) or ``assigned_user``."""

    quantity_field = "checkout_qty"
    target_keys = ("assigned_user",)
    checkout_qty = quantity_input()


class ComponentCheckoutSerializer(SingleTargetCheckoutSerializer):
    """``assigned_qty`` units (default 1) into an asset: ``assigned_to`` (Snipe-IT's key) or ``assigned_asset``."""

    quantity_field = "assigned_qty"
    target_keys = ("assigned_asset",)
    assigned_qty = quantity_input()


class QuantityCheckinSerializer(ApiSerializer):
    """A checkin of an assignment row: all its units, or ``checkin_qty`` of them."""

    note = TextField(max_length=65535)
    checkin_qty = quantity_input()

