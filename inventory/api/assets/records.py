"""The asset record (API-CONTRACT.md §3): the specification's keys plus Snipe-IT's, built from rows loaded with
:data:`ASSET_RELATED` so a list costs the same number of queries whatever its length."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rest_framework import serializers

from accounts.models import full_name
from accounts.permissions import has_access
from assetsvc.api.fields import (
    BriefField,
    CompanyBriefField,
    IsoUtcField,
    SchemaField,
    UserBriefField,
    actions_schema,
    person_brief,
    visible_reference,
)
from assetsvc.api.formats import brief, money, record_formats
from assetsvc.prepared import CompiledValues, int_sentinels
from assetsvc.scoping import limiting_company_id
from inventory import custom_values
from inventory.choices import StatusType
from inventory.models import (
    Asset,
    CheckoutAcceptance,
    Maintenance,
    asset_acceptance_exists,
    asset_display_name,
    in_maintenance,
)
from inventory.selectors.depreciation import book_value
from inventory.services.assets import add_months

#: Every relation the record reads (pass to ``select_related``).
ASSET_RELATED = (
    "model", "model__category", "model__manufacturer", "status", "supplier", "company", "location",
    "rtd_location", "assigned_user", "assigned_asset", "assigned_asset__model", "assigned_location", "created_by",
)
ACTION_VERBS = ("checkout", "checkin", "create", "edit", "delete", "audit")


# --- a list page without model instances (issue 13) ------------------------------------------------------------
# A 500-row page built ~5,500 model instances (the asset and each relation), which the profile showed as the largest
# part of its time. A page is read instead as tuples of exactly the columns :func:`asset_record` reads, wrapped in
# light objects with the same attributes, so one record builder still serves lists, reads and writes.


class Named:
    """A related row the record shows as ``{"id", "name"}``: ``pk`` and ``name`` (slots: a 500-row page makes
    thousands of these, and a keyword-argument object cost five times as much to build)."""

    __slots__ = ("pk", "name")

    def __init__(self, pk: int, name: str) -> None:
        self.pk = pk
        self.name = name


def _named(pk: int | None, name: str | None) -> Named | None:
    return None if pk is None else Named(pk, name)


def _ref(pk: int | None, **values: Any) -> SimpleNamespace | None:
    """A related row the record reads more of than its name: ``pk`` and ``values``."""
    return None if pk is None else SimpleNamespace(pk=pk, **values)


#: The columns a page reads (``values_list`` paths, in the order :class:`AssetRow` unpacks them): every asset column
#: the record shows, and of each relation only what :func:`asset_record` reads (a 500-row page read ~200 columns
#: per row otherwise: passwords, addresses, notes of every related row). Nothing else is read per row: the
#: query-budget tests (tests/inventory/assets/test_api_queries.py, test_query_budget_500.py) pin the count.
ROW_COLUMNS: tuple[str, ...] = (
    "id", "name", "asset_tag", "serial", "byod", "requestable", "notes", "order_number", "warranty_months",
    "purchase_date", "purchase_cost", "created_at", "updated_at", "last_audit_date", "next_audit_date",
    "deleted_at", "last_checkout", "last_checkin", "expected_checkin", "checkin_counter", "checkout_counter",
    "requests_counter", "assigned_user_id", "assigned_asset_id", "assigned_location_id",
    "model_id", "model__name", "model__model_number", "model__category_id", "model__category__name",
    "model__manufacturer_id", "model__manufacturer__name",
    "status_id", "status__name", "status__type", "supplier_id", "supplier__name", "company_id", "company__name",
    "location_id", "location__name", "rtd_location_id", "rtd_location__name",
    "assigned_user__username", "assigned_user__first_name", "assigned_user__last_name", "assigned_user__email",
    "assigned_user__employee_num", "assigned_user__company_id",
    "assigned_asset__name", "assigned_asset__asset_tag", "assigned_asset__model__name", "assigned_asset__company_id",
    "assigned_location__name",
    "created_by_id", "created_by__username", "created_by__first_name", "created_by__last_name",
    "created_by__company_id", "model__fieldset_id", "in_maintenance",
    "model__depreciation__months", "model__depreciation__depreciation_min", "model__depreciation__depreciation_type",
    "awaiting_acceptance",
)


class AssetRow:
    """An asset row from :data:`ROW_COLUMNS`, with the attributes and properties :func:`asset_record` reads."""

    def __init__(self, row: tuple) -> None:
        (self.pk, self.name, self.asset_tag, self.serial, self.byod, self.requestable, self.notes,
         self.order_number, self.warranty_months, self.purchase_date, self.purchase_cost, self.created_at,
         self.updated_at, self.last_audit_date, self.next_audit_date, self.deleted_at, self.last_checkout,
         self.last_checkin, self.expected_checkin, self.checkin_counter, self.checkout_counter,
         self.requests_counter, self.assigned_user_id, self.assigned_asset_id, self.assigned_location_id,
         model_id, model_name, model_number, category_id, category_name, manufacturer_id, manufacturer_name,
         status_id, status_name, status_type, supplier_id, supplier_name, company_id, company_name,
         location_id, location_name, rtd_id, rtd_name,
         user_username, user_first, user_last, user_email, user_employee_num, user_company_id,
         target_name, target_tag, target_model_name, target_company_id, assigned_location_name,
         creator_id, creator_username, creator_first, creator_last, creator_company_id, self.fieldset_id,
         self.in_maintenance, self.depreciation_months, self.depreciation_min, self.depreciation_type,
         self.awaiting_acceptance) = row
        self.model = _ref(model_id, name=model_name, model_number=model_number,
                          category=_named(category_id, category_name),
                          manufacturer=_named(manufacturer_id, manufacturer_name))
        self.status = SimpleNamespace(pk=status_id, name=status_name, type=status_type)
        self.supplier = _named(supplier_id, supplier_name)
        self.company = _named(company_id, company_name)
        self.location = _named(location_id, location_name)
        self.rtd_location = _named(rtd_id, rtd_name)
        self.assigned_user = _ref(
            self.assigned_user_id, username=user_username, first_name=user_first, last_name=user_last,
            email=user_email, employee_num=user_employee_num, company_id=user_company_id,
            full_name=full_name(user_first, user_last, user_username))
        self.assigned_asset = _ref(self.assigned_asset_id, asset_tag=target_tag, company_id=target_company_id,
                                   display_name=asset_display_name(target_name, target_model_name))
        self.assigned_location = _named(self.assigned_location_id, assigned_location_name)
        self.created_by = _ref(creator_id, username=creator_username, company_id=creator_company_id,
                               full_name=full_name(creator_first, creator_last, creator_username))
        # the flat foreign keys of a write's answer (asset_write_record)
        self.model_id, self.status_id, self.company_id = model_id, status_id, company_id
        self.supplier_id, self.location_id, self.rtd_location_id = supplier_id, location_id, rtd_id
        self.is_deleted = self.deleted_at is not None
        self.is_assigned = bool(self.assigned_user_id or self.assigned_asset_id or self.assigned_location_id)


#: The rows query of a page, compiled once per page size and process (:mod:`assetsvc.prepared`): its 13 joins cost
#: more to compile in Python than to run, and the database prepares the statement once per connection.
PAGE_ROWS = CompiledValues(
    lambda *ids: Asset.objects.filter(pk__in=ids)
    .annotate(in_maintenance=in_maintenance(), awaiting_acceptance=asset_acceptance_exists(PENDING)).order_by()
    .values_list(*ROW_COLUMNS), int_sentinels)


def asset_rows(ids: list[int]) -> list[AssetRow]:
    """The rows of ``ids`` (already scoped and paged), in that order, in one query; with their custom values when a
    model on the page has a fieldset (two queries more: the sets' fields and the page's values)."""
    if not ids:
        return []
    rows = {row[0]: AssetRow(row) for row in PAGE_ROWS.rows(*ids, shape=len(ids))}
    ordered = [rows[pk] for pk in ids if pk in rows]
    attach_custom_values(ordered)
    return ordered


def attach_custom_values(assets: list[Any]) -> None:
    """Set ``custom_slots`` (the fields of the asset's model's fieldset) and ``custom_stored`` (field id → stored
    text) on each of ``assets`` (rows or model instances with ``fieldset_id``), in at most two queries."""
    slots = custom_values.fieldset_slots(asset.fieldset_id for asset in assets)
    with_fields = [asset.pk for asset in assets if slots.get(asset.fieldset_id)]
    stored = custom_values.values_of(with_fields)
    for asset in assets:
        asset.custom_slots = slots.get(asset.fieldset_id, [])
        asset.custom_stored = stored.get(asset.pk, {})


def _custom_of(asset: Any) -> tuple[list[custom_values.Slot], dict[int, str]]:
    """An asset's fields and stored values: attached by :func:`asset_rows`, else loaded for this one asset."""
    if not hasattr(asset, "custom_slots"):
        asset.fieldset_id = asset.model.fieldset_id if asset.model_id else None
        attach_custom_values([asset])
    return asset.custom_slots, asset.custom_stored


