"""The asset record (API-CONTRACT.md §3): the specification's keys plus Snipe-IT's, built from rows loaded with
:data:`ASSET_RELATED` so a list costs the same number of queries whatever its length."""

from __future__ import annotations

from typing import Any

from accounts.permissions import has_access
from assetsvc.api.fields import person_brief
from assetsvc.api.formats import brief, iso_date, iso_utc, money
from assetsvc.scoping import limiting_company_id
from inventory.choices import StatusType
from inventory.models import Asset
from inventory.services import add_months

#: Every relation the record reads (pass to ``select_related``).
ASSET_RELATED = (
    "model", "model__category", "model__manufacturer", "status", "supplier", "company", "location",
    "rtd_location", "assigned_user", "assigned_asset", "assigned_asset__model", "assigned_location", "created_by",
)
#: The columns a list loads (``.only()`` with :data:`ASSET_RELATED`): every asset column, but of each relation only
#: what :func:`asset_record` reads. A 500-row page reads ~200 columns per row otherwise (passwords, addresses, notes
#: of every related row), which cost a third of its time (docs/performance.md). Reading a column not listed here
#: would cost one query per row: the query-budget tests (tests/inventory/test_api_assets_queries.py,
#: test_query_budget_500.py) catch that.
ASSET_LIST_FIELDS = (
    *(field.name for field in Asset._meta.concrete_fields),
    "model__name", "model__model_number", "model__category", "model__manufacturer", "model__category__name",
    "model__manufacturer__name", "status__name", "status__type", "supplier__name", "company__name",
    "location__name", "rtd_location__name", "assigned_location__name",
    "assigned_user__username", "assigned_user__first_name", "assigned_user__last_name", "assigned_user__email",
    "assigned_user__employee_num",
    "assigned_asset__name", "assigned_asset__asset_tag", "assigned_asset__model", "assigned_asset__model__name",
    "created_by__username", "created_by__first_name", "created_by__last_name", "created_by__company",
)
ACTION_VERBS = ("checkout", "checkin", "create", "edit", "delete", "audit")


def caller_permissions(user) -> dict[str, Any]:
    """The caller's asset permissions, evaluated once per request (not per row), and the company separation limits
    them to (``limit_company_id``: references to other companies' users are answered as null)."""
    perms: dict[str, Any] = {verb: has_access(user, f"assets.{verb}") for verb in ACTION_VERBS}
    perms["limit_company_id"] = limiting_company_id(user)
    return perms


def assigned_to(asset: Asset) -> dict[str, Any] | None:
    if asset.assigned_user_id:
        user = asset.assigned_user
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
        target = asset.assigned_asset
        return {"id": target.pk, "name": target.display_name, "asset_tag": target.asset_tag, "type": "asset"}
    if asset.assigned_location_id:
        return {"id": asset.assigned_location.pk, "name": asset.assigned_location.name, "type": "location"}
    return None


def is_available(asset: Asset) -> bool:
    return not asset.is_deleted and not asset.is_assigned and asset.status.type == StatusType.DEPLOYABLE


def asset_record(asset: Asset, perms: dict[str, Any]) -> dict[str, Any]:
    model = asset.model
    status = asset.status
    deleted = asset.is_deleted
    warranty_expires = None
    if asset.warranty_months and asset.purchase_date:
        warranty_expires = iso_date(add_months(asset.purchase_date, asset.warranty_months))
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
        "assigned_to": assigned_to(asset),
        "warranty_months": asset.warranty_months,
        "warranty_expires": warranty_expires,
        "created_by": person_brief(asset.created_by, perms.get("limit_company_id")),
        "created_at": iso_utc(asset.created_at),
        "updated_at": iso_utc(asset.updated_at),
        "last_audit_date": iso_utc(asset.last_audit_date),
        "next_audit_date": iso_date(asset.next_audit_date),
        "deleted_at": iso_utc(asset.deleted_at),
        "purchase_date": iso_date(asset.purchase_date),
        "last_checkout": iso_utc(asset.last_checkout),
        "last_checkin": iso_utc(asset.last_checkin),
        "expected_checkin": iso_date(asset.expected_checkin),
        "purchase_cost": money(asset.purchase_cost),
        "checkin_counter": asset.checkin_counter,
        "checkout_counter": asset.checkout_counter,
        "requests_counter": asset.requests_counter,
        "user_can_checkout": is_available(asset),
        "book_value": None,
        "custom_fields": {},
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


def asset_write_record(asset: Asset, perms: dict[str, Any]) -> dict[str, Any]:
    """Create/update answers: the record plus the written foreign keys, flat (API-CONTRACT.md §3)."""
    record = asset_record(asset, perms)
    record.update({
        "model_id": asset.model_id,
        "status_id": asset.status_id,
        "company_id": asset.company_id,
        "supplier_id": asset.supplier_id,
        "location_id": asset.location_id,
        "rtd_location_id": asset.rtd_location_id,
    })
    return record
