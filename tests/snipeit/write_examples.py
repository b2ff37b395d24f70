"""A tiny example of every kind the Snipe-IT writers take (``inventory.snipeit.importer.KIND_FIELDS``): plain dicts
of our field names as the readers make them (``inventory.snipeit.kinds``), ``id`` being the Snipe-IT id and
references ``<field>_id`` holding Snipe-IT ids, already unescaped. Ids
have gaps and do not start at 1, and a child location comes before its parent, so "ids are kept" and "parents first"
show."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from inventory.snipeit.importer import import_snipeit
from inventory.snipeit.report import ImportReport

ROWS: dict[str, list[dict[str, Any]]] = {
    "company": [
        {"id": 3, "name": "O'Brien & Sons <HQ>", "phone": "5550100200", "email": "it@obrien.example", "notes": ""},
        {"id": 8, "name": "Acme", "notes": "second"},
    ],
    "location": [
        {"id": 11, "name": "Kitchen", "parent_id": 40, "company_id": 3, "city": "Dublin", "manager_id": 77},
        {"id": 40, "name": "Head office", "parent_id": None, "company_id": 3, "currency": "EUR"},
        {"id": 41, "name": "Annex", "parent_id": None, "manager_id": 9999},
    ],
    "department": [
        {"id": 5, "name": "R&D", "company_id": 3, "location_id": 40, "manager_id": 77, "phone": "", "notes": ""},
    ],
    "manufacturer": [{"id": 2, "name": "Apple", "url": "https://apple.example", "support_email": "s@apple.example"}],
    "supplier": [{"id": 6, "name": "Tim's \"Best\" Supplies", "city": "Cork", "zip": "T12"}],
    "category": [
        {"id": 4, "name": "Laptops", "category_type": "asset", "require_acceptance": True, "eula_text": "Be kind.",
         "use_default_eula": False, "checkin_email": True},
        {"id": 9, "name": "Cables", "category_type": "accessory"},
        {"id": 14, "name": "Toner", "category_type": "consumable"},
        {"id": 15, "name": "RAM", "category_type": "component"},
        {"id": 16, "name": "Office software", "category_type": "license"},
    ],
    "status_label": [
        {"id": 1, "name": "Ready to Deploy", "type": "deployable", "color": "#00ff00", "default_label": True},
        {"id": 7, "name": "Broken", "type": "undeployable", "show_in_nav": True},
    ],
    "depreciation": [{"id": 13, "name": "3 years", "months": 36, "depreciation_min": "10.00",
                      "depreciation_type": "amount"}],
    "custom_field": [
        {"id": 21, "name": "MAC Address", "db_column_name": "_snipeit_mac_address_1", "element": "text",
         "format": "MAC", "field_encrypted": False, "is_unique": True, "show_in_listview": True},
        {"id": 23, "name": "Recovery key", "db_column_name": "_snipeit_bitlocker_2", "element": "text",
         "format": "ANY", "field_encrypted": True, "auto_add_to_fieldsets": True},
    ],
    "fieldset": [
        {"id": 31, "name": "Laptop fields", "fields": [{"field_id": 23, "required": True, "order": 1},
                                                       {"field_id": 21, "required": False, "order": 2}]},
    ],
    "asset_model": [
        {"id": 17, "name": "MacBook Pro 14", "model_number": "A2442", "manufacturer_id": 2, "category_id": 4,
         "depreciation_id": 13, "fieldset_id": 31, "eol": 36, "requestable": True},
    ],
    "group": [{"id": 2, "name": "Helpdesk", "permissions": {"assets.view": "1", "assets.checkout": "1"},
               "notes": ""}],
    "user": [
        {"id": 77, "username": "jdoe", "first_name": "Jane", "last_name": "O'Doe", "email": "jdoe@example.com",
         "employee_num": "E-77", "company_id": 3, "department_id": 5, "location_id": 40, "group_ids": [2],
         "is_active": True},
        {"id": 90, "username": "old.timer", "first_name": "Old", "last_name": "Timer", "is_active": False,
         "manager_id": 77, "company_id": None, "group_ids": [], "permissions": {"superuser": "1"}},
    ],
    "asset": [  # the laptop (a later id) is checked out to the dock, which is checked out to Jane
        {"id": 12, "asset_tag": "DOCK-12", "model_id": 17, "status_id": 1, "company_id": 3, "assigned_asset_id": 14,
         "custom_values": {"_snipeit_bitlocker_2": "dock's key"}},
        {"id": 14, "asset_tag": "MBP-0014", "name": "Jane's laptop", "serial": "C02XYZ", "model_id": 17,
         "status_id": 1, "company_id": 3, "supplier_id": 6, "rtd_location_id": 40, "location_id": 40,
         "assigned_user_id": 77, "checkout_counter": 3, "checkin_counter": 2,
         "custom_values": {"_snipeit_bitlocker_2": "s3cret & key", "_snipeit_mac_address_1": "aa:bb:cc:00:11:22"}},
    ],
    # Stock (inventory/snipeit/write_stock.py): each with its sub-list rows as the readers make them. Nothing here is
    # checked out to an asset (tests/snipeit/test_write_stock.py does that).
    "accessory": [
        {"id": 5, "name": "USB-C Dock <Pro>", "category_id": 9, "company_id": 3, "location_id": 40,
         "manufacturer_id": 2, "supplier_id": 6, "model_number": "UD-1", "qty": 3, "min_amt": 1,
         "purchase_cost": Decimal("99.50"), "purchase_date": date(2022, 5, 1), "notes": "Tim's",
         "checkouts": [
             {"id": 101, "accessory_id": 5, "assigned_user_id": 77, "assigned_asset_id": None,
              "assigned_location_id": None, "assigned_qty": 1, "note": "Desk 4's", "created_by_id": 77,
              "created_at": datetime(2023, 3, 4, 5, 6, 7, tzinfo=UTC)},
             {"id": 104, "accessory_id": 5, "assigned_user_id": None, "assigned_asset_id": None,
              "assigned_location_id": 11, "assigned_qty": 1, "note": "", "created_at": None},
             {"id": 107, "accessory_id": 5, "assigned_user_id": 90, "assigned_asset_id": None,  # a deactivated user
              "assigned_location_id": None, "assigned_qty": 1, "note": "",
              "created_at": datetime(2021, 1, 2, 3, 4, 5, tzinfo=UTC)},
         ]},
    ],
    "consumable": [
        {"id": 6, "name": "Toner \"black\"", "category_id": 14, "item_no": "TN-1", "qty": 10, "company_id": None,
         "assignments": [
             {"id": None, "consumable_id": 6, "assigned_user_id": 77, "assigned_qty": 1, "note": "",
              "created_at": datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC)},
             {"id": None, "consumable_id": 6, "assigned_user_id": 77, "assigned_qty": 1, "note": "again",
              "created_at": datetime(2024, 2, 4, 4, 5, 6, tzinfo=UTC)},
         ]},
    ],
    "component": [{"id": 8, "name": "RAM 16GB", "category_id": 15, "serial": "C-1", "qty": 4, "location_id": 11,
                   "assignments": []}],
    "license": [
        {"id": 12, "name": "Office & Co", "serial": "AAAA-<BBBB>", "category_id": 16, "manufacturer_id": 2,
         "company_id": 3, "seat_count": 3, "license_name": "O'Brien", "license_email": "lic@obrien.example",
         "reassignable": False, "maintained": True, "expiration_date": date(2027, 1, 1),
         "purchase_cost": Decimal("300.00"), "notes": "",
         "seats": [
             {"id": 201, "license_id": 12, "assigned_user_id": 77, "assigned_asset_id": None, "notes": "Jane's"},
             {"id": 202, "license_id": 12, "assigned_user_id": None, "assigned_asset_id": None, "notes": ""},
             {"id": 205, "license_id": 12, "assigned_user_id": 90, "assigned_asset_id": None, "notes": ""},
         ]},
    ],
    "maintenance": [],  # a maintenance names an asset: see tests/snipeit/test_write_stock.py
    "kit": [
        {"id": 3, "name": "New Starter's Kit",
         "models": [{"id": 301, "kit_id": 3, "model_id": 17, "quantity": 1}],
         "licenses": [{"id": 302, "kit_id": 3, "license_id": 12, "quantity": 1}],
         "consumables": [{"id": 303, "kit_id": 3, "consumable_id": 6, "quantity": 2}],
         "accessories": [{"id": 304, "kit_id": 3, "accessory_id": 5, "quantity": 1}]},
    ],
    "file": [],  # a file is downloaded from Snipe-IT: tests/snipeit/test_write_history.py
    "action": [
        {"id": 41, "action_type": "update", "created_by_id": 90, "item_type": "user", "item_id": 77,
         "item_name": "Zoë O'Neil", "target_type": "", "target_id": None, "location_id": None, "note": "",
         "log_meta": {"jobtitle": {"old": "Tech", "new": "Lead"}}, "action_source": "gui", "remote_ip": "10.0.0.5",
         "user_agent": "Mozilla/5.0", "filename": None, "action_date": datetime(2024, 3, 1, 9, 30, tzinfo=UTC),
         "created_at": datetime(2024, 3, 1, 9, 30, tzinfo=UTC)},
    ],
}


def rows(kind: str) -> list[dict[str, Any]]:
    return copy.deepcopy(ROWS[kind])


def write_all(source: dict[str, list[dict[str, Any]]] | None = None, *, resume: bool = False):
    """The whole import of ``source`` (default :data:`ROWS`); returns (run, tallies by kind)."""
    source = source or ROWS
    report = ImportReport()
    run, report = import_snipeit(source_url="https://snipe.example.com", options={}, resume=resume, report=report,
                                 read=lambda kind: counted(report, kind, source.get(kind, [])))
    return run, report.kinds


def counted(report: ImportReport, kind: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` counted as read, as ``reading.read_kind`` does for the import."""
    report.read(kind, len(rows))
    return copy.deepcopy(rows)