def caller_permissions(user) -> dict[str, Any]:
    """The caller's asset permissions, evaluated once per request (not per row), and the company separation limits
    them to (``limit_company_id``: references to other companies' users are answered as null)."""
    perms: dict[str, Any] = {verb: has_access(user, f"assets.{verb}") for verb in ACTION_VERBS}
    perms["encrypted"] = has_access(user, custom_values.ENCRYPTED_PERMISSION)
    perms["limit_company_id"] = limiting_company_id(user)
    return perms


def assigned_to(asset: Asset, limit_company_id: int | None = None) -> dict[str, Any] | None:
    """Who or what holds the asset; null when nobody does, or when it is a user or an asset of a company that
    separation hides from the caller (a super user may check an asset out across companies: issue 25). The asset
    still reads as checked out (``status_meta`` ``deployed``)."""
    if asset.assigned_user_id:
        user = visible_reference(asset.assigned_user, limit_company_id)
        if user is None:
            return None
        return {
            "id": user.pk,
            "username": user.username,
            "name": user.full_name,
            "first_name": user.first_name,
            "last_name": user.last_name or None,
            "email": user.email or None,
            "employee_number": user.employee_num or None,
            "type": "user",
        }
    if asset.assigned_asset_id:
        target = visible_reference(asset.assigned_asset, limit_company_id)
        if target is None:
            return None
        return {"id": target.pk, "name": target.display_name, "asset_tag": target.asset_tag, "type": "asset"}
    if asset.assigned_location_id:
        return {"id": asset.assigned_location.pk, "name": asset.assigned_location.name, "type": "location"}
    return None


