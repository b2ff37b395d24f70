"""A generated Snipe-IT data set, rendered the way Snipe-IT v8.1.4's API transformers render it.

`generate()` first builds plain "database rows" (`Dataset.raw`, what Snipe-IT stores: unescaped strings, ids of
related rows, flags the API never shows), then renders every record once through functions that follow
`app/Http/Transformers/*.php` (`Dataset.rows`, `Dataset.sub`). The stand-in serves the rendered records; tests of
the importer compare what landed in our database with `raw` (the truth) and with the rendered records (what the
importer could see).

Snipe-IT's habits reproduced here, so the importer has to cope with them:
- strings pass through `e()` (htmlspecialchars, ENT_QUOTES): `'` is `&#039;`, `&` is `&amp;`, `<` is `&lt;`;
- dates are `{"datetime", "formatted"}` / `{"date", "formatted"}` objects (`Helper::getFormattedDateObject`) with
  the default display formats `Y-m-d` and `h:i A`;
- custom values sit in an asset's `custom_fields` keyed by the field's label (unescaped), each value escaped;
- the custom field transformer does not show `field_encrypted` nor `is_unique` (only `raw` knows them);
- a consumable's handouts name the user only through an HTML link (`<a href=".../users/7">...</a>`);
- files are action-log rows (`uploaded`), so a file's id is an action-log id;
- ids start at odd numbers and have gaps (rows deleted in Snipe-IT before the import).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

APP_URL = "https://snipe.example.com"

# Snipe-IT's category types (`Helper::categoryTypeList`): stored value -> label shown by the API.
CATEGORY_TYPES = {
    "asset": "Asset",
    "accessory": "Accessory",
    "consumable": "Consumable",
    "component": "Component",
    "license": "License",
}

# Stored as (deployable, pending, archived); the API shows `Statuslabel::getStatuslabelType()`.
STATUS_TYPES = {"deployable": (1, 0, 0), "pending": (0, 1, 0), "archived": (0, 0, 1), "undeployable": (0, 0, 0)}

# Item types of the action log as `Actionlog::itemType()` names them.
ITEM_TYPES = ("asset", "accessory", "consumable", "component", "license", "user")

TRICKY = ("O'Brien & Sons", "R&D <lab>", 'The "Quoted" One', "Café Zoë's")

Raw = dict[str, Any]
Row = dict[str, Any]


def esc(value: Any) -> str:
    """Laravel's `e()`: htmlspecialchars with ENT_QUOTES and double encoding."""
    if value is None:
        return ""
    text = str(value)
    if "&" not in text and "<" not in text and ">" not in text and '"' not in text and "'" not in text:
        return text
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#039;")
    )


def esc_or_none(value: Any) -> str | None:
    return esc(value) if value not in (None, "") else None


def dt(value: datetime | None) -> dict[str, str] | None:
    """`Helper::getFormattedDateObject($v, 'datetime')` with the default `Y-m-d h:i A` display format."""
    if value is None:
        return None
    text = value.isoformat(sep=" ", timespec="seconds")
    hour = value.hour % 12 or 12
    return {"datetime": text, "formatted": f"{text[:10]} {hour:02d}:{text[14:16]} {'PM' if value.hour >= 12 else 'AM'}"}


def d(value: date | None) -> dict[str, str] | None:
    """`Helper::getFormattedDateObject($v, 'date')`."""
    if value is None:
        return None
    text = value.isoformat()
    return {"date": text, "formatted": text}


def money(value: float | None) -> str | None:
    """`Helper::formatCurrencyOutput` with the default `1,234.56` separator."""
    return None if value is None else f"{value:,.2f}"


def markdown(value: str | None) -> str | None:
    """`Helper::parseEscapedMarkedownInline` for plain text (no markdown markup in generated notes)."""
    return esc(value) if value else None


def db_column(name: str, field_id: int) -> str:
    """Snipe-IT's `CustomField::db_column` naming: `_snipeit_` + ascii snake case + `_` + id."""
    slug = re.sub(r"[^a-z0-9]+", "_", re.sub(r"[']", "", name.lower())).strip("_")
    return f"_snipeit_{slug}_{field_id}"


def idname(row: Raw | None) -> dict[str, Any] | None:
    return None if row is None else {"id": row["id"], "name": esc(row["name"])}


@dataclass
class Dataset:
    """Raw rows (the truth), rendered records (what the API shows), sub-lists and file bytes."""

    seed: int
    raw: dict[str, dict[int, Raw]] = field(default_factory=dict)
    rows: dict[str, dict[int, Row]] = field(default_factory=dict)
    # (kind, id, sub-list name) -> rendered rows, e.g. ("licenses", 7, "seats").
    sub: dict[tuple[str, int, str], list[Row]] = field(default_factory=dict)
    # (kind, item id, file id) -> (filename, bytes); kind is "hardware" or "users".
    files: dict[tuple[str, int, int], tuple[str, bytes]] = field(default_factory=dict)
    superuser_id: int = 0
    show_archived_in_list: bool = False

    def count(self, kind: str) -> int:
        return len(self.rows[kind])

    def fullname(self, user_id: int | None) -> str | None:
        user = self.raw["users"].get(user_id) if user_id else None
        return None if user is None else f"{user['first_name']} {user['last_name'] or ''}".strip()


