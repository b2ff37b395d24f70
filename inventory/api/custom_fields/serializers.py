"""Custom field and fieldset records (API-CONTRACT.md §11: Snipe-IT's transformer keys, ISO timestamps) and the
write serializers that turn bad input into field errors (never a 500)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.fields import (
    IsoUtcField,
    LenientBooleanField,
    OptionalIntegerField,
    ScopedPrimaryKeyRelatedField,
    StrictCharField,
    actions_schema,
    may_change_record,
)
from assetsvc.api.serializers import ApiModelSerializer, ApiSerializer
from inventory.choices import FieldElement
from inventory.models import CustomField, CustomFieldset
from inventory.services import custom_fields as services

NAME_TAKEN = services.NAME_TAKEN
ITEM_IDS = "The item must be a list of field ids."
BOOLEAN_KEYS = ("field_encrypted", "is_unique", "display_in_user_view", "auto_add_to_fieldsets", "show_in_listview",
                "display_checkin", "display_checkout", "display_audit")


# --- records ------------------------------------------------------------------------------------------------------


class CustomFieldSerializer(serializers.ModelSerializer):
    """A field record. ``required`` is the association's flag when the field is read inside a fieldset (the view
    sets ``fieldset_required`` on the row), else false."""

    db_column = serializers.CharField(source="db_column_name", read_only=True)
    field_values = serializers.SerializerMethodField()
    field_values_array = serializers.SerializerMethodField()
    type = serializers.CharField(source="element", read_only=True)
    required = serializers.SerializerMethodField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    available_actions = serializers.SerializerMethodField()

    class Meta:
        model = CustomField
        fields = ["id", "name", "db_column_name", "db_column", "format", "field_values", "field_values_array", "type",
                  "element", "field_encrypted", "is_unique", "required", "display_in_user_view",
                  "auto_add_to_fieldsets", "show_in_listview", "display_checkin", "display_checkout",
                  "display_audit", "help_text", "created_at", "updated_at", "available_actions"]
        read_only_fields = fields

    def get_field_values(self, obj) -> str | None:
        return obj.field_values or None

    @extend_schema_field({"type": "array", "items": {"type": "string"}, "nullable": True})
    def get_field_values_array(self, obj) -> list[str] | None:
        return obj.field_values_array

    def get_required(self, obj) -> bool:
        return bool(getattr(obj, "fieldset_required", False))

    @extend_schema_field(actions_schema("update", "delete"))
    def get_available_actions(self, obj) -> dict[str, bool]:
        can = self.context.get("can", {})
        changeable = may_change_record(self.context, obj)  # issue 25: shared records
        deletable = bool(can.get("delete")) and not getattr(obj, "in_use", False) and changeable
        return {"update": bool(can.get("edit")) and changeable, "delete": deletable}


class FieldRowsSerializer(serializers.Serializer):
    """``{total, rows}`` of field records (a fieldset's fields, in its order)."""

    total = serializers.IntegerField()
    rows = CustomFieldSerializer(many=True)


class BriefRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ModelRowsSerializer(serializers.Serializer):
    """``{total, rows: [{id, name}]}``: the models that use a fieldset."""

    total = serializers.IntegerField()
    rows = BriefRowSerializer(many=True)


def fieldset_fields(fieldset: CustomFieldset) -> list[CustomField]:
    """The set's fields in order, each carrying its ``required`` flag (from the prefetched memberships)."""
    rows = []
    for membership in fieldset.memberships.all():
        field = membership.field
        field.fieldset_required = membership.required
        field.in_use = True  # a field in a set cannot be deleted
        rows.append(field)
    return rows


class CustomFieldsetSerializer(serializers.ModelSerializer):
    fields = serializers.SerializerMethodField(method_name="fields_of")
    models = serializers.SerializerMethodField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    available_actions = serializers.SerializerMethodField()

    class Meta:
        model = CustomFieldset
        fields = ["id", "name", "fields", "models", "created_at", "updated_at", "available_actions"]
        read_only_fields = fields

    @extend_schema_field(FieldRowsSerializer)
    def fields_of(self, obj) -> dict[str, Any]:
        rows = CustomFieldSerializer(fieldset_fields(obj), many=True, context=self.context).data
        return {"total": len(rows), "rows": rows}

    @extend_schema_field(ModelRowsSerializer)
    def get_models(self, obj) -> dict[str, Any]:
        rows = [{"id": model.pk, "name": model.name} for model in obj.models.all()]
        return {"total": len(rows), "rows": rows}

    @extend_schema_field(actions_schema("update", "delete"))
    def get_available_actions(self, obj) -> dict[str, bool]:
        can = self.context.get("can", {})
        in_use = bool(obj.memberships.all()) or bool(obj.models.all())
        changeable = may_change_record(self.context, obj)  # issue 25: shared records
        return {"update": bool(can.get("edit")) and changeable,
                "delete": bool(can.get("delete")) and not in_use and changeable}


class DefaultValueRowSerializer(serializers.Serializer):
    """A row of ``fieldsets/{id}/fields/{model_id}``: the field and its default value for that model (none yet)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    type = serializers.CharField()
    field_values_array = serializers.ListField(child=serializers.CharField(), allow_null=True)
    default_value = serializers.CharField(allow_null=True)


class DefaultValueRowsSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    rows = DefaultValueRowSerializer(many=True)


# --- writes -------------------------------------------------------------------------------------------------------


class OptionalTextField(serializers.CharField):
    """Optional text kept as sent (trimmed); null stays null; numbers as text; lists and objects refused."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class LowerChoiceField(serializers.ChoiceField):
    """A choice compared ignoring case and surrounding spaces; anything else is ``The selected <attr> is invalid.``"""

    def to_internal_value(self, data):
        if isinstance(data, str):
            data = data.strip().lower()
        elif not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class CustomFieldWriteSerializer(ApiModelSerializer):
    name = StrictCharField(max_length=255)
    element = LowerChoiceField(choices=FieldElement.choices)
    format = OptionalTextField(max_length=255)
    field_values = OptionalTextField(max_length=65535)
    help_text = OptionalTextField(max_length=65535)
    field_encrypted = LenientBooleanField()
    is_unique = LenientBooleanField()
    display_in_user_view = LenientBooleanField()
    auto_add_to_fieldsets = LenientBooleanField()
    show_in_listview = LenientBooleanField()
    display_checkin = LenientBooleanField()
    display_checkout = LenientBooleanField()
    display_audit = LenientBooleanField()

    class Meta:
        model = CustomField
        fields = ["name", "element", "format", "field_values", "help_text", *BOOLEAN_KEYS]
        validators: list = []

    def validate_name(self, value: str) -> str:
        if services.field_name_taken(value, exclude_pk=getattr(self.instance, "pk", None)):
            raise serializers.ValidationError(NAME_TAKEN)
        return value

    def validate_format(self, value: str | None) -> str:
        normalized = services.normalize_format(value or "ANY")
        if normalized is None:
            raise serializers.ValidationError(services.format_problem(value or "ANY") or services.FORMAT_INVALID)
        return normalized

    def validate_field_values(self, value: str | None) -> str:
        return value or ""

    def validate_field_encrypted(self, value: bool) -> bool:
        if self.instance is not None and bool(value) != self.instance.field_encrypted:
            raise serializers.ValidationError(services.ENCRYPTION_FIXED)
        return value


class CustomFieldsetWriteSerializer(ApiModelSerializer):
    name = StrictCharField(max_length=255)

    class Meta:
        model = CustomFieldset
        fields = ["name"]
        validators: list = []

    def validate_name(self, value: str) -> str:
        if services.fieldset_name_taken(value, exclude_pk=getattr(self.instance, "pk", None)):
            raise serializers.ValidationError(NAME_TAKEN)
        return value


class AssociateSerializer(ApiSerializer):
    """``POST fields/{id}/associate``."""

    fieldset_id = ScopedPrimaryKeyRelatedField(queryset=CustomFieldset.objects.all())
    required = LenientBooleanField()
    order = OptionalIntegerField()


class DisassociateSerializer(ApiSerializer):
    """``POST fields/{id}/disassociate``."""

    fieldset_id = ScopedPrimaryKeyRelatedField(queryset=CustomFieldset.objects.all())


#: The reads Snipe-IT serves behind ``POST`` take no input (a body is ignored).
NO_INPUT_SCHEMA = {"type": "object", "description": "Ignored: this read takes no input.", "properties": {}}


@extend_schema_field({"type": "array", "items": {"type": "integer", "minimum": 1}})
class FieldIdsField(serializers.ListField):
    """A list of field ids (numbers or digit strings); anything else is one error on the key."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.JSONField())
        super().__init__(**kwargs)


class OrderSerializer(ApiSerializer):
    """``POST fields/fieldsets/{id}/order``: the set's field ids in their new order."""

    item = FieldIdsField(allow_empty=True)

    def validate_item(self, value: list[Any]) -> list[int]:
        ids = []
        for entry in value:
            text = str(entry).strip() if isinstance(entry, int | str) and not isinstance(entry, bool) else ""
            if not text.isdigit() or int(text) > 2**31 - 1:
                raise serializers.ValidationError(ITEM_IDS)
            ids.append(int(text))
        return ids