def is_in_maintenance(asset: Any) -> bool:
    """A maintenance of the asset is in progress: read from the page's rows (:data:`ROW_COLUMNS`, no query per row),
    asked for a model instance (one query, for the single record of a write)."""
    known = getattr(asset, "in_maintenance", None)
    if known is None:
        known = asset.in_maintenance = Maintenance.objects.in_progress().filter(asset_id=asset.pk).exists()
    return bool(known)


PENDING = CheckoutAcceptance.State.PENDING


def is_awaiting_acceptance(asset: Any) -> bool:
    """The asset's checkout waits for its person's acceptance (issue 29): read from the page's rows, asked for a model
    instance (one query, for the single record of a write)."""
    known = getattr(asset, "awaiting_acceptance", None)
    if known is None:
        known = asset.awaiting_acceptance = CheckoutAcceptance.objects.pending().for_item("asset", asset.pk).exists()
    return bool(known)


def is_available(asset: Asset) -> bool:
    return not asset.is_deleted and not asset.is_assigned and asset.status.type == StatusType.DEPLOYABLE


def asset_record(asset: Asset, perms: dict[str, Any]) -> dict[str, Any]:
    stamp, day = record_formats()
    model = asset.model
    status = asset.status
    deleted = asset.is_deleted
    warranty_expires = None
    if asset.warranty_months and asset.purchase_date:
        warranty_expires = day(add_months(asset.purchase_date, asset.warranty_months))
    return {
        "id": asset.pk,
        "name": asset.name,
        "asset_tag": asset.asset_tag,
        "serial": asset.serial,
        "model": brief(model),
        "byod": asset.byod,
        "requestable": asset.requestable,
        "model_number": model.model_number if model else None,
        "eol": None,
        "asset_eol_date": None,
        "status_label": {
            "id": status.pk,
            "name": status.name,
            "status_type": status.type,
            "status_meta": "deployed" if asset.is_assigned else status.type,
        },
        "category": brief(model.category) if model else None,
        "manufacturer": brief(model.manufacturer) if model else None,
        "supplier": brief(asset.supplier),
        "notes": asset.notes,
        "order_number": asset.order_number,
        "company": brief(asset.company),
        "location": brief(asset.location),
        "rtd_location": brief(asset.rtd_location),
        "image": None,
        "qr": None,
        "alt_barcode": None,
        "assigned_to": assigned_to(asset, perms.get("limit_company_id")),
        "warranty_months": asset.warranty_months,
        "warranty_expires": warranty_expires,
        "created_by": person_brief(asset.created_by, perms.get("limit_company_id")),
        "created_at": stamp(asset.created_at),
        "updated_at": stamp(asset.updated_at),
        "last_audit_date": stamp(asset.last_audit_date),
        "next_audit_date": day(asset.next_audit_date),
        "deleted_at": stamp(asset.deleted_at),
        "purchase_date": day(asset.purchase_date),
        "last_checkout": stamp(asset.last_checkout),
        "last_checkin": stamp(asset.last_checkin),
        "expected_checkin": day(asset.expected_checkin),
        "purchase_cost": money(asset.purchase_cost),
        "checkin_counter": asset.checkin_counter,
        "checkout_counter": asset.checkout_counter,
        "requests_counter": asset.requests_counter,
        "user_can_checkout": is_available(asset),
        "in_maintenance": is_in_maintenance(asset),
        "awaiting_acceptance": is_awaiting_acceptance(asset),
        "book_value": money(book_value(cost=asset.purchase_cost, purchase_date=asset.purchase_date,
                                       months=getattr(asset, "depreciation_months", None),
                                       depreciation_min=getattr(asset, "depreciation_min", None),
                                       depreciation_type=getattr(asset, "depreciation_type", None))),
        "custom_fields": custom_values.custom_fields_record(*_custom_of(asset), perms.get("encrypted", False)),
        "available_actions": {
            "checkout": not deleted and perms["checkout"],
            "checkin": not deleted and perms["checkin"],
            "clone": perms["create"],
            "restore": deleted and perms["delete"],
            "update": not deleted and perms["edit"],
            "audit": perms["audit"],
            "delete": not deleted and not asset.is_assigned and perms["delete"],
        },
    }


