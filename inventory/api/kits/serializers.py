"""Kit records (Snipe-IT's ``PredefinedKitsTransformer``), the rows of a kit's lines, and the inputs of a kit, a
line and a kit checkout."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.fields import StrictCharField, StrictDateField, StrictIntegerField, TextField, actions_schema
from assetsvc.api.serializers import ApiModelSerializer, ApiSerializer
from inventory.api.base import RecordSerializer
from inventory.models import Kit
from inventory.services.kits import MAX_LINE_QUANTITY, NAME_TAKEN, name_taken


class KitSerializer(RecordSerializer):
    """A kit: ``available_actions`` are ``update``, ``delete`` and ``checkout`` (``assets.checkout``), and
    ``user_can_checkout`` is always true, as in Snipe-IT."""

    user_can_checkout = serializers.SerializerMethodField()

    class Meta:
        model = Kit
        fields = ["id", "name", "created_by", "created_at", "updated_at", "available_actions", "user_can_checkout"]

    @extend_schema_field(actions_schema("update", "delete", "checkout"))
    def get_available_actions(self, obj) -> dict[str, bool]:
        return {"update": self.can("edit", obj), "delete": self.can("delete", obj),
                "checkout": bool(self.context.get("can", {}).get("checkout"))}

    def get_user_can_checkout(self, obj) -> bool:
        return True


class KitLineSerializer(serializers.Serializer):
    """One line of a kit (``transformElement``): the item's ``id`` and ``name``, the pivot row's id, the kit's id
    (``owner_id``) and the quantity."""

    id = serializers.SerializerMethodField()
    pivot_id = serializers.IntegerField(source="pk", read_only=True)
    owner_id = serializers.IntegerField(source="kit_id", read_only=True)
    quantity = serializers.IntegerField(read_only=True)
    name = serializers.SerializerMethodField()
    available_actions = serializers.SerializerMethodField()

    def get_id(self, obj) -> int:
        return getattr(obj, f"{obj.item_field}_id")

    def get_name(self, obj) -> str:
        return obj.item.name

    @extend_schema_field(actions_schema("update", "delete"))
    def get_available_actions(self, obj) -> dict[str, bool]:
        can = self.context.get("line_actions", {})
        return {"update": bool(can.get("update")), "delete": bool(can.get("delete"))}


class KitLinesSerializer(serializers.Serializer):
    """``{total, rows}`` of a kit's lines (all of them: a kit is short)."""

    total = serializers.IntegerField()
    rows = KitLineSerializer(many=True)


class KitWriteSerializer(ApiModelSerializer):
    name = StrictCharField(max_length=255)

    class Meta:
        model = Kit
        fields = ["name"]
        validators: list = []

    def validate_name(self, value: str) -> str:
        value = value.strip()
        if not value:
            raise serializers.ValidationError("The name field is required.")
        if name_taken(value, exclude_pk=getattr(self.instance, "pk", None)):
            raise serializers.ValidationError(NAME_TAKEN)
        return value


class KitQuantitySerializer(ApiSerializer):
    """A line's quantity: 1 when missing, and (as Snipe-IT) 1 for anything below 1."""

    quantity = StrictIntegerField(required=False, allow_null=True, max_value=MAX_LINE_QUANTITY)

    def validate_quantity(self, value: int | None) -> int:
        return 1 if value is None or value < 1 else value

    def units(self) -> int:
        return self.validated_data.get("quantity") or 1


def line_add_serializer(field: str) -> type[KitQuantitySerializer]:
    """The input of adding a line: the item's id under its kind's key (``model``, ``license``, ...) and the
    quantity."""
    name = f"KitAdd{field.capitalize()}Serializer"
    return type(name, (KitQuantitySerializer,), {"__module__": __name__, field: StrictIntegerField()})


LINE_ADD_SERIALIZERS = {field: line_add_serializer(field) for field in ("model", "license", "accessory", "consumable")}


class KitCheckoutSerializer(ApiSerializer):
    user_id = StrictIntegerField()
    checkout_at = StrictDateField(required=False, allow_null=True)
    expected_checkin = StrictDateField(required=False, allow_null=True)
    note = TextField(max_length=65535)


class KitItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class KitAssetSerializer(KitItemSerializer):
    asset_tag = serializers.CharField()


class KitCheckoutResultSerializer(serializers.Serializer):
    """What a kit checkout handed out."""

    assets = KitAssetSerializer(many=True)
    licenses = KitItemSerializer(many=True)
    accessories = KitItemSerializer(many=True)
    consumables = KitItemSerializer(many=True)


def checkout_result(done: Any) -> dict[str, Any]:
    return KitCheckoutResultSerializer(done).data
