"""The kinds of record the Snipe-IT import reads, in dependency order, and how each row becomes a plain dict.

A *reader* turns one row of Snipe-IT's JSON (as its transformers render it) into a plain dict keyed by OUR model
field names, the way the writers (``inventory.snipeit.importer``) take them:

* ``id`` is the Snipe-IT id (kept as ours in an empty database);
* a reference is ``<field>_id`` holding the Snipe-IT id of the referenced record (``company_id``, ``model_id``);
  the writer maps it to our id;
* strings are unescaped once (``values.text``), notes are Markdown again (``values.notes``), dates are
  ``date``/aware ``datetime`` values, money is ``Decimal``, flags are ``bool``;
* a few keys are not model fields and say so by their name: ``group_ids`` (a user's groups), ``fields`` (a
  fieldset's members with ``required`` and ``order``), ``custom_values`` (``{db_column: value}``), ``url`` (where a
  file is downloaded), ``flags_known`` (whether a custom field's encryption and unique flags were sent).

A reader raises :class:`~inventory.snipeit.values.ValueProblem` when a row cannot be read; the importer skips the
record and reports it with :attr:`Kind.label` and the problem. A :class:`SubList` is read once per parent row
(license seats, accessory checkouts, consumable handouts, component installations, kit lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inventory.snipeit import values as v
from inventory.snipeit.values import ValueProblem

Row = dict[str, Any]


@dataclass(frozen=True)
class ReadContext:
    """What a reader needs besides the row: Snipe-IT's app timezone (``--timezone``), and the custom fields' columns
    the operator names as encrypted or unique (``--encrypted-fields``, ``--unique-fields``: Snipe-IT 8's API does not
    say)."""

    timezone: str = "UTC"
    encrypted: frozenset[str] = frozenset()
    unique: frozenset[str] = frozenset()

    def dt(self, value: Any) -> Any:
        return v.datetime_value(value, self.timezone)


@dataclass(frozen=True)
class SubList:
    """A list read once per parent row: ``route`` has ``{id}`` for the parent's Snipe-IT id. ``key``: the row's
    unique key (``None``: the list has none). ``optional``: a 404 means this Snipe-IT version lacks the route, and the
    sub-list is left out with a note in the report instead of failing the run."""

    name: str
    route: str
    read: Callable[[Row, int, ReadContext], Row]
    key: str | None = "id"
    optional: bool = False


@dataclass(frozen=True)
class Kind:
    """One kind of record: its route, the query variants that together list every row (Snipe-IT hides deleted
    and, by default, archived assets), its reader, how a skipped row is named, and its sub-lists."""

    name: str
    route: str
    read: Callable[[Row, ReadContext], Row]
    variants: tuple[dict[str, str], ...] = ({},)
    sublists: tuple[SubList, ...] = ()
    label_keys: tuple[str, ...] = ("name",)

    def label(self, row: Row) -> str:
        """How the report names a row of this kind: ``asset 12 "MBP-0001"``."""
        for key in self.label_keys:
            value = row.get(key) if isinstance(row, dict) else None
            if value not in (None, ""):
                return f'{self.name} {row.get("id", "?")} "{v.text(value) if isinstance(value, str) else value}"'
        return f'{self.name} {row.get("id", "?") if isinstance(row, dict) else "?"}'


def _stamps(row: Row, ctx: ReadContext) -> Row:
    return {"created_at": ctx.dt(row.get("created_at")), "updated_at": ctx.dt(row.get("updated_at"))}


def _created_by(row: Row) -> Row:
    return {"created_by_id": v.ref_id(row.get("created_by"))}


def _require(row: Row, *keys: str) -> None:
    for key in keys:
        if row.get(key) in (None, ""):
            raise ValueProblem(f"no {key}")


# -- the catalogue --------------------------------------------------------------------------------------------


def read_company(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), "phone": v.text_or_none(row.get("phone")),
            "fax": v.text_or_none(row.get("fax")), "email": v.text_or_none(row.get("email")),
            "notes": v.notes(row.get("notes")), **_created_by(row), **_stamps(row, ctx)}


def read_department(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), "company_id": v.ref_id(row.get("company")),
            "location_id": v.ref_id(row.get("location")), "manager_id": v.ref_id(row.get("manager")),
            "phone": v.text(row.get("phone")), "fax": v.text(row.get("fax")), "notes": v.notes(row.get("notes")),
            **_stamps(row, ctx)}


_ADDRESS = ("address", "address2", "city", "state", "country", "zip", "phone", "fax")


def read_location(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), "parent_id": v.ref_id(row.get("parent")),
            "manager_id": v.ref_id(row.get("manager")), "company_id": v.ref_id(row.get("company")),
            **{key: v.text(row.get(key)) for key in _ADDRESS},
            "currency": v.text(row.get("currency")), "ldap_ou": v.text(row.get("ldap_ou")),
            "notes": v.notes(row.get("notes")), **_stamps(row, ctx)}


def read_manufacturer(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]),
            **{key: v.text(row.get(key)) for key in ("url", "support_url", "warranty_lookup_url", "support_phone",
                                                      "support_email")},
            "notes": v.notes(row.get("notes")), "deleted_at": ctx.dt(row.get("deleted_at")), **_stamps(row, ctx)}


def read_supplier(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]),
            **{key: v.text(row.get(key)) for key in (*_ADDRESS, "email", "contact", "url")},
            "notes": v.notes(row.get("notes")), **_stamps(row, ctx)}


_CATEGORY_TYPES = {"asset", "accessory", "consumable", "component", "license"}


def read_category(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name", "category_type")
    # Helper::categoryTypeList renders the translated label ("Asset"); the en-US labels are the lower-case keys.
    category_type = v.text(row["category_type"]).strip().lower()
    if category_type not in _CATEGORY_TYPES:
        raise ValueProblem(f"unknown category type {category_type!r} (Snipe-IT in another language?)")
    use_default = v.boolean(row.get("use_default_eula"))
    return {"id": row["id"], "name": v.text(row["name"]), "category_type": category_type,
            # With the default EULA in use, `eula` shows the default text, not the category's own.
            "eula_text": "" if use_default else v.notes(row.get("eula")), "use_default_eula": use_default,
            "require_acceptance": v.boolean(row.get("require_acceptance")),
            "checkin_email": v.boolean(row.get("checkin_email")), "notes": v.notes(row.get("notes")),
            **_created_by(row), **_stamps(row, ctx)}


_STATUS_TYPES = {"deployable", "pending", "archived", "undeployable"}


def read_status_label(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name", "type")
    status_type = v.text(row["type"])
    if status_type not in _STATUS_TYPES:
        raise ValueProblem(f"unknown status type {status_type!r}")
    return {"id": row["id"], "name": v.text(row["name"]), "type": status_type,
            "color": v.text_or_none(row.get("color")), "show_in_nav": v.boolean(row.get("show_in_nav")),
            "default_label": v.boolean(row.get("default_label")), "notes": v.text(row.get("notes")),
            **_created_by(row), **_stamps(row, ctx)}


def read_depreciation(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    months = v.months(row.get("months"))
    if months is None:
        raise ValueProblem("no months")
    minimum, kind = v.percent_or_amount(row.get("depreciation_min"))
    return {"id": row["id"], "name": v.text(row["name"]), "months": months, "depreciation_min": minimum,
            "depreciation_type": kind, **_created_by(row), **_stamps(row, ctx)}


def read_asset_model(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), "model_number": v.text(row.get("model_number")),
            "manufacturer_id": v.ref_id(row.get("manufacturer")), "category_id": v.ref_id(row.get("category")),
            "min_amt": v.integer(row.get("min_amt")), "eol": v.months(row.get("eol")),
            "requestable": v.boolean(row.get("requestable")), "notes": v.notes(row.get("notes")),
            "depreciation_id": v.ref_id(row.get("depreciation")), "fieldset_id": v.ref_id(row.get("fieldset")),
            "deleted_at": ctx.dt(row.get("deleted_at")), **_created_by(row), **_stamps(row, ctx)}


_FIELD_FLAGS = ("display_in_user_view", "auto_add_to_fieldsets", "show_in_listview", "display_checkin",
                "display_checkout", "display_audit")


def read_custom_field(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name", "db_column_name")
    # Snipe-IT 8's CustomFieldsTransformer leaves out field_encrypted, is_unique and help_text: they are read when
    # a Snipe-IT sends them, and `flags_known` tells the writer whether they were (docs/switching-from-snipe-it.md).
    known = "field_encrypted" in row
    column = v.text(row["db_column_name"])
    return {"id": row["id"], "name": v.text(row["name"]), "db_column_name": v.text(row["db_column_name"]),
            "element": v.text(row.get("type") or row.get("element") or "text"),
            "format": v.text(row.get("format")) or "ANY",
            "field_values": v.text(row.get("field_values")).replace("\r\n", "\n"),
            "field_encrypted": v.boolean(row.get("field_encrypted")) or column in ctx.encrypted,
            "is_unique": v.boolean(row.get("is_unique")) or column in ctx.unique,
            "help_text": v.text_or_none(row.get("help_text")), "flags_known": known,
            **{flag: v.boolean(row.get(flag)) for flag in _FIELD_FLAGS}, **_stamps(row, ctx)}


def read_fieldset(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    members = (row.get("fields") or {}).get("rows") or []
    return {"id": row["id"], "name": v.text(row["name"]),
            "fields": [{"field_id": v.ref_id(member), "required": v.boolean(member.get("required")),
                        "order": index} for index, member in enumerate(members)],
            **_stamps(row, ctx)}


def _permissions(value: Any) -> dict[str, int]:
    if value in (None, "", []):
        return {}
    if not isinstance(value, dict):
        raise ValueProblem(f"permissions is not an object: {type(value).__name__}")
    return {v.text(key): v.integer(grant) or 0 for key, grant in value.items()}


def read_group(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), "permissions": _permissions(row.get("permissions")),
            "notes": v.notes(row.get("notes")), **_created_by(row), **_stamps(row, ctx)}


def read_user(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "username")
    # `groups` is null or {"total", "rows": [{"id", "name"}]}.
    groups = row["groups"].get("rows") or [] if isinstance(row.get("groups"), dict) else []
    return {"id": row["id"], "username": v.text(row["username"]), "first_name": v.text(row.get("first_name")),
            "last_name": v.text(row.get("last_name")), "email": v.text(row.get("email")),
            "employee_num": v.text_or_none(row.get("employee_num")), "jobtitle": v.text(row.get("jobtitle")),
            "phone": v.text(row.get("phone")), "notes": v.notes(row.get("notes")),
            "is_active": v.boolean(row.get("activated"), default=True),
            "company_id": v.ref_id(row.get("company")), "location_id": v.ref_id(row.get("location")),
            "department_id": v.ref_id(row.get("department")), "manager_id": v.ref_id(row.get("manager")),
            "group_ids": [v.ref_id(group) for group in groups], "permissions": _permissions(row.get("permissions")),
            "ldap_import": v.boolean(row.get("ldap_import")), "deleted_at": ctx.dt(row.get("deleted_at")),
            **_created_by(row), **_stamps(row, ctx)}


# -- items ----------------------------------------------------------------------------------------------------


def _assigned(value: Any) -> Row:
    """``assigned_to`` ``{"id", "type": "user"|"asset"|"location", ...}`` as our three nullable FKs."""
    result = {"assigned_user_id": None, "assigned_asset_id": None, "assigned_location_id": None}
    if value in (None, "", []):
        return result
    if not isinstance(value, dict):
        raise ValueProblem(f"assigned_to is not an object: {value!r}")
    target_type = v.text(value.get("type")).lower()
    if target_type not in ("user", "asset", "location"):
        raise ValueProblem(f"assigned to an unknown kind of target {target_type!r}")
    result[f"assigned_{target_type}_id"] = v.ref_id(value)
    return result


def read_asset(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "asset_tag")
    return {"id": row["id"], "name": v.text(row.get("name")), "asset_tag": v.text(row["asset_tag"]),
            "serial": v.text(row.get("serial")), "model_id": v.ref_id(row.get("model")),
            "status_id": v.ref_id(row.get("status_label")), "company_id": v.ref_id(row.get("company")),
            "supplier_id": v.ref_id(row.get("supplier")), "location_id": v.ref_id(row.get("location")),
            "rtd_location_id": v.ref_id(row.get("rtd_location")), **_assigned(row.get("assigned_to")),
            "notes": v.notes(row.get("notes")), "order_number": v.text(row.get("order_number")),
            "warranty_months": v.months(row.get("warranty_months")),
            "purchase_date": v.date_value(row.get("purchase_date")), "purchase_cost": v.money(row.get("purchase_cost")),
            "byod": v.boolean(row.get("byod")), "requestable": v.boolean(row.get("requestable")),
            "last_checkout": ctx.dt(row.get("last_checkout")), "last_checkin": ctx.dt(row.get("last_checkin")),
            "expected_checkin": v.date_value(row.get("expected_checkin")),
            "last_audit_date": ctx.dt(row.get("last_audit_date")),
            "next_audit_date": v.date_value(row.get("next_audit_date")),
            "asset_eol_date": v.date_value(row.get("asset_eol_date")),
            "checkin_counter": v.integer(row.get("checkin_counter")) or 0,
            "checkout_counter": v.integer(row.get("checkout_counter")) or 0,
            "requests_counter": v.integer(row.get("requests_counter")) or 0,
            "deleted_at": ctx.dt(row.get("deleted_at")), "custom_values": v.custom_values(row.get("custom_fields")),
            **_created_by(row), **_stamps(row, ctx)}


def _stock(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), "category_id": v.ref_id(row.get("category")),
            "manufacturer_id": v.ref_id(row.get("manufacturer")), "supplier_id": v.ref_id(row.get("supplier")),
            "location_id": v.ref_id(row.get("location")), "company_id": v.ref_id(row.get("company")),
            "model_number": v.text(row.get("model_number")), "order_number": v.text(row.get("order_number")),
            "purchase_date": v.date_value(row.get("purchase_date")), "purchase_cost": v.money(row.get("purchase_cost")),
            "qty": v.integer(row.get("qty")) or 0, "min_amt": v.integer(row.get("min_amt", row.get("min_qty"))),
            "notes": v.notes(row.get("notes")), **_created_by(row), **_stamps(row, ctx)}


def read_accessory(row: Row, ctx: ReadContext) -> Row:
    return _stock(row, ctx)


def read_accessory_checkout(row: Row, parent: int, ctx: ReadContext) -> Row:
    _require(row, "id")
    return {"id": row["id"], "accessory_id": parent, **_assigned(row.get("assigned_to")), "assigned_qty": 1,
            "note": v.text(row.get("note")), **_created_by(row), "created_at": ctx.dt(row.get("created_at"))}


def read_consumable(row: Row, ctx: ReadContext) -> Row:
    return {**_stock(row, ctx), "item_no": v.text(row.get("item_no"))}


_USER_LINK = re.compile(r"/users/(\d+)")


def read_consumable_assignment(row: Row, parent: int, ctx: ReadContext) -> Row:
    # consumables/{id}/users rows carry no id: the person is only in the `name` link (UserPresenter::nameUrl).
    match = _USER_LINK.search(str(row.get("name") or ""))
    if not match:
        raise ValueProblem("a handout to a deleted or unknown person")
    return {"id": None, "consumable_id": parent, "assigned_user_id": int(match.group(1)), "assigned_qty": 1,
            "note": v.text(row.get("note")), "created_at": ctx.dt(row.get("created_at"))}


def read_component(row: Row, ctx: ReadContext) -> Row:
    return {**_stock(row, ctx), "serial": v.text(row.get("serial"))}


def read_component_assignment(row: Row, parent: int, ctx: ReadContext) -> Row:
    _require(row, "assigned_pivot_id", "id")
    return {"id": row["assigned_pivot_id"], "component_id": parent, "assigned_asset_id": v.ref_id(row["id"]),
            "assigned_qty": v.integer(row.get("qty")) or 1, "note": v.text(row.get("note")),
            "created_at": ctx.dt(row.get("created_at"))}


def read_license(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    cost = row.get("purchase_cost_numeric")
    return {"id": row["id"], "name": v.text(row["name"]), "serial": v.text(row.get("product_key")),
            "category_id": v.ref_id(row.get("category")), "manufacturer_id": v.ref_id(row.get("manufacturer")),
            "supplier_id": v.ref_id(row.get("supplier")), "company_id": v.ref_id(row.get("company")),
            "seats": v.integer(row.get("seats")) or 0,
            # The seats sub-list (read_kind) replaces `seats` with the seat rows: the count stays here too.
            "seat_count": v.integer(row.get("seats")) or 0, "license_name": v.text(row.get("license_name")),
            "license_email": v.text(row.get("license_email")),
            "reassignable": v.boolean(row.get("reassignable"), default=True),
            "maintained": v.boolean(row.get("maintained")),
            "expiration_date": v.date_value(row.get("expiration_date")),
            "termination_date": v.date_value(row.get("termination_date")),
            "purchase_order": v.text(row.get("purchase_order")), "order_number": v.text(row.get("order_number")),
            "purchase_date": v.date_value(row.get("purchase_date")),
            "purchase_cost": v.money(cost if cost not in (None, "") else row.get("purchase_cost")),
            "min_amt": v.integer(row.get("min_amt")), "notes": v.notes(row.get("notes")),
            "deleted_at": ctx.dt(row.get("deleted_at")), **_created_by(row), **_stamps(row, ctx)}


def read_license_seat(row: Row, parent: int, ctx: ReadContext) -> Row:
    _require(row, "id")
    return {"id": row["id"], "license_id": v.ref_id(row.get("license_id")) or parent,
            "assigned_user_id": v.ref_id(row.get("assigned_user")),
            "assigned_asset_id": v.ref_id(row.get("assigned_asset")), "notes": v.text(row.get("notes"))}


def read_maintenance(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "asset")
    return {"id": row["id"], "asset_id": v.ref_id(row.get("asset")), "supplier_id": v.ref_id(row.get("supplier")),
            "asset_maintenance_type": v.text(row.get("asset_maintenance_type")), "title": v.text(row.get("title")),
            "is_warranty": v.boolean(row.get("is_warranty")), "start_date": v.date_value(row.get("start_date")),
            "completion_date": v.date_value(row.get("completion_date")), "cost": v.money(row.get("cost")),
            "notes": v.notes(row.get("notes")), **_created_by(row), **_stamps(row, ctx)}


def read_kit(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "name")
    return {"id": row["id"], "name": v.text(row["name"]), **_created_by(row), **_stamps(row, ctx)}


def _kit_line(target: str) -> Callable[[Row, int, ReadContext], Row]:
    def read(row: Row, parent: int, ctx: ReadContext) -> Row:
        _require(row, "id")
        return {"id": row.get("pivot_id"), "kit_id": parent, f"{target}_id": row["id"],
                "quantity": v.integer(row.get("quantity")) or 1}

    read.__name__ = f"read_kit_{target}"
    return read


def read_file(row: Row, ctx: ReadContext) -> Row:
    """A file attached to a record. Snipe-IT keeps uploads as action-log rows (``action_type`` "uploaded",
    ``filename`` set): the file's id is the log row's id (``hardware/{id}/file/{file_id}``), for every kind of record,
    users too (whose files have no list route in Snipe-IT 8)."""
    _require(row, "id", "item")
    item = row.get("item") or {}
    file = row.get("file") or {}
    if not file.get("filename"):
        raise ValueProblem("an upload without a file name")
    return {"id": row["id"], "item_type": v.text(item.get("type")), "item_id": v.ref_id(item),
            "filename": v.text(file["filename"]), "url": file.get("url"), "note": v.notes(row.get("note")),
            "created_by_id": v.ref_id(row.get("created_by") or row.get("admin")),
            "created_at": ctx.dt(row.get("created_at"))}


# -- the action log -------------------------------------------------------------------------------------------

#: ActionlogsTransformer lower-cases the translated label; "create new" is our "create".
_ACTION_TYPES = {"create new": "create"}


def _log_meta(meta: Any) -> Any:
    """``log_meta`` with its strings unescaped once (the transformer passes each old and new value through ``e()``)."""
    if isinstance(meta, dict):
        return {key: _log_meta(value) for key, value in meta.items()} or None
    if isinstance(meta, list):
        return [_log_meta(value) for value in meta]
    return v.text(meta) if isinstance(meta, str) else meta


def read_action(row: Row, ctx: ReadContext) -> Row:
    _require(row, "id", "action_type")
    item = row.get("item") or {}
    target = row.get("target") or {}
    file = row.get("file") or {}
    action_date = ctx.dt(row.get("action_date")) or ctx.dt(row.get("created_at"))
    action_type = v.text(row["action_type"])
    return {"id": row["id"], "action_type": _ACTION_TYPES.get(action_type, action_type),
            "created_by_id": v.ref_id(row.get("created_by") or row.get("admin")),
            "item_type": v.text(item.get("type")), "item_id": v.ref_id(item),
            "item_name": v.text_or_none(item.get("name")), "item_serial": v.text_or_none(item.get("serial")),
            "target_type": v.text(target.get("type")), "target_id": v.ref_id(target),
            "location_id": v.ref_id(row.get("location")), "note": v.notes(row.get("note")),
            "log_meta": _log_meta(row.get("log_meta")), "action_date": action_date,
            "action_source": v.text(row.get("action_source")), "remote_ip": v.text(row.get("remote_ip")),
            "user_agent": v.text(row.get("user_agent")), "filename": v.text_or_none(file.get("filename")),
            "created_at": ctx.dt(row.get("created_at"))}


# -- the list, in the order the writers need ------------------------------------------------------------------

KINDS: tuple[Kind, ...] = (
    Kind("company", "companies", read_company),
    Kind("location", "locations", read_location),
    Kind("department", "departments", read_department),
    Kind("manufacturer", "manufacturers", read_manufacturer, variants=({}, {"deleted": "true"})),
    Kind("supplier", "suppliers", read_supplier),
    Kind("category", "categories", read_category),
    Kind("status_label", "statuslabels", read_status_label),
    Kind("depreciation", "depreciations", read_depreciation),
    Kind("custom_field", "fields", read_custom_field, label_keys=("name", "db_column_name")),
    Kind("fieldset", "fieldsets", read_fieldset),
    Kind("asset_model", "models", read_asset_model, variants=({}, {"status": "deleted"})),
    Kind("group", "groups", read_group),
    Kind("user", "users", read_user, variants=({}, {"deleted": "true"}), label_keys=("username", "name")),
    # The default hardware list hides archived assets (unless show_archived_in_list) and deleted ones.
    Kind("asset", "hardware", read_asset, variants=({}, {"status": "Archived"}, {"status": "Deleted"}),
         label_keys=("asset_tag", "name")),
    Kind("accessory", "accessories", read_accessory,
         sublists=(SubList("checkouts", "accessories/{id}/checkedout", read_accessory_checkout),)),
    Kind("consumable", "consumables", read_consumable,
         sublists=(SubList("assignments", "consumables/{id}/users", read_consumable_assignment, key=None),)),
    Kind("component", "components", read_component,
         sublists=(SubList("assignments", "components/{id}/assets", read_component_assignment,
                           key="assigned_pivot_id"),)),
    Kind("license", "licenses", read_license,
         sublists=(SubList("seats", "licenses/{id}/seats", read_license_seat),)),
    Kind("maintenance", "maintenances", read_maintenance, label_keys=("title",)),
    Kind("kit", "kits", read_kit, sublists=tuple(
        SubList(f"{target}s" if target != "accessory" else "accessories", f"kits/{{id}}/{route}", _kit_line(target),
                key="pivot_id")
        for target, route in (("model", "models"), ("license", "licenses"), ("consumable", "consumables"),
                              ("accessory", "accessories")))),
    # Files are read from the log (one list for every kind), not per record: 100,000 assets would otherwise cost
    # 100,000 requests against Snipe-IT's 120 a minute.
    Kind("file", "reports/activity", read_file, variants=({"action_type": "uploaded"},)),
    Kind("action", "reports/activity", read_action, label_keys=("action_type",)),
)

KINDS_BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}


def kind_names() -> list[str]:
    return [kind.name for kind in KINDS]