def asset_write_record(asset: Asset, perms: dict[str, Any], echo: dict[str, Any] | None = None) -> dict[str, Any]:
    """Create/update answers: the record plus the written foreign keys, flat (API-CONTRACT.md §3), and one key per
    custom field of the set: ``echo``'s value as sent for the fields the write wrote, the stored text otherwise."""
    record = asset_record(asset, perms)
    record.update({
        "model_id": asset.model_id,
        "status_id": asset.status_id,
        "company_id": asset.company_id,
        "supplier_id": asset.supplier_id,
        "location_id": asset.location_id,
        "rtd_location_id": asset.rtd_location_id,
    })
    record.update(custom_values.column_values(*_custom_of(asset), perms.get("encrypted", False), echo or {}))
    return record


# --- the record serializers: what the views answer with and what the schema describes ---------------------------

STATUS_LABEL_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "status_type": {"type": "string", "enum": list(StatusType.values)},
        "status_meta": {"type": "string", "description": "``deployed`` while assigned, else the status type."},
    },
    "required": ["id", "name", "status_type", "status_meta"],
}


def _target_schema(kind: str, properties: dict[str, Any]) -> dict[str, Any]:
    properties = {"id": {"type": "integer"}, **properties, "type": {"type": "string", "enum": [kind]}}
    return {"type": "object", "properties": properties, "required": list(properties)}


NULLABLE_STRING = {"type": "string", "nullable": True}
ASSIGNED_TO_SCHEMA = {
    "description": "Who or what holds the asset (:func:`assigned_to`); null when nobody does.",
    "oneOf": [
        _target_schema("user", {"username": {"type": "string"}, "name": {"type": "string"},
                                "first_name": {"type": "string"}, "last_name": NULLABLE_STRING,
                                "email": NULLABLE_STRING, "employee_number": NULLABLE_STRING}),
        _target_schema("asset", {"name": {"type": "string"}, "asset_tag": {"type": "string"}}),
        _target_schema("location", {"name": {"type": "string"}}),
    ],
}
CUSTOM_FIELDS_SCHEMA = {
    "type": "object",
    "description": "Custom field values by field name, in the fieldset's order (API-CONTRACT.md §11.1); ``{}`` when "
                   "the model has no fieldset. ``value`` is always a string (``ENCRYPTED`` for an encrypted value the "
                   "caller may not read).",
    "additionalProperties": {"type": "object", "properties": {
        "field": {"type": "string"}, "value": NULLABLE_STRING, "field_format": {"type": "string"},
        "element": {"type": "string"}}},
}


