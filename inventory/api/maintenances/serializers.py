"""The maintenance record (Snipe-IT's ``AssetMaintenancesTransformer`` in our formats: ISO UTC timestamps,
``YYYY-MM-DD`` dates, two-decimal cost strings) and the create/update input (``AssetMaintenance::$rules``).

The record also carries ``name`` (the title again) and the input takes ``name`` for ``title`` when ``title`` is not
sent (docs/decisions.md). ``company`` is the asset's company.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.fields import (
    BRIEF_SCHEMA,
    LenientBooleanField,
    MoneyField,
    NullIfEmptyField,
    ScopedPrimaryKeyRelatedField,
    StrictCharField,
    StrictDateField,
    TextField,
    actions_schema,
    company_brief,
    person_brief,
    reference_limit,
)
from assetsvc.api.formats import brief, record_timestamp
from assetsvc.api.serializers import ApiModelSerializer
from inventory.api.base import DateField, MoneyRecordField, RecordSerializer
from inventory.models import Asset, Maintenance, MaintenanceType, Supplier

TYPE_INVALID = "The selected asset maintenance type is invalid."
_NULLABLE = {"type": "object", "nullable": True}
_ASSET_SCHEMA = {**_NULLABLE, "properties": {
    "id": {"type": "integer"}, "name": {"type": "string", "nullable": True}, "asset_tag": {"type": "string"},
    "serial": {"type": "string", "nullable": True}, "deleted_at": {"type": "string", "format": "date-time",
                                                                   "nullable": True},
    "created_at": {"type": "string", "format": "date-time"}, "updated_at": {"type": "string", "format": "date-time"}}}
_STATUS_SCHEMA = {**_NULLABLE, "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "status_type": {"type": "string"},
    "status_meta": {"type": "string"}}}
#: What the record reads besides the maintenance (pass to ``select_related``).
MAINTENANCE_RELATED = ("asset", "asset__model", "asset__status", "asset__company", "asset__location",
                       "asset__rtd_location", "supplier", "created_by")


class MaintenanceSerializer(RecordSerializer):
    """One maintenance. ``context["can"]`` holds the caller's maintenance verbs (view, create, edit, delete)."""

    name = serializers.CharField(source="title", read_only=True)
    asset = serializers.SerializerMethodField()
    model = serializers.SerializerMethodField()
    status_label = serializers.SerializerMethodField()
    company = serializers.SerializerMethodField()
    location = serializers.SerializerMethodField()
    rtd_location = serializers.SerializerMethodField()
    notes = NullIfEmptyField()
    supplier = serializers.SerializerMethodField()
    cost = MoneyRecordField()
    start_date = DateField()
    completion_date = DateField()
    asset_maintenance_time = serializers.IntegerField(read_only=True, allow_null=True)
    user_id = serializers.SerializerMethodField()

    class Meta:
        model = Maintenance
        fields = ["id", "asset", "model", "status_label", "company", "title", "name", "location", "rtd_location",
                  "notes", "supplier", "cost", "asset_maintenance_type", "start_date", "asset_maintenance_time",
                  "completion_date", "user_id", "created_by", "created_at", "updated_at", "is_warranty",
                  "available_actions"]

    @extend_schema_field(_ASSET_SCHEMA)
    def get_asset(self, obj: Maintenance) -> dict[str, Any] | None:
        asset = obj.asset
        return {"id": asset.pk, "name": asset.name or None, "asset_tag": asset.asset_tag,
                "serial": asset.serial or None, "deleted_at": record_timestamp(asset.deleted_at),
                "created_at": record_timestamp(asset.created_at), "updated_at": record_timestamp(asset.updated_at)}

    @extend_schema_field(BRIEF_SCHEMA)
    def get_model(self, obj: Maintenance) -> dict[str, Any] | None:
        model = obj.asset.model
        if model is None:
            return None
        return {"id": model.pk, "name": f"{model.name} {model.model_number or ''}".strip()}

    @extend_schema_field(_STATUS_SCHEMA)
    def get_status_label(self, obj: Maintenance) -> dict[str, Any] | None:
        asset = obj.asset
        status = asset.status
        if status is None:
            return None
        return {"id": status.pk, "name": status.name, "status_type": status.type,
                "status_meta": "deployed" if asset.is_assigned else status.type}

    @extend_schema_field(BRIEF_SCHEMA)
    def get_company(self, obj: Maintenance) -> dict[str, Any] | None:
        return company_brief(obj.asset.company, reference_limit(self.context))

    @extend_schema_field(BRIEF_SCHEMA)
    def get_location(self, obj: Maintenance) -> dict[str, Any] | None:
        return brief(obj.asset.location)

    @extend_schema_field(BRIEF_SCHEMA)
    def get_rtd_location(self, obj: Maintenance) -> dict[str, Any] | None:
        return brief(obj.asset.rtd_location)

    @extend_schema_field(BRIEF_SCHEMA)
    def get_supplier(self, obj: Maintenance) -> dict[str, Any] | None:
        return brief(obj.supplier)

    @extend_schema_field({**BRIEF_SCHEMA, "description": "Who recorded it, as ``created_by`` (Snipe-IT's legacy key)."})
    def get_user_id(self, obj: Maintenance) -> dict[str, Any] | None:
        return person_brief(obj.created_by, reference_limit(self.context))

    @extend_schema_field(actions_schema("update", "delete"))
    def get_available_actions(self, obj: Maintenance) -> dict[str, bool]:
        live = obj.deleted_at is None
        return {"update": self.can("edit") and live and obj.asset.deleted_at is None,
                "delete": self.can("delete") and live}