class _Ids:
    """Ids that start at an odd number and skip some values, as after deletions in Snipe-IT."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.next = rng.randrange(1, 40, 2)

    def take(self) -> int:
        value = self.next
        self.next += 1 if self.rng.random() < 0.8 else self.rng.randint(2, 5)
        return value


def generate(  # noqa: PLR0915 (one straight walk through every kind reads better than a dozen helpers)
    seed: int = 1,
    assets: int = 200,
    log_rows: int = 1000,
    users: int | None = None,
    custom_fields: int = 10,
) -> Dataset:
    """Build a deterministic data set with every kind the importer reads."""
    rng = random.Random(seed)
    ds = Dataset(seed=seed)
    raw = ds.raw
    base = datetime(2019, 3, 4, 9, 15, 0)
    now = datetime(2026, 1, 15, 12, 0, 0)

    def stamp() -> datetime:
        return base + timedelta(seconds=rng.randrange(int((now - base).total_seconds())))

    def table(kind: str, count: int, build) -> list[Raw]:
        ids = _Ids(rng)
        rows = []
        for n in range(count):
            created = stamp()
            row = {"id": ids.take(), "created_at": created, "updated_at": created + timedelta(days=rng.randint(0, 30))}
            row.update(build(n))
            rows.append(row)
        raw[kind] = {row["id"]: row for row in rows}
        return rows

    def name(prefix: str, n: int) -> str:
        # Every fifth name carries a character Snipe-IT escapes.
        return f"{TRICKY[n // 5 % len(TRICKY)]} {prefix} {n}" if n % 5 == 0 else f"{prefix} {n}"

    n_users = users if users is not None else max(20, assets // 5)

    companies = table("companies", 4, lambda n: {"name": name("Company", n), "phone": f"+1 555 010{n}",
                                                  "fax": None, "email": f"it{n}@example.com",
                                                  "notes": "Owner's note & more" if n == 0 else None})
    locations = table("locations", 8, lambda n: {"name": name("Location", n), "address": f"{n} Main St",
                                                  "address2": None, "city": "Springfield", "state": "IL",
                                                  "country": "US", "zip": f"6270{n}", "phone": None, "fax": None,
                                                  "currency": "USD", "ldap_ou": None, "notes": None,
                                                  "company_id": companies[n % 2]["id"] if n % 3 == 0 else None,
                                                  "parent_id": None, "manager_id": None})
    for n, loc in enumerate(locations):
        if n >= 2:  # a tree two levels deep: 2..4 under 0 or 1, 5..7 under 2..4
            loc["parent_id"] = locations[n - 2 if n < 5 else n - 3]["id"]
    manufacturers = table("manufacturers", 5, lambda n: {"name": name("Maker", n), "url": f"https://maker{n}.example",
                                                          "support_url": None, "warranty_lookup_url": None,
                                                          "support_phone": None, "support_email": None,
                                                          "notes": None, "deleted_at": None})
    suppliers = table("suppliers", 4, lambda n: {"name": name("Supplier", n), "url": None, "address": f"{n} Dock Rd",
                                                  "address2": None, "city": "Dover", "state": None, "country": "UK",
                                                  "zip": None, "fax": None, "phone": None,
                                                  "email": f"sales{n}@supplier.example", "contact": "Pat O'Neil",
                                                  "notes": None})
    types = list(CATEGORY_TYPES)
    categories = table("categories", 10, lambda n: {"name": name("Category", n), "category_type": types[n % 5],
                                                     "require_acceptance": n % 3 == 0, "checkin_email": n % 4 == 0,
                                                     "eula_text": "You agree & sign." if n % 5 == 1 else None,
                                                     "use_default_eula": n % 5 == 2, "notes": None})
    status_specs = [("Ready to Deploy", "deployable"), ("In Use", "deployable"), ("Pending Repair", "pending"),
                    ("Archived", "archived"), ("Broken & Lost", "undeployable")]
    statuslabels = table("statuslabels", len(status_specs), lambda n: {
        "name": status_specs[n][0], "type": status_specs[n][1], "color": "#00aa00" if n == 0 else None,
        "show_in_nav": n == 0, "default_label": n == 0, "notes": None})
    depreciations = table("depreciations", 3, lambda n: {"name": name("Depreciation", n), "months": 12 * (n + 2),
                                                         "depreciation_type": "percent" if n == 2 else "amount",
                                                         "depreciation_min": 10 if n == 2 else 0})
    field_specs = [  # label, format, element, encrypted, unique, required in the fieldset
        ("MAC Address", "MAC", "text", False, True, True),
        ("IP Address", "IP", "text", False, False, False),
        ("Owner's Note", "ANY", "textarea", False, False, False),
        ("BIOS Password", "ANY", "text", True, False, False),
        ("RAM (GB)", "NUMERIC", "text", False, False, False),
        ("Warranty Start", "DATE", "text", False, False, False),
        ("Disk Type", "ANY", "listbox", False, False, False),
        ("Recovery Key", "ANY", "text", True, True, False),
        ("Has Dock", "BOOLEAN", "checkbox", False, False, False),
        ("Asset URL", "URL", "text", False, False, False),
    ]
    fields = table("fields", custom_fields, lambda n: {
        "name": field_specs[n][0], "format": field_specs[n][1], "element": field_specs[n][2],
        "field_encrypted": field_specs[n][3], "is_unique": field_specs[n][4], "required": field_specs[n][5],
        # A checkbox holds the values of its ticked options (none ticked: nothing), so Snipe-IT's "Has Dock" box has
        # one option, "1", which its BOOLEAN format accepts; it cannot hold "0".
        "field_values": {"listbox": "SSD\r\nHDD\r\nNVMe", "checkbox": "1"}.get(field_specs[n][2]),
        "display_in_user_view": n % 2 == 0, "show_in_listview": True, "display_checkin": False,
        "display_checkout": n == 0, "display_audit": False, "auto_add_to_fieldsets": False})
    for f in fields:
        f["db_column"] = db_column(f["name"], f["id"])
    fieldsets = table("fieldsets", 2, lambda n: {"name": ["Laptops", "Network & Servers"][n]})
    fieldsets[0]["field_ids"] = [f["id"] for f in fields]
    fieldsets[1]["field_ids"] = [f["id"] for f in fields[:2]]
    asset_categories = [c for c in categories if c["category_type"] == "asset"]
    models = table("models", 8, lambda n: {"name": name("Model", n), "model_number": f"MN-{n:03d}",
                                             "manufacturer_id": manufacturers[n % 5]["id"],
                                             "category_id": asset_categories[n % 2]["id"],
                                             "depreciation_id": depreciations[n % 3]["id"] if n % 2 else None,
                                             "fieldset_id": fieldsets[n % 2]["id"] if n < 6 else None,
                                             "eol": 36 if n % 2 else None, "min_amt": n if n % 3 == 0 else None,
                                             "requestable": n % 2 == 0, "notes": None, "deleted_at": None})
    group_perms = [{"assets.view": "1", "assets.checkout": "1"}, {"users.view": "1", "reports.view": "1"},
                   {"admin": "1"}]
    groups = table("groups", 3, lambda n: {"name": ["Help Desk", "Auditors & Readers", "Admins"][n],
                                           "permissions": group_perms[n], "notes": None})

    first_names = ["Ana", "Ben", "Chloé", "Dan", "Eve", "Finn", "Gia", "Hal"]
    last_names = ["O'Hara", "Smith", "Lee", "Núñez", "Brown", None]
    user_rows = table("users", n_users, lambda n: {
        "first_name": "Admin" if n == 0 else first_names[n % 8],
        "last_name": "User" if n == 0 else last_names[n % 6],
        "username": "admin" if n == 0 else f"user{n}", "email": f"user{n}@example.com" if n % 7 else None,
        "employee_num": f"E{1000 + n}" if n % 3 else None, "jobtitle": "Engineer" if n % 2 else None,
        "phone": None, "website": None, "address": None, "city": None, "state": None, "country": None, "zip": None,
        "locale": "en-US", "notes": None, "remote": n % 9 == 0, "vip": n % 11 == 0,
        "activated": n % 6 != 5, "autoassign_licenses": True, "ldap_import": False,
        "permissions": {"superuser": "1"} if n == 0 else {},
        "company_id": companies[n % 4]["id"] if n else None, "department_id": None,
        "location_id": locations[n % 8]["id"] if n % 4 else None, "manager_id": None, "group_ids": [],
        "start_date": date(2020, 1, 1) + timedelta(days=n) if n % 2 else None, "end_date": None,
        "last_login": None, "deleted_at": None})
    ds.superuser_id = user_rows[0]["id"]
    for user in user_rows[-2:]:  # soft-deleted people: gone from `/users`, still actors in the action log
        user["deleted_at"] = user["updated_at"] + timedelta(days=10)
    for n, user in enumerate(user_rows[1:], start=1):
        if n > 3:
            user["manager_id"] = user_rows[1 + n % 3]["id"]
        user["group_ids"] = [groups[n % 3]["id"]] if n % 2 else []
        if n % 5 == 0:
            user["group_ids"].append(groups[(n + 1) % 3]["id"])
    departments = table("departments", 5, lambda n: {"name": name("Department", n), "phone": None, "fax": None,
                                                     "company_id": companies[n % 4]["id"],
                                                     "manager_id": user_rows[1 + n]["id"],
                                                     "location_id": locations[n]["id"], "notes": None})
    for n, user in enumerate(user_rows[1:], start=1):
        user["department_id"] = departments[n % 5]["id"] if n % 4 != 3 else None
    locations[0]["manager_id"] = user_rows[2]["id"]
    for row in [*companies, *locations, *manufacturers, *categories, *statuslabels, *depreciations, *models,
                *groups, *fields, *fieldsets, *user_rows[1:], *departments, *suppliers]:
        row["created_by"] = ds.superuser_id

    # Assets: every standard field, custom values, checkouts of each kind, audits, deleted ones.
    status_by_type = {s["type"]: s for s in statuslabels}
    active_users = [u for u in user_rows if u["deleted_at"] is None]

    def asset(n: int) -> Raw:
        model = models[n % len(models)]
        status = statuslabels[n % len(statuslabels)] if n % 7 else status_by_type["deployable"]
        purchased = date(2020, 1, 1) + timedelta(days=rng.randint(0, 1500))
        row = {"name": name("Laptop", n) if n % 4 else None, "asset_tag": f"A-{n:06d}",
               "serial": f"SN{rng.randrange(16**8):08X}" if n % 6 else None, "model_id": model["id"],
               "status_id": status["id"], "company_id": companies[n % 4]["id"] if n % 5 else None,
               "supplier_id": suppliers[n % 4]["id"] if n % 3 else None, "byod": n % 13 == 0,
               "requestable": n % 2 == 0, "notes": "Dropped once & fixed" if n % 10 == 0 else None,
               "order_number": f"PO-{n}" if n % 2 else None, "purchase_date": purchased if n % 8 else None,
               "purchase_cost": round(rng.uniform(100, 3000), 2) if n % 8 else None,
               "warranty_months": 24 if n % 3 == 0 else None,
               "asset_eol_date": purchased + timedelta(days=1095) if n % 4 == 0 else None,
               "rtd_location_id": locations[n % 8]["id"], "location_id": locations[n % 8]["id"],
               "assigned_to": None, "assigned_type": None, "expected_checkin": None, "last_checkout": None,
               "last_checkin": None, "last_audit_date": None, "next_audit_date": None,
               "checkout_counter": rng.randint(0, 5), "checkin_counter": rng.randint(0, 5), "requests_counter": 0,
               "deleted_at": None, "created_by": ds.superuser_id, "custom": {}}
        if n % 3 == 0:
            row["last_audit_date"] = datetime.combine(purchased, datetime.min.time()) + timedelta(days=200, hours=10)
            row["next_audit_date"] = row["last_audit_date"].date() + timedelta(days=365)
        fieldset = next((fs for fs in fieldsets if fs["id"] == model["fieldset_id"]), None)
        for field_id in fieldset["field_ids"] if fieldset else []:
            f = raw["fields"][field_id]
            row["custom"][f["db_column"]] = _custom_value(f, n, rng)
        return row

    asset_rows = table("hardware", assets, asset)
    deployable_status = {s["id"] for s in statuslabels if s["type"] == "deployable"}
    for n, row in enumerate(asset_rows):
        if n % 17 == 16:
            row["deleted_at"] = row["updated_at"] + timedelta(days=3)
            continue
        if row["status_id"] not in deployable_status or n % 6 == 5:
            continue
        kind = ("user", "user", "asset", "location")[n % 4] if n else "user"
        if kind == "asset":
            target = asset_rows[n - 1]
            if target["assigned_type"] == "asset" or target["deleted_at"] or n < 2:
                kind, target = "user", active_users[1 + n % (len(active_users) - 1)]
        elif kind == "location":
            target = locations[n % 8]
        else:
            target = active_users[1 + n % (len(active_users) - 1)]
        row["assigned_to"], row["assigned_type"] = target["id"], kind
        row["last_checkout"] = row["created_at"] + timedelta(days=rng.randint(1, 60), hours=3)
        row["expected_checkin"] = row["last_checkout"].date() + timedelta(days=90) if n % 2 else None
        row["location_id"] = target["id"] if kind == "location" else target.get("location_id")

    accessory_categories = [c for c in categories if c["category_type"] == "accessory"]
    accessories = table("accessories", 6, lambda n: {
        "name": name("Dock", n), "company_id": companies[n % 4]["id"] if n % 2 else None,
        "manufacturer_id": manufacturers[n % 5]["id"], "supplier_id": suppliers[n % 4]["id"],
        "category_id": accessory_categories[n % 2]["id"], "location_id": locations[n % 8]["id"],
        "model_number": f"DK-{n}", "qty": 10 + n, "min_amt": 2, "purchase_date": date(2022, 5, 1 + n),
        "purchase_cost": 99.5 + n, "order_number": None, "notes": None, "created_by": ds.superuser_id})
    consumable_categories = [c for c in categories if c["category_type"] == "consumable"]
    consumables = table("consumables", 6, lambda n: {
        "name": name("Toner", n), "company_id": None, "manufacturer_id": manufacturers[n % 5]["id"],
        "supplier_id": None, "category_id": consumable_categories[n % 2]["id"], "location_id": None,
        "item_no": f"TN-{n}", "model_number": None, "qty": 50, "min_amt": 5, "purchase_date": None,
        "purchase_cost": 12.0, "order_number": None, "notes": None, "created_by": ds.superuser_id})
    component_categories = [c for c in categories if c["category_type"] == "component"]
    components = table("components", 5, lambda n: {
        "name": name("RAM stick", n), "serial": f"C{n}", "company_id": None, "supplier_id": None,
        "manufacturer_id": manufacturers[n % 5]["id"], "category_id": component_categories[n % 2]["id"],
        "location_id": locations[n % 8]["id"], "model_number": None, "qty": 20, "min_amt": 1,
        "purchase_date": None, "purchase_cost": 45.0, "order_number": None, "notes": None,
        "created_by": ds.superuser_id})
    license_categories = [c for c in categories if c["category_type"] == "license"]
    licenses = table("licenses", 5, lambda n: {
        "name": name("Office Suite", n), "serial": f"KEY-{n}-XXXX", "seats": 4 + n,
        "company_id": companies[n % 4]["id"] if n % 2 else None, "manufacturer_id": manufacturers[n % 5]["id"],
        "supplier_id": None, "category_id": license_categories[n % 2]["id"],
        "depreciation_id": None, "order_number": None, "purchase_order": None, "purchase_date": date(2021, 1, 1),
        "termination_date": None, "expiration_date": date(2027, 1, 1) if n % 2 else None, "purchase_cost": 300.0,
        "license_name": "Licensee & Co", "license_email": "lic@example.com", "reassignable": n != 1,
        "maintained": n % 2 == 0, "min_amt": 0, "notes": None, "deleted_at": None, "created_by": ds.superuser_id})

    live_assets = [a for a in asset_rows if a["deleted_at"] is None]
    pick_user = lambda i: active_users[1 + i % (len(active_users) - 1)]  # noqa: E731
    pick_asset = lambda i: live_assets[i % len(live_assets)]  # noqa: E731
    checkout_ids, pivot_ids, seat_ids = _Ids(rng), _Ids(rng), _Ids(rng)
    raw["accessory_checkouts"] = {}
    for n, acc in enumerate(accessories):
        for i in range(n % 4):
            target_kind = ("user", "location", "asset")[i % 3]
            target = {"user": pick_user(n + i), "location": locations[i], "asset": pick_asset(n + i)}[target_kind]
            cid = checkout_ids.take()
            raw["accessory_checkouts"][cid] = {"id": cid, "accessory_id": acc["id"], "assigned_to": target["id"],
                                              "assigned_type": target_kind, "note": "Desk 4's dock" if i else None,
                                              "created_by": ds.superuser_id, "created_at": stamp()}
    raw["consumable_assignments"] = {}
    for n, con in enumerate(consumables):
        for i in range(n % 3 + 1):
            cid = checkout_ids.take()
            raw["consumable_assignments"][cid] = {"id": cid, "consumable_id": con["id"],
                                                  "user_id": pick_user(n * 3 + i)["id"],
                                                 "note": None, "created_by": ds.superuser_id, "created_at": stamp()}
    raw["components_assets"] = {}
    for n, comp in enumerate(components):
        for i in range(n % 3 + 1):
            pid = pivot_ids.take()
            raw["components_assets"][pid] = {"id": pid, "component_id": comp["id"],
                                            "asset_id": pick_asset(5 * n + i)["id"], "assigned_qty": i + 1,
                                            "note": None, "created_by": ds.superuser_id, "created_at": stamp()}
    raw["license_seats"] = {}
    for n, lic in enumerate(licenses):
        for i in range(lic["seats"]):
            sid = seat_ids.take()
            user_id = pick_user(n * 7 + i)["id"] if i % 3 == 0 else None
            asset_id = pick_asset(n * 7 + i)["id"] if i % 3 == 1 and i < 4 else None
            raw["license_seats"][sid] = {"id": sid, "license_id": lic["id"], "assigned_to": user_id,
                                        "asset_id": asset_id, "notes": "Seat's note" if i == 0 else None,
                                        "created_at": lic["created_at"], "updated_at": stamp()}
    table("maintenances", max(3, assets // 10), lambda n: {
        "asset_id": live_assets[n % len(live_assets)]["id"], "supplier_id": suppliers[n % 4]["id"],
        "title": name("Repair", n), "asset_maintenance_type": ("Maintenance", "Repair", "Upgrade")[n % 3],
        "start_date": date(2023, 1, 1) + timedelta(days=n), "completion_date": date(2023, 1, 5) + timedelta(days=n)
        if n % 2 else None, "asset_maintenance_time": 4 if n % 2 else None, "is_warranty": n % 4 == 0,
        "cost": 80.0 + n if n % 3 else None, "notes": "Screen & hinge" if n % 5 == 0 else None,
        "created_by": ds.superuser_id})
    kit_elements = {"models": models, "licenses": licenses, "consumables": consumables, "accessories": accessories}
    element_pivots = _Ids(rng)
    table("kits", 2, lambda n: {"name": ["New Starter's Kit", "Developer & Designer"][n], "created_by": ds.superuser_id,
                                 "elements": {key: [(element_pivots.take(), items[n + i]["id"], 1 + i)
                                                    for i in range(2 - (key == "consumables") * n)]
                                              for key, items in kit_elements.items()}})

    _history(ds, rng, log_rows, stamp)
    _render(ds)
    return ds


def _custom_value(f: Raw, n: int, rng: random.Random) -> str | None:
    if n % 9 == 4 and not f["required"]:
        return None
    fmt = f["format"]
    if fmt == "MAC":
        return ":".join(f"{(n >> (8 * i)) & 0xFF:02x}" for i in range(6))
    if fmt == "IP":
        return f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"
    if fmt == "NUMERIC":
        return str(4 * (1 + n % 8))
    if fmt == "DATE":
        return (date(2021, 1, 1) + timedelta(days=n % 700)).isoformat()
    if fmt == "BOOLEAN":  # the "Has Dock" checkbox: ticked ("1") or not (no value)
        return "1" if n % 4 == 0 else None
    if fmt == "URL":
        return f"https://inventory.example/a/{n}?x=1&y=2"
    if f["element"] == "listbox":
        return ("SSD", "HDD", "NVMe")[n % 3]
    if f["field_encrypted"]:
        return f"secret-{n}-{rng.randrange(10**6):06d}"
    return f"Owner's note <{n}> & more" if n % 2 else f"note {n}"


def _history(ds: Dataset, rng: random.Random, log_rows: int, stamp) -> None:
    """Action-log rows (`action_logs`): creates, uploads, current checkouts, then random history up to log_rows."""
    raw = ds.raw
    ids = _Ids(rng)
    log: dict[int, Raw] = {}
    users = [u for u in raw["users"].values() if u["id"] != ds.superuser_id]
    assets = list(raw["hardware"].values())

    def add(action: str, item_type: str, item_id: int, when: datetime, **extra: Any) -> Raw:
        row = {"id": ids.take(), "action_type": action, "item_type": item_type, "item_id": item_id,
               "target_type": None, "target_id": None, "note": None, "filename": None, "location_id": None,
               "created_by": extra.pop("created_by", ds.superuser_id), "created_at": when, "action_date": when,
               "log_meta": None, "remote_ip": "10.0.0.5", "user_agent": "Mozilla/5.0", "action_source": "gui"}
        row.update(extra)
        log[row["id"]] = row
        return row

    for asset in assets[: max(1, len(assets) // 4)]:
        add("create", "asset", asset["id"], asset["created_at"])
    # Files: each is an `uploaded` action-log row; its id is the file id.
    for n, asset in enumerate(assets[:: max(1, len(assets) // 6)][:6]):
        row = add("uploaded", "asset", asset["id"], asset["created_at"] + timedelta(days=2),
                  filename=f"invoice-{n}.pdf" if n % 2 else f"photo's {n}.jpg", note="Receipt & photo")
        # Content of the type the name says (Snipe-IT's upload rule `mimes:` checks the content, not only the name).
        head = b"%PDF-1.4\n" if n % 2 else b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"
        ds.files[("hardware", asset["id"], row["id"])] = (row["filename"], head + f"asset {n}\n".encode() * (n + 1))
    for n, user in enumerate(users[:3]):
        row = add("uploaded", "user", user["id"], user["created_at"] + timedelta(days=1),
                  filename=f"contract-{n}.pdf", note=None)
        ds.files[("users", user["id"], row["id"])] = (row["filename"], f"%PDF-1.4\nsigned contract {n}\n".encode())
    for asset in assets:
        if asset["assigned_to"]:
            add("checkout", "asset", asset["id"], asset["last_checkout"], target_type=asset["assigned_type"],
                target_id=asset["assigned_to"], note="Handed over at the front desk", location_id=asset["location_id"])
        if asset["last_audit_date"]:
            add("audit", "asset", asset["id"], asset["last_audit_date"], note="Seen on desk")
        if asset["deleted_at"]:
            add("delete", "asset", asset["id"], asset["deleted_at"])
    actions = ("checkout", "checkin from", "audit", "update", "update")
    while len(log) < log_rows:
        asset = assets[rng.randrange(len(assets))]
        action = actions[rng.randrange(len(actions))]
        user = users[rng.randrange(len(users))]
        when = asset["created_at"] + timedelta(minutes=rng.randrange(60 * 24 * 400))
        actor = users[rng.randrange(3)] if rng.random() < 0.3 else users[-1] if rng.random() < 0.02 else None
        extra: dict[str, Any] = {"created_by": actor["id"] if actor else ds.superuser_id}
        if action in ("checkout", "checkin from"):
            extra.update(target_type="user", target_id=user["id"], note=f"Ticket #{rng.randrange(9999)} & co's")
        elif action == "update":
            extra["log_meta"] = {"name": {"old": "Old name", "new": asset["name"] or ""}}
        add(action, "asset", asset["id"], when, **extra)
    raw["activity"] = log


def _render(ds: Dataset) -> None:  # noqa: C901, PLR0915 (one renderer per transformer, kept side by side)
    raw = ds.raw

    def creator(row: Raw) -> dict[str, Any] | None:
        return {"id": row["created_by"], "name": esc(ds.fullname(row["created_by"]))} if row.get("created_by") else None

    def get(kind: str, ident: int | None) -> Raw | None:
        return raw[kind].get(ident) if ident else None

    def stamps(row: Raw) -> dict[str, Any]:
        return {"created_at": dt(row["created_at"]), "updated_at": dt(row["updated_at"])}

    assets = raw["hardware"]
    users = raw["users"]
    live = [a for a in assets.values() if a["deleted_at"] is None]

    counters: dict[tuple[str, str], Counter] = {}

    def count(kind: str, key: str, value: int) -> int:
        """How many rows of a kind ("live" = assets not deleted) have `key == value`; one pass per (kind, key)."""
        tally = counters.get((kind, key))
        if tally is None:
            rows = live if kind == "live" else raw[kind].values()
            if kind == "users":  # withCount() leaves soft-deleted users out
                rows = [u for u in rows if u["deleted_at"] is None]
            tally = counters[(kind, key)] = Counter(r.get(key) for r in rows)
        return tally[value]

    per_model = Counter(a["model_id"] for a in live)

    def through_models(key: str, value: int) -> int:
        return sum(n for model_id, n in per_model.items() if raw["models"][model_id][key] == value)

    held = Counter((a["assigned_type"], a["assigned_to"]) for a in live if a["assigned_to"])
    acc_held = Counter((c["assigned_type"], c["assigned_to"]) for c in raw["accessory_checkouts"].values())

    def asset_fullname(a: Raw) -> str:
        model = raw["models"][a["model_id"]]
        return f"{a['name'] or ''} ({a['asset_tag']}) - {model['name']}".strip()

    def user_fullname(u: Raw) -> str:
        return f"{u['first_name']} {u['last_name'] or ''}".strip()

    rows: dict[str, dict[int, Row]] = {}
    rows["companies"] = {c["id"]: {
        "id": c["id"], "name": esc(c["name"]), "phone": esc_or_none(c["phone"]), "fax": esc_or_none(c["fax"]),
        "email": esc_or_none(c["email"]), "image": None, "assets_count": count("live", "company_id", c["id"]),
        "licenses_count": count("licenses", "company_id", c["id"]),
        "accessories_count": count("accessories", "company_id", c["id"]),
        "consumables_count": count("consumables", "company_id", c["id"]),
        "components_count": count("components", "company_id", c["id"]),
        "users_count": count("users", "company_id", c["id"]), "created_by": creator(c),
        "notes": markdown(c["notes"]), **stamps(c), "available_actions": {"update": True, "delete": False},
    } for c in raw["companies"].values()}

    def user_row(u: Raw) -> Row:
        groups = [raw["groups"][g] for g in u["group_ids"]]
        manager = get("users", u["manager_id"])
        return {
            "id": u["id"], "avatar": "", "name": esc(user_fullname(u)), "first_name": esc(u["first_name"]),
            "last_name": esc(u["last_name"]), "username": esc(u["username"]), "remote": u["remote"],
            "locale": esc(u["locale"]), "employee_num": esc(u["employee_num"]),
            "manager": {"id": manager["id"], "name": esc(user_fullname(manager))} if manager else None,
            "jobtitle": esc_or_none(u["jobtitle"]), "vip": u["vip"], "phone": esc_or_none(u["phone"]),
            "website": esc_or_none(u["website"]), "address": esc_or_none(u["address"]), "city": esc_or_none(u["city"]),
            "state": esc_or_none(u["state"]), "country": esc_or_none(u["country"]), "zip": esc_or_none(u["zip"]),
            "email": esc(u["email"]), "department": idname(get("departments", u["department_id"])),
            "location": idname(get("locations", u["location_id"])), "notes": esc(u["notes"]),
            "permissions": u["permissions"] or {}, "activated": u["activated"],
            "autoassign_licenses": u["autoassign_licenses"], "ldap_import": u["ldap_import"],
            "two_factor_enrolled": False, "two_factor_optin": False,
            "assets_count": held[("user", u["id"])], "licenses_count": count("license_seats", "assigned_to", u["id"]),
            "accessories_count": acc_held[("user", u["id"])],
            "consumables_count": count("consumable_assignments", "user_id", u["id"]),
            "manages_users_count": count("users", "manager_id", u["id"]),
            "manages_locations_count": count("locations", "manager_id", u["id"]),
            "company": idname(get("companies", u["company_id"])), "created_by": creator(u), **stamps(u),
            "start_date": d(u["start_date"]), "end_date": d(u["end_date"]), "last_login": dt(u["last_login"]),
            "deleted_at": dt(u["deleted_at"]),
            "available_actions": {"update": True, "delete": False, "clone": True, "restore": False},
            "groups": {"total": len(groups), "rows": [idname(g) for g in groups]} if groups else None,
        }

    rows["users"] = {u["id"]: user_row(u) for u in users.values()}

    def location_row(loc: Raw) -> Row:
        manager = get("users", loc["manager_id"])
        return {
            "id": loc["id"], "name": esc(loc["name"]), "image": None,
            **{k: esc_or_none(loc[k]) for k in
               ("address", "address2", "city", "state", "country", "zip", "phone", "fax")},
            "accessories_count": count("accessories", "location_id", loc["id"]),
            "assigned_accessories_count": acc_held[("location", loc["id"])],
            "assigned_assets_count": held[("location", loc["id"])],
            "assets_count": count("live", "location_id", loc["id"]),
            "rtd_assets_count": count("live", "rtd_location_id", loc["id"]),
            "users_count": count("users", "location_id", loc["id"]), "currency": esc(loc["currency"]),
            "ldap_ou": esc(loc["ldap_ou"]), "notes": markdown(loc["notes"]), **stamps(loc),
            "parent": idname(get("locations", loc["parent_id"])),
            "manager": rows["users"][manager["id"]] if manager else None,
            "company": idname(get("companies", loc["company_id"])),
            "children": [idname(c) for c in raw["locations"].values() if c["parent_id"] == loc["id"]],
            "available_actions": {"update": True, "delete": False, "bulk_selectable": {"delete": False}, "clone": True},
        }

    rows["locations"] = {loc["id"]: location_row(loc) for loc in raw["locations"].values()}
    item_kinds = ("accessories", "consumables", "components", "licenses")
    rows["manufacturers"] = {m["id"]: {
        "id": m["id"], "name": esc(m["name"]), "url": esc(m["url"]), "image": None,
        "support_url": esc(m["support_url"]), "warranty_lookup_url": esc(m["warranty_lookup_url"]),
        "support_phone": esc(m["support_phone"]), "support_email": esc(m["support_email"]),
        "assets_count": through_models("manufacturer_id", m["id"]),
        **{f"{k}_count": count(k, "manufacturer_id", m["id"]) for k in item_kinds},
        "notes": markdown(m["notes"]), "created_by": creator(m), **stamps(m), "deleted_at": dt(m["deleted_at"]),
        "available_actions": {"update": True, "restore": False, "delete": False},
    } for m in raw["manufacturers"].values()}
    rows["suppliers"] = {s["id"]: {
        "id": s["id"], "name": esc(s["name"]), "image": None,
        **{k: esc(s[k]) for k in ("url", "address", "address2", "city", "state", "country", "zip", "fax", "phone",
                                  "email", "contact")},
        "assets_count": count("live", "supplier_id", s["id"]),
        **{f"{k}_count": count(k, "supplier_id", s["id"]) for k in item_kinds},
        "notes": markdown(s["notes"]), **stamps(s), "available_actions": {"update": True, "delete": False},
    } for s in raw["suppliers"].values()}

    def category_items(c: Raw, kind: str) -> int:
        if kind == "hardware":
            return through_models("category_id", c["id"])
        return count(kind, "category_id", c["id"])

    rows["categories"] = {}
    for c in raw["categories"].values():
        per = {k: category_items(c, k) for k in ("hardware", *item_kinds)}
        type_kind = {"asset": "hardware", "accessory": "accessories", "consumable": "consumables",
                     "component": "components", "license": "licenses"}[c["category_type"]]
        rows["categories"][c["id"]] = {
            "id": c["id"], "name": esc(c["name"]), "image": None, "category_type": CATEGORY_TYPES[c["category_type"]],
            "has_eula": bool(c["eula_text"] or c["use_default_eula"]), "use_default_eula": c["use_default_eula"],
            "eula": markdown(c["eula_text"]), "checkin_email": c["checkin_email"],
            "require_acceptance": c["require_acceptance"], "item_count": per[type_kind],
            "assets_count": per["hardware"], **{f"{k}_count": per[k] for k in item_kinds},
            "created_by": creator(c), "notes": markdown(c["notes"]), **stamps(c),
            "available_actions": {"update": True, "delete": False},
        }
    rows["statuslabels"] = {s["id"]: {
        "id": s["id"], "name": esc(s["name"]), "type": s["type"], "color": s["color"], "show_in_nav": s["show_in_nav"],
        "default_label": s["default_label"], "assets_count": count("live", "status_id", s["id"]),
        "notes": esc(s["notes"]),
        "created_by": creator(s), **stamps(s), "available_actions": {"update": True, "delete": False},
    } for s in raw["statuslabels"].values()}
    rows["depreciations"] = {p["id"]: {
        "id": p["id"], "name": esc(p["name"]), "months": f"{p['months']} months",
        "depreciation_min": f"{p['depreciation_min']}%" if p["depreciation_type"] == "percent"
        else p["depreciation_min"],
        "assets_count": through_models("depreciation_id", p["id"]),
        "models_count": count("models", "depreciation_id", p["id"]),
        "licenses_count": count("licenses", "depreciation_id", p["id"]), "created_by": creator(p),
        **stamps(p), "available_actions": {"update": True, "delete": False},
    } for p in raw["depreciations"].values()}
    rows["departments"] = {p["id"]: {
        "id": p["id"], "name": esc(p["name"]), "phone": esc(p["phone"]), "fax": esc(p["fax"]), "image": None,
        "company": idname(get("companies", p["company_id"])),
        "manager": {"id": p["manager_id"], "name": esc(user_fullname(users[p["manager_id"]])),
                    "first_name": esc(users[p["manager_id"]]["first_name"]),
                    "last_name": esc(users[p["manager_id"]]["last_name"])} if p["manager_id"] else None,
        "location": idname(get("locations", p["location_id"])),
        "users_count": str(count("users", "department_id", p["id"])), "notes": markdown(p["notes"]),
        **stamps(p), "available_actions": {"update": True, "delete": False},
    } for p in raw["departments"].values()}
    rows["groups"] = {g["id"]: {
        "id": g["id"], "name": esc(g["name"]), "permissions": g["permissions"],
        "users_count": sum(1 for u in users.values() if g["id"] in u["group_ids"]), "notes": markdown(g["notes"]),
        "created_by": creator(g), **stamps(g), "available_actions": {"update": True, "delete": True},
    } for g in raw["groups"].values()}

    def field_row(f: Raw, required: bool = False) -> Row:
        return {
            "id": f["id"], "name": esc(f["name"]), "db_column_name": esc(f["db_column"]), "format": esc(f["format"]),
            "field_values": esc(f["field_values"]) if f["field_values"] else None,
            "field_values_array": esc(f["field_values"]).split("\r\n") if f["field_values"] else None,
            "type": esc(f["element"]), "required": required, "display_in_user_view": f["display_in_user_view"],
            "auto_add_to_fieldsets": f["auto_add_to_fieldsets"], "show_in_listview": f["show_in_listview"],
            "display_checkin": f["display_checkin"], "display_checkout": f["display_checkout"],
            "display_audit": f["display_audit"], **stamps(f),
        }

    rows["fields"] = {f["id"]: field_row(f) for f in raw["fields"].values()}
    rows["fieldsets"] = {}
    for fs in raw["fieldsets"].values():
        members = [raw["fields"][i] for i in fs["field_ids"]]
        fs_models = [m for m in raw["models"].values() if m["fieldset_id"] == fs["id"]]
        rows["fieldsets"][fs["id"]] = {
            "id": fs["id"], "name": esc(fs["name"]),
            "fields": {"total": len(members), "rows": [field_row(f, f["required"]) for f in members]},
            "models": {"total": len(fs_models), "rows": [idname(m) for m in fs_models]}, **stamps(fs),
        }
    rows["models"] = {}
    for m in raw["models"].values():
        fs = get("fieldsets", m["fieldset_id"])
        n_assets = count("live", "model_id", m["id"])
        rows["models"][m["id"]] = {
            "id": m["id"], "name": esc(m["name"]), "manufacturer": idname(get("manufacturers", m["manufacturer_id"])),
            "image": None, "model_number": esc(m["model_number"]), "min_amt": m["min_amt"],
            "remaining": n_assets - (m["min_amt"] or 0),
            "depreciation": idname(get("depreciations", m["depreciation_id"])), "assets_count": n_assets,
            "category": idname(get("categories", m["category_id"])), "fieldset": idname(fs),
            "default_fieldset_values": [{"name": f["name"], "db_column_name": f["db_column"], "default_value": None,
                                         "format": f["format"], "required": f["required"]}
                                        for f in (raw["fields"][i] for i in (fs["field_ids"] if fs else []))],
            "eol": f"{m['eol']} months" if m["eol"] else "None", "requestable": m["requestable"],
            "notes": markdown(m["notes"]), "created_by": creator(m), **stamps(m), "deleted_at": dt(m["deleted_at"]),
            "available_actions": {"update": True, "delete": False, "clone": True, "restore": False},
        }

    def status_block(a: Raw) -> Row:
        s = raw["statuslabels"][a["status_id"]]
        return {"id": s["id"], "name": esc(s["name"]), "status_type": s["type"],
                "status_meta": "deployed" if a["assigned_to"] else s["type"]}

    def assigned(a: Raw) -> Row | None:
        if not a["assigned_to"]:
            return None
        if a["assigned_type"] == "user":
            u = users[a["assigned_to"]]
            return {"id": u["id"], "username": esc(u["username"]), "name": esc(user_fullname(u)),
                    "first_name": esc(u["first_name"]), "last_name": esc_or_none(u["last_name"]),
                    "email": esc_or_none(u["email"]), "employee_number": esc_or_none(u["employee_num"]), "type": "user"}
        if a["assigned_type"] == "asset":
            return {"id": a["assigned_to"], "name": esc(asset_fullname(assets[a["assigned_to"]])), "type": "asset"}
        return {"id": a["assigned_to"], "name": esc(raw["locations"][a["assigned_to"]]["name"]), "type": "location"}

    by_column = {f["db_column"]: f for f in raw["fields"].values()}

    def custom(a: Raw) -> dict[str, Row]:
        out = {}
        for column, value in a["custom"].items():
            f = by_column[column]
            shown = value
            if f["format"] == "DATE" and value:
                shown = d(date.fromisoformat(value))["formatted"]
            out[f["name"]] = {"field": esc(column), "value": esc(shown), "field_format": f["format"],
                              "element": f["element"]}
        return out

    rows["hardware"] = {}
    for a in assets.values():
        model = raw["models"][a["model_id"]]
        purchase = a["purchase_date"]
        warranty = a["warranty_months"]
        eol = None
        if a["asset_eol_date"] and purchase:
            months = (a["asset_eol_date"].year - purchase.year) * 12 + a["asset_eol_date"].month - purchase.month
            eol = f"{months - (a['asset_eol_date'].day < purchase.day)} months"
        deleted = a["deleted_at"] is not None
        status = raw["statuslabels"][a["status_id"]]
        rows["hardware"][a["id"]] = {
            "id": a["id"], "name": esc(a["name"]), "asset_tag": esc(a["asset_tag"]), "serial": esc(a["serial"]),
            "model": idname(model), "byod": a["byod"], "requestable": a["requestable"],
            "model_number": esc(model["model_number"]), "eol": eol, "asset_eol_date": d(a["asset_eol_date"]),
            "status_label": status_block(a), "category": idname(raw["categories"][model["category_id"]]),
            "manufacturer": idname(raw["manufacturers"][model["manufacturer_id"]]),
            "supplier": idname(get("suppliers", a["supplier_id"])), "notes": markdown(a["notes"]),
            "order_number": esc_or_none(a["order_number"]), "company": idname(get("companies", a["company_id"])),
            "location": idname(get("locations", a["location_id"])),
            "rtd_location": idname(get("locations", a["rtd_location_id"])), "image": None, "qr": None,
            "alt_barcode": f"{APP_URL}/uploads/barcodes/c128-{a['asset_tag'].lower()}.png",
            "assigned_to": assigned(a), "warranty_months": f"{warranty} months" if warranty else None,
            "warranty_expires": d(_add_months(purchase, warranty)) if warranty and purchase else None,
            "created_by": creator(a), **stamps(a), "last_audit_date": dt(a["last_audit_date"]),
            "next_audit_date": d(a["next_audit_date"]), "deleted_at": dt(a["deleted_at"]),
            "purchase_date": d(purchase), "age": f"{2026 - purchase.year} years ago" if purchase else "",
            "last_checkout": dt(a["last_checkout"]), "last_checkin": dt(a["last_checkin"]),
            "expected_checkin": d(a["expected_checkin"]), "purchase_cost": money(a["purchase_cost"]),
            "checkin_counter": a["checkin_counter"], "checkout_counter": a["checkout_counter"],
            "requests_counter": a["requests_counter"],
            "user_can_checkout": not a["assigned_to"] and not deleted and status["type"] == "deployable",
            "book_value": money(a["purchase_cost"]) if model["depreciation_id"] and purchase else None,
            "custom_fields": custom(a),
            "available_actions": {"checkout": not deleted, "checkin": not deleted, "clone": True, "restore": deleted,
                                  "update": not deleted, "audit": True,
                                  "delete": not deleted and not a["assigned_to"]},
        }

    def component_asset_name(a: Raw) -> str:
        # ComponentsTransformer: the model's name, then the asset's full name (which ends with the model again).
        return f"{esc(raw['models'][a['model_id']]['name'])} {esc(asset_fullname(a))}"

    def compact(kind: str, ident: int) -> Row:
        if kind == "user":
            u = users[ident]
            return {"id": u["id"], "image": "", "type": "user", "name": esc(user_fullname(u)),
                    "first_name": esc(u["first_name"]), "last_name": esc(u["last_name"]),
                    "username": esc(u["username"]),
                    "created_by": creator(u), "created_at": dt(u["created_at"]), "deleted_at": dt(u["deleted_at"])}
        if kind == "location":
            loc = raw["locations"][ident]
            return {"id": loc["id"], "image": None, "type": "location", "name": esc(loc["name"]),
                    "created_by": creator(loc), "created_at": dt(loc["created_at"])}
        a = assets[ident]
        return {"id": a["id"], "image": None, "type": "asset", "name": esc(a["name"]),
                "model": esc(raw["models"][a["model_id"]]["name"]),
                "model_number": esc(raw["models"][a["model_id"]]["model_number"]),
                "asset_tag": esc(a["asset_tag"]), "serial": esc(a["serial"])}

    common = lambda r: {  # noqa: E731
        "company": idname(get("companies", r["company_id"])),
        "manufacturer": idname(get("manufacturers", r["manufacturer_id"])),
        "supplier": idname(get("suppliers", r["supplier_id"])), "category": idname(get("categories", r["category_id"])),
    }
    rows["accessories"] = {}
    for acc in raw["accessories"].values():
        outs = [c for c in raw["accessory_checkouts"].values() if c["accessory_id"] == acc["id"]]
        rows["accessories"][acc["id"]] = {
            "id": acc["id"], "name": esc(acc["name"]), "image": None, **common(acc),
            "model_number": esc(acc["model_number"]), "location": idname(get("locations", acc["location_id"])),
            "notes": markdown(acc["notes"]), "qty": acc["qty"], "purchase_date": d(acc["purchase_date"]),
            "purchase_cost": money(acc["purchase_cost"]), "order_number": esc(acc["order_number"]),
            "min_qty": acc["min_amt"], "min_amt": acc["min_amt"], "remaining_qty": acc["qty"] - len(outs),
            "remaining": acc["qty"] - len(outs), "checkouts_count": len(outs), "created_by": creator(acc),
            **stamps(acc), "available_actions": {"checkout": True, "checkin": False, "update": True,
                                                 "delete": not outs, "clone": True},
            "user_can_checkout": acc["qty"] > len(outs),
        }
        ds.sub[("accessories", acc["id"], "checkedout")] = [{
            "id": c["id"], "assigned_to": compact(c["assigned_type"], c["assigned_to"]),
            "note": esc_or_none(c["note"]), "created_by": creator(c), "created_at": dt(c["created_at"]),
            "available_actions": {"checkin": True},
        } for c in sorted(outs, key=lambda c: c["id"])]
    rows["consumables"] = {}
    for con in raw["consumables"].values():
        outs = sorted((c for c in raw["consumable_assignments"].values() if c["consumable_id"] == con["id"]),
                      key=lambda c: c["created_at"], reverse=True)
        rows["consumables"][con["id"]] = {
            "id": con["id"], "name": esc(con["name"]), "image": None,
            "category": idname(get("categories", con["category_id"])),
            "company": idname(get("companies", con["company_id"])),
            "item_no": esc(con["item_no"]), "location": idname(get("locations", con["location_id"])),
            "manufacturer": idname(get("manufacturers", con["manufacturer_id"])),
            "supplier": idname(get("suppliers", con["supplier_id"])), "min_amt": con["min_amt"],
            "model_number": esc_or_none(con["model_number"]), "remaining": con["qty"] - len(outs),
            "order_number": esc_or_none(con["order_number"]), "purchase_cost": money(con["purchase_cost"]),
            "purchase_date": d(con["purchase_date"]), "qty": con["qty"], "notes": markdown(con["notes"]),
            "created_by": creator(con), **stamps(con), "user_can_checkout": con["qty"] > len(outs),
            "available_actions": {"checkout": True, "checkin": True, "update": True, "delete": not outs, "clone": True},
        }
        link = lambda uid: f'<a href="{APP_URL}/users/{uid}">{esc(user_fullname(users[uid]))}</a>'  # noqa: E731
        ds.sub[("consumables", con["id"], "users")] = [{
            "avatar": "", "name": link(c["user_id"]), "created_at": dt(c["created_at"]), "note": esc_or_none(c["note"]),
            "admin": link(c["created_by"]), "created_by": link(c["created_by"]),
        } for c in outs]
    rows["components"] = {}
    for comp in raw["components"].values():
        pivots = sorted((p for p in raw["components_assets"].values() if p["component_id"] == comp["id"]),
                        key=lambda p: p["id"])
        used = sum(p["assigned_qty"] for p in pivots)
        rows["components"][comp["id"]] = {
            "id": comp["id"], "name": esc(comp["name"]), "image": None, "serial": esc_or_none(comp["serial"]),
            "location": idname(get("locations", comp["location_id"])), "qty": comp["qty"], "min_amt": comp["min_amt"],
            "category": idname(get("categories", comp["category_id"])),
            "supplier": idname(get("suppliers", comp["supplier_id"])),
            "manufacturer": idname(get("manufacturers", comp["manufacturer_id"])),
            "model_number": esc_or_none(comp["model_number"]), "order_number": esc_or_none(comp["order_number"]),
            "purchase_date": d(comp["purchase_date"]), "purchase_cost": money(comp["purchase_cost"]),
            "remaining": comp["qty"] - used, "company": idname(get("companies", comp["company_id"])),
            "notes": markdown(comp["notes"]), "created_by": creator(comp), **stamps(comp),
            "user_can_checkout": int(comp["qty"] > used),
            "available_actions": {"checkout": True, "checkin": True, "update": True, "delete": not pivots},
        }
        ds.sub[("components", comp["id"], "assets")] = [{
            "assigned_pivot_id": p["id"], "id": p["asset_id"],
            "name": component_asset_name(assets[p["asset_id"]]),
            "qty": p["assigned_qty"], "note": p["note"], "type": "asset", "created_at": dt(p["created_at"]),
            "available_actions": {"checkin": True},
        } for p in pivots]
    rows["licenses"] = {}
    for lic in raw["licenses"].values():
        seats = sorted((s for s in raw["license_seats"].values() if s["license_id"] == lic["id"]),
                       key=lambda s: s["id"])
        free = sum(1 for s in seats if not s["assigned_to"] and not s["asset_id"])
        rows["licenses"][lic["id"]] = {
            "id": lic["id"], "name": esc(lic["name"]), "company": idname(get("companies", lic["company_id"])),
            "manufacturer": idname(get("manufacturers", lic["manufacturer_id"])), "product_key": esc(lic["serial"]),
            "order_number": esc(lic["order_number"]), "purchase_order": esc(lic["purchase_order"]),
            "purchase_date": d(lic["purchase_date"]), "termination_date": d(lic["termination_date"]),
            "depreciation": idname(get("depreciations", lic["depreciation_id"])),
            "purchase_cost": money(lic["purchase_cost"]), "purchase_cost_numeric": lic["purchase_cost"],
            "notes": markdown(lic["notes"]), "expiration_date": d(lic["expiration_date"]), "seats": lic["seats"],
            "free_seats_count": free, "remaining": free, "min_amt": lic["min_amt"],
            "license_name": esc_or_none(lic["license_name"]), "license_email": esc_or_none(lic["license_email"]),
            "reassignable": lic["reassignable"], "maintained": lic["maintained"],
            "supplier": idname(get("suppliers", lic["supplier_id"])),
            "category": idname(get("categories", lic["category_id"])),
            "created_by": creator(lic), **stamps(lic), "deleted_at": dt(lic["deleted_at"]),
            "user_can_checkout": free > 0,
            "available_actions": {"checkout": True, "checkin": True, "clone": True, "update": True, "delete": True},
        }

        def seat_row(s: Raw, lic: Raw = lic) -> Row:
            u = get("users", s["assigned_to"])
            a = get("hardware", s["asset_id"])
            loc = get("locations", (u or a or {}).get("location_id"))
            return {
                "id": s["id"], "license_id": lic["id"], "updated_at": dt(s["updated_at"]),
                "assigned_user": {"id": u["id"], "name": esc(user_fullname(u)), "email": esc(u["email"]),
                                  "department": idname(get("departments", u["department_id"])),
                                  "created_at": dt(s["created_at"])} if u else None,
                "assigned_asset": {"id": a["id"], "name": esc(asset_fullname(a)), "created_at": dt(s["created_at"])}
                if a else None,
                "location": {"id": loc["id"], "name": esc(loc["name"]), "created_at": dt(s["created_at"])}
                if loc else None,
                "reassignable": lic["reassignable"], "notes": esc(s["notes"]),
                "user_can_checkout": not s["assigned_to"] and not s["asset_id"],
                "available_actions": {"checkout": True, "checkin": True, "clone": True, "update": True, "delete": True},
            }

        ds.sub[("licenses", lic["id"], "seats")] = [seat_row(s) for s in seats]
    rows["maintenances"] = {}
    for m in raw["maintenances"].values():
        a = assets[m["asset_id"]]
        model = raw["models"][a["model_id"]]
        rows["maintenances"][m["id"]] = {
            "id": m["id"],
            "asset": {"id": a["id"], "name": esc_or_none(a["name"]), "asset_tag": esc(a["asset_tag"]),
                      "serial": esc(a["serial"]), "deleted_at": dt(a["deleted_at"]), **stamps(a)},
            "model": {"id": model["id"], "name": f"{esc(model['name'])} {esc(model['model_number'])}"},
            "status_label": status_block(a), "company": idname(get("companies", a["company_id"])),
            "title": esc_or_none(m["title"]), "location": idname(get("locations", a["location_id"])),
            "rtd_location": idname(get("locations", a["rtd_location_id"])), "notes": markdown(m["notes"]),
            "supplier": idname(get("suppliers", m["supplier_id"])), "cost": money(m["cost"]),
            "asset_maintenance_type": esc(m["asset_maintenance_type"]), "start_date": d(m["start_date"]),
            "asset_maintenance_time": m["asset_maintenance_time"], "completion_date": d(m["completion_date"]),
            "user_id": creator(m), "created_by": creator(m), **stamps(m), "is_warranty": int(m["is_warranty"]),
            "available_actions": {"update": a["deleted_at"] is None, "delete": True},
        }
    rows["kits"] = {}
    for kit in raw["kits"].values():
        rows["kits"][kit["id"]] = {
            "id": kit["id"], "name": esc(kit["name"]), "created_by": creator(kit), **stamps(kit),
            "user_can_checkout": True, "available_actions": {"update": True, "delete": True, "checkout": True},
        }
        for key, elements in kit["elements"].items():
            ds.sub[("kits", kit["id"], key)] = [{
                "id": ident, "pivot_id": pivot, "owner_id": kit["id"], "quantity": qty,
                "name": esc(raw[key if key != "models" else "models"][ident]["name"]),
                "available_actions": {"update": True, "delete": True},
            } for pivot, ident, qty in elements]
    cache: dict = {}
    rows["activity"] = {r["id"]: _activity_row(ds, r, asset_fullname, user_fullname, cache)
                        for r in raw["activity"].values()}
    for (kind, item_id, file_id), (filename, _) in ds.files.items():
        log = raw["activity"][file_id]
        ds.sub.setdefault((kind, item_id, "files"), []).append({
            "id": file_id, "filename": esc(filename),
            "url": f"{APP_URL}/{kind}/{item_id}/showfile/{file_id}" if kind == "hardware" else None,
            "created_by": creator(log), "created_at": dt(log["created_at"]), "updated_at": dt(log["created_at"]),
            "deleted_at": None, "available_actions": {"delete": True},
        })
    ds.rows = rows


LOG_KINDS = {"asset": "hardware", "user": "users", "location": "locations", "accessory": "accessories",
             "consumable": "consumables", "component": "components", "license": "licenses"}


def _activity_row(ds: Dataset, row: Raw, asset_fullname, user_fullname, cache: dict) -> Row:
    """ActionlogsTransformer. `cache` keeps display names and admin blocks: 200,000 rows name few people."""
    raw = ds.raw

    def display(kind: str, ident: int) -> str:
        key = (kind, ident)
        if key not in cache:
            target = raw[LOG_KINDS[kind]][ident]
            if kind in ("user", "asset"):
                cache[key] = esc(user_fullname(target) if kind == "user" else asset_fullname(target))
            else:
                cache[key] = esc(target["name"])
        return cache[key]

    item = raw[LOG_KINDS[row["item_type"]]][row["item_id"]]
    admin_key = ("admin", row["created_by"])
    if admin_key not in cache:
        admin = raw["users"].get(row["created_by"])
        cache[admin_key] = None if admin is None else {
            "id": admin["id"], "name": esc(user_fullname(admin)), "first_name": esc(admin["first_name"]),
            "last_name": esc(admin["last_name"])}
    admin_block = cache[admin_key]
    file_url = None
    if row["filename"]:
        where = "hardware" if row["item_type"] == "asset" else "users"
        file_url = f"{APP_URL}/{where}/{row['item_id']}/showfile/{row['id']}"
    meta = row["log_meta"]
    created = dt(row["created_at"])
    return {
        "id": row["id"], "icon": "fas fa-barcode",
        "file": {"url": file_url, "filename": row["filename"]} if row["filename"] else None,
        "item": {"id": item["id"], "name": display(row["item_type"], item["id"]), "type": row["item_type"],
                 "serial": esc(item.get("serial")) or None},
        "location": idname(raw["locations"].get(row["location_id"])) if row["location_id"] else None,
        "created_at": created, "updated_at": created,
        "next_audit_date": d(item["next_audit_date"]) if row["item_type"] == "asset" else None,
        "days_to_next_audit": None,
        "action_type": "create new" if row["action_type"] == "create" else row["action_type"],
        "admin": admin_block, "created_by": admin_block,
        "target": {"id": row["target_id"], "name": display(row["target_type"], row["target_id"]),
                   "type": row["target_type"]} if row["target_id"] else None,
        "note": markdown(row["note"]), "signature_file": None,
        "log_meta": {k: {"old": esc(v["old"]), "new": esc(v["new"])} for k, v in meta.items()} if meta else None,
        "remote_ip": row["remote_ip"], "user_agent": row["user_agent"], "action_source": row["action_source"],
        "action_date": created if row["action_date"] == row["created_at"] else dt(row["action_date"]),
    }


def _add_months(value: date, months: int) -> date:
    month = value.month - 1 + months
    year = value.year + month // 12
    month = month % 12 + 1
    days = [31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return date(year, month, min(value.day, days[month - 1]))