def _string(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(read_only=True, **kwargs)


def _date(**kwargs: Any) -> serializers.DateField:
    return serializers.DateField(read_only=True, allow_null=True, **kwargs)


class AssetRecordSerializer(serializers.Serializer):
    """The asset record. The declared fields are its keys for the schema; the answer is :func:`asset_record` (one
    builder for lists, reads and writes, tuned for a 500-row page), with the caller's permissions from
    ``context["perms"]`` (:func:`caller_permissions`, evaluated once per request). tests/api/test_record_schemas.py
    checks that both agree."""

    id = serializers.IntegerField(read_only=True)
    name = _string()
    asset_tag = _string()
    serial = _string()
    model = BriefField()
    byod = serializers.BooleanField(read_only=True)
    requestable = serializers.BooleanField(read_only=True)
    model_number = _string(allow_null=True)
    eol = _string(allow_null=True)
    asset_eol_date = _date()
    status_label = SchemaField(STATUS_LABEL_SCHEMA)
    category = BriefField()
    manufacturer = BriefField()
    supplier = BriefField()
    notes = _string()
    order_number = _string()
    company = CompanyBriefField()
    location = BriefField()
    rtd_location = BriefField()
    image = _string(allow_null=True)
    qr = _string(allow_null=True)
    alt_barcode = _string(allow_null=True)
    assigned_to = SchemaField(ASSIGNED_TO_SCHEMA, allow_null=True)
    warranty_months = serializers.IntegerField(read_only=True, allow_null=True)
    warranty_expires = _date()
    created_by = UserBriefField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    last_audit_date = IsoUtcField(allow_null=True)
    next_audit_date = _date()
    deleted_at = IsoUtcField(allow_null=True)
    purchase_date = _date()
    last_checkout = IsoUtcField(allow_null=True)
    last_checkin = IsoUtcField(allow_null=True)
    expected_checkin = _date()
    purchase_cost = SchemaField({"type": "string", "format": "decimal", "example": "1234.50"}, allow_null=True)
    checkin_counter = serializers.IntegerField(read_only=True)
    checkout_counter = serializers.IntegerField(read_only=True)
    requests_counter = serializers.IntegerField(read_only=True)
    user_can_checkout = serializers.BooleanField(read_only=True)
    awaiting_acceptance = serializers.BooleanField(
        read_only=True, help_text="Checked out to a person whose acceptance is still awaited (its category requires "
                                  "acceptance; issue 29).")
    in_maintenance = serializers.BooleanField(
        read_only=True, help_text="A maintenance of the asset is in progress: started, not completed, not deleted "
        "(``GET /maintenances?asset_id=``).")
    book_value = _string(allow_null=True)
    custom_fields = SchemaField(CUSTOM_FIELDS_SCHEMA)
    available_actions = SchemaField(actions_schema("checkout", "checkin", "clone", "restore", "update", "audit",
                                                   "delete"))

    def perms(self) -> dict[str, Any]:
        """The caller's permissions: the view passes them in the context; computed once per serializer tree
        otherwise."""
        if "perms" not in self.context:
            self.context["perms"] = caller_permissions(getattr(self.context.get("request"), "user", None))
        return self.context["perms"]

    def to_representation(self, instance: Asset) -> dict[str, Any]:
        return asset_record(instance, self.perms())


class AssetWriteRecordSerializer(AssetRecordSerializer):
    """Create/update answers: the record plus the written foreign keys, flat (:func:`asset_write_record`)."""

    model_id = serializers.IntegerField(read_only=True)
    status_id = serializers.IntegerField(read_only=True)
    company_id = serializers.IntegerField(read_only=True, allow_null=True)
    supplier_id = serializers.IntegerField(read_only=True, allow_null=True)
    location_id = serializers.IntegerField(read_only=True, allow_null=True)
    rtd_location_id = serializers.IntegerField(read_only=True, allow_null=True)

    def to_representation(self, instance: Asset) -> dict[str, Any]:
        return asset_write_record(instance, self.perms(), self.context.get("echo"))