class MaintenanceTypeField(serializers.CharField):
    """One of Snipe-IT's maintenance types (:class:`~inventory.models.MaintenanceType`), in any letter case; stored
    as the type is spelled."""

    _by_key = {choice.value.casefold(): choice.value for choice in MaintenanceType}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str):
            raise serializers.ValidationError(TYPE_INVALID)
        value = self._by_key.get(" ".join(data.split()).casefold())
        if value is None:
            raise serializers.ValidationError(TYPE_INVALID)
        return value


class OptionalDateField(StrictDateField):
    """An optional ``YYYY-MM-DD`` date; null and Laravel's empty string clear it (Snipe-IT's
    ``setCompletionDateAttribute``: ``""`` and ``0000-00-00`` are null)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def validate_empty_values(self, data):
        if data is None or (isinstance(data, str) and data.strip() in ("", "0000-00-00")):
            return True, None
        return super().validate_empty_values(data)


class MaintenanceWriteSerializer(ApiModelSerializer):
    """Create and (partial) update input. ``asset_id`` (a live asset the caller may see), ``asset_maintenance_type``,
    ``title`` (at most 100 characters) and ``start_date`` are required on create; ``supplier_id`` is optional."""

    asset_id = ScopedPrimaryKeyRelatedField(source="asset", queryset=Asset.objects.filter(deleted_at__isnull=True))
    supplier_id = ScopedPrimaryKeyRelatedField(source="supplier", queryset=Supplier.objects.all(), required=False,
                                               allow_null=True)
    asset_maintenance_type = MaintenanceTypeField(
        help_text="One of: " + ", ".join(MaintenanceType.values) + " (any letter case).")
    title = StrictCharField(max_length=100, required=False)
    name = StrictCharField(max_length=100, required=False, write_only=True,
                           help_text="The title, when ``title`` is not sent.")
    is_warranty = LenientBooleanField()
    start_date = StrictDateField()
    completion_date = OptionalDateField()
    cost = MoneyField(required=False, allow_null=True)
    notes = TextField(max_length=65535)

    class Meta:
        model = Maintenance
        validators: list = []
        fields = ["asset_id", "supplier_id", "asset_maintenance_type", "title", "name", "is_warranty", "start_date",
                  "completion_date", "cost", "notes"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        alias = attrs.pop("name", None)
        if "title" not in attrs and alias is not None:
            attrs["title"] = alias
        if not self.partial and "title" not in attrs:
            raise serializers.ValidationError({"title": ["The title field is required."]})
        return attrs

