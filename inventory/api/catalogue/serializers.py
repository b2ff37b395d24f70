"""Catalogue records (Snipe-IT's transformer shapes, reference §3.4-§3.8, with ISO UTC timestamps) and the write
serializers that validate create/update input with Laravel's messages."""

from __future__ import annotations

import re
from typing import Any

from django.core.validators import EmailValidator, RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import User
from assetsvc.api.fields import (
    BriefField,
    CompanyBriefField,
    CountField,
    IsoUtcField,
    LenientBooleanField,
    NullIfEmptyField,
    OptionalIntegerField,
    ScopedPrimaryKeyRelatedField,
    StrictCharField,
    TextField,
    VisibleMixin,
)
from assetsvc.api.formats import brief
from assetsvc.api.serializers import ApiModelSerializer
from companies.models import Company
from inventory.api.base import RecordSerializer
from inventory.choices import CategoryType, StatusType
from inventory.models import (
    AssetModel,
    Category,
    CustomFieldset,
    Depreciation,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.services.catalogue import UNIQUE_MESSAGES, name_taken

BRIEF_SCHEMA = {
    "type": "object",
    "nullable": True,
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
}
DEFAULT_FIELDSET_VALUES_SCHEMA = {"type": "array", "items": {"type": "object", "properties": {
    "name": {"type": "string"}, "db_column_name": {"type": "string"},
    "default_value": {"type": "string", "nullable": True},
    "format": {"type": "string"}, "required": {"type": "boolean"}}}}
ACTIONS_SCHEMA = {"type": "object", "additionalProperties": {"type": "boolean"}}
MAX_INT = 2_147_483_647

# --- read-side fields ---------------------------------------------------------------------------------------------


# --- records ------------------------------------------------------------------------------------------------------


class StatusLabelSerializer(RecordSerializer):
    assets_count = CountField()
    notes = serializers.CharField(read_only=True)

    class Meta:
        model = StatusLabel
        fields = ["id", "name", "type", "color", "show_in_nav", "default_label", "assets_count", "notes",
                  "created_by", "created_at", "updated_at", "available_actions"]


class CategorySerializer(RecordSerializer):
    image = serializers.SerializerMethodField()
    category_type = serializers.CharField(source="get_category_type_display", read_only=True)
    has_eula = serializers.SerializerMethodField()
    eula = NullIfEmptyField(source="eula_text")
    item_count = serializers.SerializerMethodField()
    assets_count = CountField()
    accessories_count = CountField()
    consumables_count = CountField()
    components_count = CountField()
    licenses_count = CountField()
    notes = NullIfEmptyField()

    class Meta:
        model = Category
        fields = ["id", "name", "image", "category_type", "has_eula", "use_default_eula", "eula", "checkin_email",
                  "require_acceptance", "item_count", "assets_count", "accessories_count", "consumables_count",
                  "components_count", "licenses_count", "created_by", "notes", "created_at", "updated_at",
                  "available_actions"]

    def get_image(self, obj) -> str | None:
        return None

    def get_has_eula(self, obj) -> bool:
        return bool(obj.eula_text)

    def get_item_count(self, obj) -> int:
        """The count of the category's own kind of item (Snipe-IT's ``item_count``)."""
        return int(getattr(obj, f"{obj.category_type}s_count" if obj.category_type != "accessory"
                           else "accessories_count", 0) or 0)


class ManufacturerSerializer(RecordSerializer):
    image = serializers.SerializerMethodField()
    assets_count = CountField()
    licenses_count = CountField()
    consumables_count = CountField()
    accessories_count = CountField()
    components_count = CountField()
    notes = NullIfEmptyField()
    deleted_at = IsoUtcField(allow_null=True)

    class Meta:
        model = Manufacturer
        fields = ["id", "name", "url", "image", "support_url", "warranty_lookup_url", "support_phone",
                  "support_email", "assets_count", "licenses_count", "consumables_count", "accessories_count",
                  "components_count", "notes", "created_by", "created_at", "updated_at", "deleted_at",
                  "available_actions"]

    def get_image(self, obj) -> str | None:
        return None

    def get_available_actions(self, obj) -> dict[str, bool]:
        deleted = obj.deleted_at is not None
        return {"update": self.can("edit", obj) and not deleted, "restore": self.can("delete", obj) and deleted,
                "delete": self.deletable(obj)}


class SupplierSerializer(RecordSerializer):
    image = serializers.SerializerMethodField()
    assets_count = CountField()
    accessories_count = CountField()
    licenses_count = CountField()
    consumables_count = CountField()
    components_count = CountField()
    notes = NullIfEmptyField()

    class Meta:
        model = Supplier
        fields = ["id", "name", "image", "url", "address", "address2", "city", "state", "country", "zip", "fax",
                  "phone", "email", "contact", "assets_count", "accessories_count", "licenses_count",
                  "consumables_count", "components_count", "notes", "created_by", "created_at", "updated_at",
                  "available_actions"]

    def get_image(self, obj) -> str | None:
        return None


class DepreciationSerializer(RecordSerializer):
    """Snipe-IT's ``DepreciationsTransformer``: ``months`` as "36 months", a percent floor as "10%"; plus
    ``depreciation_type`` and the floor as a number (``depreciation_min_value``) for clients that compute."""

    months = serializers.SerializerMethodField()
    depreciation_min = serializers.SerializerMethodField()
    assets_count = CountField()
    models_count = CountField()
    licenses_count = CountField()

    class Meta:
        model = Depreciation
        fields = ["id", "name", "months", "depreciation_min", "depreciation_type", "assets_count", "models_count",
                  "licenses_count", "created_by", "created_at", "updated_at", "available_actions"]

    def get_months(self, obj) -> str:
        return f"{obj.months} months"

    @extend_schema_field({"oneOf": [{"type": "string"}, {"type": "number"}]})
    def get_depreciation_min(self, obj) -> Any:
        value = obj.depreciation_min.normalize() if obj.depreciation_min is not None else 0
        text = format(value, "f")
        if obj.depreciation_type == Depreciation.Type.PERCENT:
            return f"{text}%"
        return float(value)


@extend_schema_field({"type": "object", "nullable": True})
class ManagerField(VisibleMixin, serializers.ReadOnlyField):
    def to_representation(self, value):
        return {"id": value.pk, "name": value.full_name, "username": value.username,
                "first_name": value.first_name, "last_name": value.last_name, "email": value.email}


class LocationSerializer(RecordSerializer):
    image = serializers.SerializerMethodField()
    address = NullIfEmptyField()
    address2 = NullIfEmptyField()
    city = NullIfEmptyField()
    state = NullIfEmptyField()
    country = NullIfEmptyField()
    zip = NullIfEmptyField()
    phone = NullIfEmptyField()
    fax = NullIfEmptyField()
    accessories_count = CountField()
    assigned_accessories_count = CountField()
    assigned_assets_count = CountField()
    assets_count = CountField()
    rtd_assets_count = CountField()
    users_count = CountField()
    currency = NullIfEmptyField()
    ldap_ou = NullIfEmptyField()
    notes = NullIfEmptyField()
    parent = BriefField()
    manager = ManagerField()
    company = CompanyBriefField()
    children = serializers.SerializerMethodField()

    class Meta:
        model = Location
        fields = ["id", "name", "image", "address", "address2", "city", "state", "country", "zip", "phone", "fax",
                  "accessories_count", "assigned_accessories_count", "assigned_assets_count", "assets_count",
                  "rtd_assets_count", "users_count", "currency", "ldap_ou", "notes", "created_at", "updated_at",
                  "parent", "manager", "company", "children", "available_actions"]

    def get_image(self, obj) -> str | None:
        return None

    def get_children(self, obj) -> list[dict[str, Any]]:
        return [brief(child) for child in obj.children.all()]

    def get_available_actions(self, obj) -> dict[str, Any]:
        deletable = self.deletable(obj)
        return {"update": self.can("edit", obj), "delete": deletable, "bulk_selectable": {"delete": deletable},
                "clone": self.can("create")}


class AssetModelSerializer(RecordSerializer):
    manufacturer = serializers.SerializerMethodField()
    image = serializers.SerializerMethodField()
    model_number = NullIfEmptyField()
    min_amt = serializers.SerializerMethodField()
    remaining = serializers.SerializerMethodField()
    depreciation = serializers.SerializerMethodField()
    assets_count = CountField()
    category = BriefField()
    fieldset = serializers.SerializerMethodField()
    default_fieldset_values = serializers.SerializerMethodField()
    eol = serializers.SerializerMethodField()
    notes = NullIfEmptyField()
    deleted_at = IsoUtcField(allow_null=True)

    class Meta:
        model = AssetModel
        fields = ["id", "name", "manufacturer", "image", "model_number", "min_amt", "remaining", "depreciation",
                  "assets_count", "category", "fieldset", "default_fieldset_values", "eol", "requestable", "notes",
                  "created_by", "created_at", "updated_at", "deleted_at", "available_actions"]

    @extend_schema_field(BRIEF_SCHEMA)
    def get_manufacturer(self, obj) -> dict[str, Any] | None:
        manufacturer = obj.manufacturer
        return brief(manufacturer) if manufacturer is not None and manufacturer.deleted_at is None else None

    def get_image(self, obj) -> str | None:
        return None

    def get_min_amt(self, obj) -> int | None:
        return obj.min_amt or None

    def get_remaining(self, obj) -> int:
        return int(getattr(obj, "assets_count", 0) or 0) - (obj.min_amt or 0)

    @extend_schema_field(BRIEF_SCHEMA)
    def get_depreciation(self, obj) -> dict[str, Any] | None:
        return brief(obj.depreciation) if obj.depreciation_id else None

    @extend_schema_field(BRIEF_SCHEMA)
    def get_fieldset(self, obj) -> dict[str, Any] | None:
        return brief(obj.fieldset) if obj.fieldset_id else None

    @extend_schema_field(DEFAULT_FIELDSET_VALUES_SCHEMA)
    def get_default_fieldset_values(self, obj) -> list[dict[str, Any]]:
        """One entry per field of the model's fieldset, in its order (no API sets a default value yet)."""
        if not obj.fieldset_id:
            return []
        return [{"name": m.field.name, "db_column_name": m.field.db_column_name, "default_value": None,
                 "format": m.field.format, "required": m.required} for m in obj.fieldset.memberships.all()]

    def get_eol(self, obj) -> str:
        return f"{obj.eol} months" if obj.eol else "None"

    def get_available_actions(self, obj) -> dict[str, bool]:
        deleted = obj.deleted_at is not None
        return {"update": self.can("edit", obj) and not deleted, "delete": self.deletable(obj),
                "clone": self.can("create") and not deleted, "restore": self.can("delete", obj) and deleted}


# --- write side ---------------------------------------------------------------------------------------------------


def name_field(min_length: int = 1) -> StrictCharField:
    return StrictCharField(max_length=255, min_length=min_length)


URL_SCHEMES = ("http://", "https://", "afp://", "facetime://", "file://", "irc://")


def url_validator(attr: str) -> RegexValidator:
    """Snipe-IT's ``starts_with:http://,https://,...`` rule for manufacturer links."""
    schemes = ", ".join(URL_SCHEMES)
    return RegexValidator(
        r"^(?:" + "|".join(re.escape(s) for s in URL_SCHEMES) + r")", flags=re.IGNORECASE,
        message=f"The {attr} must start with one of the following: {schemes}.",
    )


def email_validator(attr: str) -> EmailValidator:
    return EmailValidator(message=f"The {attr} must be a valid email address.")


HEX_COLOR = RegexValidator(r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$",
                           message="The color field must be a valid hexadecimal color.")


class CatalogueWriteSerializer(ApiModelSerializer):
    """Validates ``self.input`` for create and (always partial) update; uniqueness of names is case-insensitive
    among live rows (the database constraints catch a lost race, see ``catalogue_services._save``)."""

    class Meta:
        validators: list = []

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if self.unique_inputs() & attrs.keys():
            candidate = self.Meta.model()
            for field in self.Meta.model._meta.concrete_fields:
                if self.instance is not None:
                    setattr(candidate, field.attname, getattr(self.instance, field.attname))
            for key, value in attrs.items():
                setattr(candidate, key, value)
            if name_taken(candidate):
                raise serializers.ValidationError(UNIQUE_MESSAGES[self.Meta.model])
        return attrs

    def unique_inputs(self) -> set[str]:
        return {"name"}


class StatusLabelWriteSerializer(CatalogueWriteSerializer):
    name = name_field()
    type = serializers.ChoiceField(choices=StatusType.choices)
    color = serializers.CharField(required=False, allow_null=True, max_length=10, validators=[HEX_COLOR])
    show_in_nav = LenientBooleanField()
    default_label = LenientBooleanField()
    notes = TextField()

    class Meta(CatalogueWriteSerializer.Meta):
        model = StatusLabel
        fields = ["name", "type", "color", "show_in_nav", "default_label", "notes"]

    def get_fields(self):
        fields = super().get_fields()
        fields["type"].error_messages["required"] = "Status label type is required."
        fields["type"].error_messages["null"] = "Status label type is required."
        return fields

    def to_internal_value(self, data):
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            data = {**data, "type": data["type"].strip().lower()}
        return super().to_internal_value(data)


class CategoryWriteSerializer(CatalogueWriteSerializer):
    name = name_field()
    category_type = serializers.ChoiceField(choices=CategoryType.choices)
    eula_text = TextField()
    use_default_eula = LenientBooleanField()
    require_acceptance = LenientBooleanField()
    checkin_email = LenientBooleanField()
    notes = TextField()

    class Meta(CatalogueWriteSerializer.Meta):
        model = Category
        fields = ["name", "category_type", "eula_text", "use_default_eula", "require_acceptance", "checkin_email",
                  "notes"]

    def to_internal_value(self, data):
        if isinstance(data, dict) and isinstance(data.get("category_type"), str):
            data = {**data, "category_type": data["category_type"].strip().lower()}
        return super().to_internal_value(data)

    def unique_inputs(self) -> set[str]:
        return {"name", "category_type"}


class ManufacturerWriteSerializer(CatalogueWriteSerializer):
    name = name_field(min_length=2)
    url = TextField(max_length=2000, validators=[url_validator("url")])
    support_url = TextField(max_length=2000, validators=[url_validator("support url")])
    warranty_lookup_url = TextField(max_length=2000, validators=[url_validator("warranty lookup url")])
    support_phone = TextField(max_length=50)
    support_email = TextField(max_length=191, validators=[email_validator("support email")])
    notes = TextField()

    class Meta(CatalogueWriteSerializer.Meta):
        model = Manufacturer
        fields = ["name", "url", "support_url", "warranty_lookup_url", "support_phone", "support_email", "notes"]


class SupplierWriteSerializer(CatalogueWriteSerializer):
    name = name_field()
    address = TextField(max_length=250)
    address2 = TextField(max_length=250)
    city = TextField(max_length=191)
    state = TextField(max_length=191)
    country = TextField(max_length=191)
    zip = TextField(max_length=20)
    phone = TextField(max_length=35)
    fax = TextField(max_length=35)
    email = TextField(max_length=150, validators=[email_validator("email")])
    contact = TextField(max_length=100)
    url = TextField(max_length=250)
    notes = TextField()

    class Meta(CatalogueWriteSerializer.Meta):
        model = Supplier
        fields = ["name", "address", "address2", "city", "state", "country", "zip", "phone", "fax", "email",
                  "contact", "url", "notes"]


class LocationWriteSerializer(CatalogueWriteSerializer):
    name = name_field(min_length=2)
    parent_id = ScopedPrimaryKeyRelatedField(source="parent", queryset=Location.objects.all(), required=False,
                                             allow_null=True)
    manager_id = ScopedPrimaryKeyRelatedField(source="manager", queryset=User.objects.filter(deleted_at__isnull=True),
                                              required=False, allow_null=True)
    company_id = ScopedPrimaryKeyRelatedField(source="company", queryset=Company.objects.all(), required=False,
                                              allow_null=True)
    address = TextField(max_length=191)
    address2 = TextField(max_length=191)
    city = TextField(max_length=191)
    state = TextField(max_length=191)
    country = TextField(max_length=191)
    zip = TextField(max_length=20)
    phone = TextField(max_length=35)
    fax = TextField(max_length=35)
    currency = TextField(max_length=10)
    ldap_ou = TextField(max_length=255)
    notes = TextField()

    class Meta(CatalogueWriteSerializer.Meta):
        model = Location
        fields = ["name", "parent_id", "manager_id", "company_id", "address", "address2", "city", "state",
                  "country", "zip", "phone", "fax", "currency", "ldap_ou", "notes"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        parent = attrs.get("parent")
        if parent is not None and self.instance is not None:
            ancestors, current = set(), parent
            while current is not None and current.pk not in ancestors:  # cheap pre-check; the service re-checks
                if current.pk == self.instance.pk:
                    raise serializers.ValidationError({"parent_id": ["The parent id must not create a circular "
                                                                     "reference."]})
                ancestors.add(current.pk)
                current = current.parent
        return super().validate(attrs)


class DepreciationWriteSerializer(CatalogueWriteSerializer):
    """Snipe-IT's rules: ``name`` 3 to 255 characters, unique; ``months`` a whole number from 1 to 3600; the floor
    not negative, at most 100 when it is a percent."""

    name = name_field(min_length=3)
    months = serializers.IntegerField(min_value=1, max_value=3600, error_messages={
        "min_value": "The months field must be greater than 0.", "max_value": "The months field must not be greater "
        "than 3600.", "invalid": "The months field must be an integer.", "required": "The months field is required."})
    depreciation_min = serializers.DecimalField(max_digits=13, decimal_places=2, min_value=0, required=False,
                                                allow_null=True)
    depreciation_type = serializers.ChoiceField(choices=Depreciation.Type.choices, required=False)

    class Meta(CatalogueWriteSerializer.Meta):
        model = Depreciation
        fields = ["name", "months", "depreciation_min", "depreciation_type"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "depreciation_min" in attrs and attrs["depreciation_min"] is None:
            attrs["depreciation_min"] = 0
        kind = attrs.get("depreciation_type", getattr(self.instance, "depreciation_type", "amount"))
        floor = attrs.get("depreciation_min", getattr(self.instance, "depreciation_min", 0))
        if kind == Depreciation.Type.PERCENT and floor is not None and floor > 100:
            raise serializers.ValidationError({"depreciation_min": ["A percent floor must be at most 100."]})
        return super().validate(attrs)


class AssetModelWriteSerializer(CatalogueWriteSerializer):
    name = name_field()
    model_number = TextField(max_length=255)
    category_id = ScopedPrimaryKeyRelatedField(source="category", queryset=Category.objects.all())
    manufacturer_id = ScopedPrimaryKeyRelatedField(
        source="manufacturer", queryset=Manufacturer.objects.filter(deleted_at__isnull=True), required=False,
        allow_null=True,
    )
    min_amt = OptionalIntegerField()
    eol = OptionalIntegerField(max_value=240)
    requestable = LenientBooleanField()
    notes = TextField()
    #: The custom fieldset of its assets (alias ``custom_fieldset_id``); null detaches.
    fieldset_id = ScopedPrimaryKeyRelatedField(source="fieldset", queryset=CustomFieldset.objects.all(),
                                               required=False, allow_null=True)
    depreciation_id = ScopedPrimaryKeyRelatedField(source="depreciation", queryset=Depreciation.objects.all(),
                                                   required=False, allow_null=True)

    class Meta(CatalogueWriteSerializer.Meta):
        model = AssetModel
        fields = ["name", "model_number", "category_id", "manufacturer_id", "min_amt", "eol", "requestable",
                  "notes", "fieldset_id", "depreciation_id"]

    def to_internal_value(self, data):
        if isinstance(data, dict) and "fieldset_id" not in data and "custom_fieldset_id" in data:
            data = {**data, "fieldset_id": data["custom_fieldset_id"]}
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        category = attrs.get("category")
        if category is not None and category.category_type != CategoryType.ASSET:
            raise serializers.ValidationError({"category_type": ["This category must be an asset category."]})
        return super().validate(attrs)

    def unique_inputs(self) -> set[str]:
        return {"name", "model_number"}
