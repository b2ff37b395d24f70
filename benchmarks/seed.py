"""Seed a database with a realistic inventory for the benchmark (``benchmarks/run.py`` calls :func:`seed`).

Proportions follow a mid-sized Snipe-IT installation: for 100,000 assets there are 5 companies, 2,000 users,
150 locations (10 sites with 14 rooms each), 30 manufacturers, 20 categories, 200 asset models, 10 suppliers and
5 status labels (one archived). About 40% of the assets are checked out to users and 3% to locations; each
checked-out asset has its checkout in the action log. Catalogue and user counts scale with the asset count (never
below the small minimums) so a quick ``--assets 2000`` run keeps the same shape.

Accessories scale the same way: per 100,000 assets 10,000 accessories with 100,000 checkout rows (10 per accessory
on average, popular accessories hold most: the busiest has about 2% of the rows). The other kinds are measured at a
fixed size, ``kind_rows`` (10,000): as many consumables with 5 assignment rows each, components with 5 installation
rows each and licenses with 5 seats each on average (70% assigned); companies and users are topped up to it with
rows that hold nothing, drawn last so the rest of the data does not depend on it; then as many departments,
maintenances, depreciations, kits, CSV uploads, files on one asset and open checkout requests of the super user
(rows only, no file bodies), each from a random stream of its own. Accessory checkout rows go to
users (85%), assets (10%) and locations (5%), consumables to users, components into assets; most hold one unit.
Every item's ``qty`` is at least what is out (a quarter of the items are used up). These rows have no action-log
rows: no scenario reads the log, and the hardware scenarios keep the data they were measured on.

Rows go in with ``bulk_create`` in batches (SQLite) or ``COPY`` (PostgreSQL: the big tables as tuples written
straight into ``COPY`` by :class:`TableWriter`, no model instances, with their secondary indexes built once at the
end and the foreign-key triggers off during the load: 1,000,000 assets in under three minutes, with a progress bar);
``created_at``/``updated_at`` are spread over five years (the seeding
switches ``auto_now``/``auto_now_add`` off while it runs) so the default sort sees realistic, distinct timestamps.
The data is deterministic for a given ``rng_seed``.

Call it after ``django.setup()`` against a migrated, empty database.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

BATCH = 5_000
KIND_ROWS = 10_000  # consumables, components, licenses; companies and users topped up to it
SEARCH_FAMILY = "Latitude"  # a model family the search scenario looks for (lower-cased in the request)

MANUFACTURERS = [
    "Apple", "Dell", "HP", "Lenovo", "Microsoft", "Samsung", "Cisco", "Ubiquiti", "Logitech", "Acer", "Asus",
    "Brother", "Canon", "Epson", "Fujitsu", "Jabra", "Poly", "Netgear", "Juniper", "Aruba", "Synology", "APC",
    "Eaton", "LG", "BenQ", "Sony", "Panasonic", "Zebra", "Honeywell", "Toshiba",
]
CATEGORIES = [
    "Laptops", "Desktops", "Monitors", "Mobile Phones", "Tablets", "Servers", "Switches", "Routers", "Printers",
    "Projectors", "Docking Stations", "Headsets", "Keyboards", "Mice", "Webcams", "Firewalls", "Access Points",
    "Storage", "UPS", "Conference Systems",
]
# Share of assets per category (laptops, monitors and phones dominate a real inventory).
CATEGORY_WEIGHTS = [30, 8, 20, 12, 5, 1, 1, 0.5, 1, 0.5, 8, 4, 2, 2, 1.5, 0.3, 1, 0.5, 0.5, 1]
FAMILIES = [
    "Latitude", "Precision", "OptiPlex", "ThinkPad", "ThinkCentre", "EliteBook", "ProBook", "MacBook", "iMac",
    "Surface", "Galaxy", "iPhone", "iPad", "UltraSharp", "ProDisplay", "Catalyst", "Meraki", "UniFi", "EdgeRouter",
    "LaserJet", "OfficeJet", "WorkForce", "imageCLASS", "Evolve", "Voyager", "BRIO", "MX", "PowerEdge",
    "ProLiant", "ThinkSystem", "DiskStation", "Smart-UPS", "TravelMate", "ZenBook", "Elite", "Studio", "Rally",
    "WD19", "Thunderbolt Dock", "Optio",
]
FIRST_NAMES = [
    "Alice", "Bob", "Carla", "David", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam", "Mia",
    "Noah", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wim", "Xena", "Yusuf", "Zoe",
]
LAST_NAMES = [
    "Adams", "Berg", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Hansen", "Ivanova", "Jensen", "Kowalski",
    "Larsen", "Martin", "Nowak", "Olsen", "Petrov", "Quintero", "Rossi", "Schmidt", "Tanaka", "Urban", "Varga",
    "Weber", "Xu", "Yilmaz", "Zimmermann",
]
CITIES = ["Berlin", "Lisbon", "Oslo", "Madrid", "Vienna", "Dublin", "Prague", "Milan", "Lyon", "Utrecht"]
SUPPLIERS = [
    "CDW", "Insight", "SHI", "Bechtle", "Computacenter", "Softcat", "Dustin", "Atea", "Misco", "Amazon Business",
]
ACCESSORY_CATEGORIES = ["Cables", "Adapters", "Chargers", "Bags", "Monitor Arms", "Input Devices", "Audio",
                        "Storage Media"]
ACCESSORY_NAMES = ["USB-C Cable", "HDMI Cable", "DisplayPort Cable", "USB-C Adapter", "Power Adapter 65W",
                   "Laptop Bag", "Wireless Mouse", "Keyboard", "Headset", "Monitor Arm", "USB Stick 64GB",
                   "Privacy Filter"]
CONSUMABLE_CATEGORIES = ["Toner", "Ink", "Paper", "Batteries", "Labels"]
CONSUMABLE_NAMES = ["Toner Cartridge", "Ink Cartridge", "A4 Paper Box", "AA Batteries (4)", "Label Roll"]
COMPONENT_CATEGORIES = ["Memory", "Storage", "Network Cards", "Power Supplies"]
LICENSE_CATEGORIES = ["Office Suites", "Operating Systems", "Design", "Development", "Security"]
LICENSE_NAMES = ["Office 365 E3", "Windows 11 Pro", "Adobe Creative Cloud", "JetBrains All Products", "Antivirus",
                 "AutoCAD", "Visio", "Slack Business"]
COMPONENT_NAMES = ["DDR5 16GB", "DDR4 8GB", "NVMe SSD 1TB", "SATA SSD 512GB", "10GbE NIC", "PSU 750W"]
# The columns the seed writes (the others keep their defaults), in the order of the tuples handed to TableWriter.
ASSET_COLUMNS = (
    "company_id", "name", "asset_tag", "serial", "model_id", "status_id", "supplier_id", "location_id",
    "rtd_location_id", "assigned_user_id", "assigned_location_id", "order_number", "warranty_months", "purchase_date",
    "purchase_cost", "last_checkout", "expected_checkin", "checkout_counter", "next_audit_date", "created_by_id",
    "created_at", "updated_at",
)
CHECKOUT_LOG_COLUMNS = (
    "action_type", "created_by_id", "item_type", "item_id", "target_type", "target_id", "location_id", "company_id",
    "action_date", "created_at", "updated_at",
)
STOCK_ITEM_COLUMNS = (
    "name", "category_id", "company_id", "manufacturer_id", "supplier_id", "location_id", "model_number",
    "order_number", "purchase_date", "purchase_cost", "qty", "min_amt", "created_by_id", "created_at", "updated_at",
)
LICENSE_COLUMNS = (
    "name", "serial", "category_id", "company_id", "manufacturer_id", "supplier_id", "seats", "expiration_date",
    "order_number", "purchase_date", "purchase_cost", "created_by_id", "created_at", "updated_at",
)
LICENSE_SEAT_COLUMNS = ("license_id", "assigned_user_id", "assigned_asset_id", "created_by_id", "created_at",
                        "updated_at")
TARGET_COLUMNS = ("assigned_user_id", "assigned_asset_id", "assigned_location_id")
# Issue 15: the custom fields (name, format), in two fieldsets attached to the models of these categories.
CUSTOM_FIELDS = [
    ("MAC Address", "MAC"), ("IMEI", "NUMERIC"), ("OS Version", "ANY"), ("RAM GB", "NUMERIC"),
    ("Disk GB", "NUMERIC"), ("MDM Device Id", "ANY"), ("MDM Enrolment", "ANY"), ("Owner E-mail", "EMAIL"),
    ("Warranty Reference", "ANY"), ("Last Check-in", "DATE"),
]
FIELDSET_CATEGORIES = {"Computers": ["Laptops", "Desktops", "Servers"],
                       "Mobile devices": ["Mobile Phones", "Tablets"]}
OS_VERSIONS = ["Windows 11 23H2", "Windows 11 24H2", "Windows 10 22H2", "macOS 14.6", "macOS 15.1", "Ubuntu 24.04",
               "iOS 18.1", "Android 15", "iPadOS 18.1", "ChromeOS 129"]
# name, type, share of the assets that are not checked out
STATUS_LABELS = [
    ("Ready to Deploy", "deployable", 0.80),
    ("Pending", "pending", 0.06),
    ("Out for Repair", "undeployable", 0.04),
    ("Broken", "undeployable", 0.03),
    ("Archived", "archived", 0.07),
]


@dataclass
class SeedCounts:
    assets: int
    companies: int
    users: int
    locations: int
    manufacturers: int
    categories: int
    models: int
    suppliers: int
    status_labels: int
    accessories: int = 0
    accessory_checkouts: int = 0
    consumables: int = 0
    consumable_assignments: int = 0
    components: int = 0
    component_assignments: int = 0
    licenses: int = 0
    license_seats: int = 0
    maintenances: int = 0  # of random live assets, one in twenty still open
    extra_companies: int = 0  # holding nothing, so the companies list is measured at ``kind_rows``
    extra_users: int = 0  # holding nothing, so the users list is measured at ``kind_rows``
    departments: int = 0  # issue 27: the departments list at ``kind_rows``, 80% of the users in one
    depreciations: int = 0  # issue 27: the depreciations list at ``kind_rows``; half the models depreciate
    kits: int = 0  # the kits list at ``kind_rows`` (names only: the list shows no lines)
    import_files: int = 0  # the imports list (unpaged) at ``kind_rows``, uploaded by the super user, no files kept
    stored_files: int = 0  # issue 27: files on one asset (rows only, no bodies), its files list at ``kind_rows``
    checkout_requests: int = 0  # the super user's open requests (``account/requests``, unpaged), one per asset

    @classmethod
    def for_assets(cls, assets: int, accessories: int | None = None, kind_rows: int = KIND_ROWS) -> SeedCounts:
        """The counts for ``assets``; ``accessories`` (default 10 per 100 assets, at least 60 so a page of 50 is
        full) sets the accessories, with 10 checkout rows each; ``kind_rows`` the consumables, components and
        licenses (5 assignment rows, installation rows or seats each) and the size the companies and users are
        topped up to (no stock at all with ``accessories=0``)."""

        def scaled(per_100k: int, minimum: int) -> int:
            return max(minimum, round(per_100k * assets / 100_000))

        accessories = scaled(10_000, 60) if accessories is None else accessories
        others = kind_rows if accessories else 0
        users = scaled(2_000, 50)
        return cls(
            assets=assets,
            companies=5,
            users=users,
            locations=150,
            manufacturers=len(MANUFACTURERS),
            categories=len(CATEGORIES),
            models=scaled(200, 40),
            suppliers=len(SUPPLIERS),
            status_labels=len(STATUS_LABELS),
            accessories=accessories,
            accessory_checkouts=10 * accessories,
            consumables=others,
            consumable_assignments=5 * others,
            components=others,
            component_assignments=5 * others,
            licenses=others,
            license_seats=5 * others,
            maintenances=others,
            extra_companies=max(0, others - 5),
            extra_users=max(0, others - users),
            departments=others,
            depreciations=others,
            kits=others,
            import_files=others,
            stored_files=others,
            checkout_requests=min(others, assets),
        )


@contextlib.contextmanager
def explicit_timestamps(*models):
    """Let the seed set ``created_at``/``updated_at`` itself (auto_now/auto_now_add would stamp "now")."""
    saved = []
    for model in models:
        for field in model._meta.concrete_fields:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                saved.append((field, field.auto_now, field.auto_now_add))
                field.auto_now = field.auto_now_add = False
    try:
        yield
    finally:
        for field, auto_now, auto_now_add in saved:
            field.auto_now, field.auto_now_add = auto_now, auto_now_add


def _bulk(model, rows: list) -> list:
    """Write model instances (the small tables): ``bulk_create`` in batches on SQLite, ``COPY`` on PostgreSQL; the
    instances get their ids."""
    from django.db import connection

    if connection.vendor != "postgresql":
        created = []
        for start in range(0, len(rows), BATCH):
            created.extend(model.objects.bulk_create(rows[start:start + BATCH], batch_size=BATCH))
        return created
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    with TableWriter(model, tuple(field.attname for field in fields)) as out:
        for row in rows:
            row.pk = out.write(tuple(field.get_db_prep_save(getattr(row, field.attname), connection)
                                     for field in fields))
    return rows


class TableWriter:
    """Rows of one table given as tuples of column values (``columns``: attribute names, the id excluded), for the
    big tables: on PostgreSQL straight into one ``COPY`` (no model instances: 1,000,000 assets in well under three
    minutes), on SQLite as model instances through ``bulk_create`` in batches. Ids are given here, from the table's
    current maximum (:meth:`write` returns the row's id), and the sequence is moved past them at the end; columns not
    named get their field's default."""

    def __init__(self, model, columns: tuple[str, ...]):
        self.model, self.columns = model, ("id", *columns)
        self.next_id = 0
        self._stack = contextlib.ExitStack()
        self._copy = None
        self._tail: tuple = ()
        self._batch: list = []

    def __enter__(self) -> TableWriter:
        from django.db import connection

        quote = connection.ops.quote_name
        table = quote(self.model._meta.db_table)
        cursor = self._stack.enter_context(connection.cursor())
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        self.next_id = cursor.fetchone()[0] + 1
        if connection.vendor == "postgresql":
            fields = {field.attname: field for field in self.model._meta.concrete_fields}
            rest = [field for name, field in fields.items() if name not in self.columns]
            self._tail = tuple(field.get_db_prep_save(field.get_default(), connection) for field in rest)
            columns = ", ".join(quote(field.column) for field in [*(fields[n] for n in self.columns), *rest])
            self._copy = self._stack.enter_context(cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN"))
        return self

    def write(self, row: tuple) -> int:
        pk = self.next_id
        self.next_id += 1
        if self._copy is not None:
            self._copy.write_row((pk, *row, *self._tail))
        else:
            self._batch.append(self.model(**dict(zip(self.columns, (pk, *row), strict=True))))
            if len(self._batch) == BATCH:
                self._flush()
        return pk

    def _flush(self) -> None:
        self.model.objects.bulk_create(self._batch, batch_size=BATCH)
        self._batch = []

    def __exit__(self, *exc) -> None:
        from django.db import connection

        if exc[0] is None and self._batch:
            self._flush()
        self._stack.__exit__(*exc)
        if exc[0] is None and self._copy is not None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), %s, %s)",
                               [self.model._meta.db_table, max(self.next_id - 1, 1), self.next_id > 1])


@contextlib.contextmanager
def bulk_load(*models):
    """PostgreSQL: while a big table is filled, its secondary indexes are dropped (built again at the end, in bulk,
    which is much faster than maintaining them row by row) and foreign-key triggers are off for this session when
    the user may turn them off (the seed writes consistent rows). Nothing on SQLite."""
    from django.db import connection

    if connection.vendor != "postgresql":
        yield
        return
    tables = [model._meta.db_table for model in models]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s) AND indexname NOT IN "
            "(SELECT conname FROM pg_constraint)", [tables])
        indexes = cursor.fetchall()
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {connection.ops.quote_name(name)}")
        cursor.execute("SAVEPOINT replica")
        try:
            cursor.execute("SET LOCAL session_replication_role = replica")
        except Exception:  # noqa: BLE001 - not a superuser: the checks run, only slower
            cursor.execute("ROLLBACK TO SAVEPOINT replica")
    yield
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for _, definition in indexes:
            cursor.execute(definition)
    if "inventory_asset" in tables:
        from inventory.selectors import tally

        tally.rebuild()  # its triggers were off with the foreign-key ones: recount the live assets once


def progress(items, label: str):
    """A progress bar on the terminal (tqdm) for the long loops of a big seed."""
    from tqdm import tqdm

    return tqdm(items, desc=f"  {label}", unit=" rows", unit_scale=True, mininterval=1.0, leave=False)


def _ids(model) -> list[int]:
    return list(model.objects.order_by("id").values_list("id", flat=True))


def seed(n_assets: int = 100_000, rng_seed: int = 20260301, log=print, accessories: int | None = None,
         kind_rows: int = KIND_ROWS) -> SeedCounts:
    """Fill an empty, migrated database; returns the counts written (``accessories``, ``kind_rows``: see
    :meth:`SeedCounts.for_assets`)."""
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import Department, User
    from activity.models import ActionLog
    from assetsvc.site import get_site_settings
    from companies.models import Company
    from inventory.models import (
        Asset,
        AssetModel,
        Category,
        Location,
        Maintenance,
        Manufacturer,
        StatusLabel,
        Supplier,
    )

    counts = SeedCounts.for_assets(n_assets, accessories, kind_rows)
    rng = random.Random(rng_seed)
    now = timezone.now().replace(microsecond=0)
    start = now - dt.timedelta(days=5 * 365)
    span = (now - start).total_seconds()
    models_with_stamps = (Company, User, Department, Location, Manufacturer, Category, AssetModel, Supplier,
                          StatusLabel, Asset, ActionLog, *_stock_models(), Maintenance, *_record_list_models())
    began = time.perf_counter()

    def stamp(fraction: float) -> dt.datetime:
        return start + dt.timedelta(seconds=int(span * fraction))

    get_site_settings()  # the singleton row exists before the service reads it
    with explicit_timestamps(*models_with_stamps), transaction.atomic():
        admin = User.objects.create_superuser("admin", "admin@example.com", None, first_name="Bench",
                                              last_name="Admin", created_at=start, updated_at=start)

        _bulk(Company, [Company(name=f"{city} Holding", created_by=admin, created_at=start, updated_at=start)
                        for city in CITIES[:counts.companies]])
        company_ids = _ids(Company)

        # 10 sites, each with 14 rooms/floors (150 locations).
        sites = _bulk(Location, [
            Location(name=f"{city} HQ", city=city, country="EU", company_id=company_ids[i % len(company_ids)],
                     created_by=admin, created_at=start, updated_at=start)
            for i, city in enumerate(CITIES)
        ])
        rooms_per_site = (counts.locations - len(sites)) // len(sites)
        _bulk(Location, [
            Location(name=f"{site.city} Floor {floor // 4 + 1} Room {floor % 4 + 1:02d}", parent_id=site.pk,
                     city=site.city, company_id=site.company_id, created_by=admin, created_at=start,
                     updated_at=start)
            for site in sites for floor in range(rooms_per_site)
        ])
        location_ids = _ids(Location)

        unusable = make_password(None)

        def person(i: int) -> User:
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            created = stamp(rng.random())
            return User(
                username=f"{first.lower()}.{last.lower()}{i}", first_name=first, last_name=last,
                email=f"{first.lower()}.{last.lower()}{i}@example.com", employee_num=f"E{i:06d}",
                jobtitle=rng.choice(["Engineer", "Analyst", "Manager", "Designer", "Sales", "Support"]),
                password=unusable, company_id=rng.choice(company_ids) if rng.random() < 0.9 else None,
                location_id=rng.choice(location_ids), permissions={}, created_by=admin, created_at=created,
                updated_at=created,
            )

        _bulk(User, [person(i) for i in range(counts.users)])
        user_rows = list(User.objects.exclude(pk=admin.pk).order_by("id").values_list("id", "location_id"))

        _bulk(Manufacturer, [Manufacturer(name=name, created_by=admin, created_at=start, updated_at=start)
                             for name in MANUFACTURERS[:counts.manufacturers]])
        manufacturer_ids = _ids(Manufacturer)
        _bulk(Category, [Category(name=name, category_type="asset", created_by=admin, created_at=start,
                                  updated_at=start) for name in CATEGORIES[:counts.categories]])
        category_ids = _ids(Category)
        _bulk(Supplier, [Supplier(name=name, created_by=admin, created_at=start, updated_at=start)
                         for name in SUPPLIERS[:counts.suppliers]])
        supplier_ids = _ids(Supplier)
        _bulk(StatusLabel, [StatusLabel(name=name, type=kind, default_label=(kind == "deployable"), created_by=admin,
                                        created_at=start, updated_at=start) for name, kind, _ in STATUS_LABELS])
        labels = dict(StatusLabel.objects.values_list("name", "id"))
        deployable_id = labels["Ready to Deploy"]
        label_ids = [labels[name] for name, _, _ in STATUS_LABELS]
        label_weights = [share for _, _, share in STATUS_LABELS]

        asset_models = []
        for i in range(counts.models):
            family = FAMILIES[i % len(FAMILIES)]
            asset_models.append(AssetModel(
                name=f"{family} {rng.randint(10, 9999)}", model_number=f"MN-{i:05d}",
                manufacturer_id=manufacturer_ids[i % len(manufacturer_ids)],
                category_id=rng.choices(category_ids, weights=CATEGORY_WEIGHTS[:len(category_ids)])[0],
                eol=rng.choice([None, 36, 48, 60]), created_by=admin, created_at=start, updated_at=start,
            ))
        _bulk(AssetModel, asset_models)
        model_ids = _ids(AssetModel)
        # Popular models hold most of the fleet (a long tail of rarely bought ones).
        model_weights = [1 / (rank + 1) ** 0.7 for rank in range(len(model_ids))]
        rng.shuffle(model_weights)
        log(f"  catalogue and {counts.users:,} users: {time.perf_counter() - began:.1f}s")

        # Tuples straight into COPY (no model instances); the cumulative weights once, not per row (same draws).
        model_cum = list(itertools.accumulate(model_weights))
        label_cum = list(itertools.accumulate(label_weights))
        checkout_logs = []
        # Every big table is filled with its secondary indexes dropped and the foreign-key checks off (bulk_load);
        # the indexes are built once, at the end.
        with bulk_load(Asset, ActionLog, *_stock_models()):
            with TableWriter(Asset, ASSET_COLUMNS) as out:
                for i in progress(range(n_assets), "assets"):
                    created = stamp((i + rng.random()) / n_assets)
                    rtd = rng.choice(location_ids)
                    roll = rng.random()
                    assigned_user = assigned_location = None
                    location = rtd
                    last_checkout = expected_checkin = None
                    if roll < 0.40:
                        assigned_user, location = rng.choice(user_rows)
                        location = location or rtd
                    elif roll < 0.43:
                        assigned_location = location = rng.choice(location_ids)
                    assigned = assigned_user or assigned_location
                    status_id = deployable_id if assigned else rng.choices(label_ids, cum_weights=label_cum)[0]
                    if assigned:
                        last_checkout = created + (now - created) * rng.random()
                        if rng.random() < 0.2:
                            expected_checkin = (last_checkout + dt.timedelta(days=rng.randint(7, 400))).date()
                    purchase = created.date() - dt.timedelta(days=rng.randint(0, 60))
                    # In ASSET_COLUMNS order, drawn in the order the instances used to draw them (same data).
                    company_id = rng.choice(company_ids) if rng.random() < 0.95 else None
                    asset_id = out.write((
                        company_id,
                        f"{'LT' if rng.random() < 0.5 else 'WS'}-{i:06d}" if rng.random() < 0.7 else "",
                        f"A{i + 1:07d}", f"{rng.getrandbits(48):012X}",
                        rng.choices(model_ids, cum_weights=model_cum)[0], status_id,
                        rng.choice(supplier_ids) if rng.random() < 0.8 else None,
                        location, rtd, assigned_user, assigned_location, f"PO-{rng.randint(1, 20_000):05d}",
                        rng.choice([None, 12, 24, 36]), purchase, Decimal(rng.randint(2_000, 300_000)) / 100,
                        last_checkout, expected_checkin, 1 if assigned else 0,
                        (created + dt.timedelta(days=365 * rng.randint(1, 6))).date(),
                        admin.pk, created, last_checkout or created,
                    ))
                    if assigned:
                        target = ("user", assigned_user) if assigned_user else ("location", assigned_location)
                        checkout_logs.append(("checkout", admin.pk, "asset", asset_id, *target, location, company_id,
                                              last_checkout, last_checkout, last_checkout))
            log(f"  {n_assets:,} assets: {time.perf_counter() - began:.1f}s")
            with TableWriter(ActionLog, CHECKOUT_LOG_COLUMNS) as out:
                for row in progress(checkout_logs, "action log"):
                    out.write(row)
            log(f"  {len(checkout_logs):,} action-log rows: {time.perf_counter() - began:.1f}s")
            if counts.accessories:
                context = StockContext(
                    rng=rng, admin=admin, stamp=stamp, company_ids=company_ids, location_ids=location_ids,
                    manufacturer_ids=manufacturer_ids, supplier_ids=supplier_ids, user_ids=[pk for pk, _ in user_rows],
                    asset_ids=list(Asset.objects.filter(deleted_at__isnull=True).values_list("id", flat=True)),
                )
                _seed_stock(context, counts, log=lambda msg: log(f"{msg}: {time.perf_counter() - began:.1f}s"))
        log(f"  indexes built: {time.perf_counter() - began:.1f}s")
        # Last, so every row above is drawn as before: companies and users that hold nothing, for their lists.
        _bulk(Company, [Company(name=f"Subsidiary {i + 1:05d}", created_by=admin, created_at=start, updated_at=start)
                        for i in range(counts.extra_companies)])
        _bulk(User, [person(i) for i in range(counts.users, counts.users + counts.extra_users)])
        log(f"  {counts.extra_companies:,} more companies, {counts.extra_users:,} more users: "
            f"{time.perf_counter() - began:.1f}s")
        _seed_departments(random.Random(rng_seed + 27), admin, stamp, counts.departments, company_ids, location_ids)
        log(f"  {counts.departments:,} departments: {time.perf_counter() - began:.1f}s")
        values = _seed_custom_fields(random.Random(rng_seed + 15), admin, stamp)
        log(f"  {len(CUSTOM_FIELDS)} custom fields, {values:,} values: {time.perf_counter() - began:.1f}s")
        # Last, with its own random stream, so every row above is drawn as before.
        _seed_maintenances(random.Random(rng_seed + 28), admin, stamp, supplier_ids, counts.maintenances)
        log(f"  {counts.maintenances:,} maintenances: {time.perf_counter() - began:.1f}s")
        _seed_depreciations(random.Random(rng_seed + 29), admin, stamp, counts.depreciations)
        log(f"  {counts.depreciations:,} depreciations: {time.perf_counter() - began:.1f}s")
        _seed_record_lists(random.Random(rng_seed + 30), admin, stamp, counts)
        log(f"  {counts.kits:,} kits, {counts.import_files:,} imports, {counts.stored_files:,} files on one asset, "
            f"{counts.checkout_requests:,} checkout requests: {time.perf_counter() - began:.1f}s")
    return counts


def _record_list_models() -> tuple:
    from activity.models import StoredFile
    from inventory.models import CheckoutRequest, ImportFile, Kit

    return Kit, ImportFile, StoredFile, CheckoutRequest


IMPORT_HEADER = ["Asset Tag", "Name", "Serial Number", "Model Name", "Category", "Manufacturer", "Status",
                 "Location", "Purchase Date", "Purchase Cost", "Full Name", "Email"]
IMPORT_TYPES = ["asset", "asset", "asset", "accessory", "consumable", "component", "license"]
FILE_TYPES = [("pdf", "application/pdf"), ("png", "image/png"), ("jpg", "image/jpeg"), ("txt", "text/plain")]
FILE_NAMES = ["invoice", "warranty", "photo", "manual", "delivery-note", "repair-quote", "contract"]


def files_asset_id() -> int | None:
    """The asset the files list is measured on: the oldest live one (``benchmarks/run.py`` finds it again)."""
    from inventory.models import Asset

    return Asset.objects.filter(deleted_at__isnull=True).order_by("id").values_list("id", flat=True).first()


def _seed_record_lists(rng: random.Random, admin, stamp: Callable[[float], dt.datetime], counts: SeedCounts) -> None:
    """The four record lists, last and from their own random stream (nothing above changes with them):
    ``counts.kits`` kits (names only); ``counts.import_files`` CSV uploads of the super user (the rows only: the list
    never opens the kept files, so none is written); ``counts.stored_files`` files on one asset (:func:`files_asset_id`;
    rows only, the list never reads a body); ``counts.checkout_requests`` open checkout requests of the super user,
    each of another random live asset (one open request per user and asset). Assets' ``requests_counter`` is left as
    it is, so the hardware scenarios see the data they were measured on."""
    from activity.models import StoredFile
    from inventory.models import Asset, CheckoutRequest, ImportFile, Kit

    def when() -> dt.datetime:
        return stamp(rng.random())

    kits = []
    for i in range(counts.kits):
        created = when()
        kits.append(Kit(name=f"{rng.choice(DEPARTMENT_NAMES)} starter kit {i + 1:05d}", created_by=admin,
                        created_at=created, updated_at=created))
    _bulk(Kit, kits)

    imports = []
    for i in range(counts.import_files):
        created = when()
        processed = rng.random() < 0.6
        header = IMPORT_HEADER[:rng.randint(6, len(IMPORT_HEADER))]
        imports.append(ImportFile(
            name=f"import-{i + 1:05d}.csv", file_path=f"{rng.getrandbits(64):016x}.csv",
            filesize=rng.randint(200, 5_000_000), import_type=rng.choice(IMPORT_TYPES) if processed else "",
            header_row=header, first_row=[f"{column} {i + 1}" for column in header],
            field_map={column: column.lower().replace(" ", "_") for column in header} if processed else None,
            created_by=admin, created_at=created, updated_at=created))
    _bulk(ImportFile, imports)

    asset_id = files_asset_id()
    if asset_id is not None and counts.stored_files:
        company_id = Asset.objects.filter(pk=asset_id).values_list("company_id", flat=True)[0]
        files = []
        for i in range(counts.stored_files):
            created = when()
            extension, content_type = rng.choice(FILE_TYPES)
            files.append(StoredFile(
                item_type="asset", item_id=asset_id, company_id=company_id,
                filename=f"{rng.choice(FILE_NAMES)}-{i + 1:05d}.{extension}",
                storage_name=f"bench/{i + 1:05d}-{rng.getrandbits(64):016x}.{extension}", content_type=content_type,
                size=rng.randint(1_000, 20_000_000), note="" if rng.random() < 0.7 else f"Note {i + 1}",
                created_by=admin, created_at=created, updated_at=created))
        _bulk(StoredFile, files)

    if counts.checkout_requests:
        live = list(Asset.objects.filter(deleted_at__isnull=True).order_by("id").values_list("id", flat=True))
        _bulk(CheckoutRequest, [CheckoutRequest(asset_id=pk, user=admin, quantity=1, created_at=when())
                                for pk in rng.sample(live, min(counts.checkout_requests, len(live)))])


def _seed_depreciations(rng: random.Random, admin, stamp, n: int) -> None:
    """``n`` depreciation classes (issue 27; 12 to 60 months, a third with a floor, some in percent); half the asset
    models take one of the first twenty, so the assets' book values and ``/reports/depreciation`` have rows."""
    from inventory.models import AssetModel, Depreciation

    if not n:
        return
    rows = []
    for i in range(n):
        created = stamp(rng.random())
        percent = rng.random() < 0.2
        rows.append(Depreciation(
            name=f"Depreciation {i + 1:05d}", months=rng.choice((12, 24, 36, 48, 60)),
            depreciation_min=Decimal(rng.choice((0, 0, 10, 50))) if rng.random() < 0.33 else Decimal(0),
            depreciation_type="percent" if percent else "amount", created_by=admin, created_at=created,
            updated_at=created))
    _bulk(Depreciation, rows)
    popular = list(Depreciation.objects.order_by("id").values_list("id", flat=True)[:20])
    models = [AssetModel(pk=pk, depreciation_id=rng.choice(popular))
              for pk in AssetModel.objects.order_by("id").values_list("id", flat=True) if rng.random() < 0.5]
    AssetModel.objects.bulk_update(models, ["depreciation"], batch_size=BATCH)


def _seed_departments(rng: random.Random, admin, stamp, n: int, company_ids: list[int],
                      location_ids: list[int]) -> None:
    """``n`` departments (issue 27), each of one of the first companies (10% of none), at a location, most with a
    manager of their company; then 80% of the users join a department of their own company (those without a company
    one without a company), as ``accounts.departments.ensure_department_fits`` requires. Its own random stream, drawn
    after everything else, so no other data changes with it."""
    from accounts.models import Department, User

    if not n:
        return
    people: dict[int | None, list[int]] = {}
    for pk, company_id in User.objects.exclude(pk=admin.pk).order_by("id").values_list("id", "company_id"):
        people.setdefault(company_id, []).append(pk)
    rows = []
    for i in range(n):
        company_id = rng.choice(company_ids) if rng.random() < 0.9 else None
        staff = people.get(company_id) or []
        created = stamp(rng.random())
        rows.append(Department(
            name=f"{rng.choice(DEPARTMENT_NAMES)} {i + 1:05d}", company_id=company_id,
            location_id=rng.choice(location_ids),
            manager_id=rng.choice(staff) if staff and rng.random() < 0.8 else None,
            phone=f"+31 20 {rng.randint(1_000_000, 9_999_999)}", created_by=admin, created_at=created,
            updated_at=created))
    _bulk(Department, rows)
    by_company: dict[int | None, list[int]] = {}
    for pk, company_id in Department.objects.order_by("id").values_list("id", "company_id"):
        by_company.setdefault(company_id, []).append(pk)
    joined = [User(pk=pk, department_id=rng.choice(by_company[company_id]))
              for company_id, pks in people.items() if by_company.get(company_id)
              for pk in pks if rng.random() < 0.8]
    User.objects.bulk_update(joined, ["department"], batch_size=BATCH)


DEPARTMENT_NAMES = ["Finance", "Engineering", "Sales", "Marketing", "Support", "Legal", "Facilities", "Research",
                    "Operations", "People"]
MAINTENANCE_COLUMNS = ("asset_id", "supplier_id", "asset_maintenance_type", "title", "is_warranty", "start_date",
                       "completion_date", "asset_maintenance_time", "cost", "notes", "created_by_id", "created_at",
                       "updated_at")
MAINTENANCE_TITLES = ["Screen replaced", "Battery swap", "Keyboard repair", "RAM upgrade", "Firmware update",
                      "Annual PAT test", "Fan cleaned", "Disk replaced", "Hinge repair", "Calibration"]


def _seed_maintenances(rng: random.Random, admin, stamp: Callable[[float], dt.datetime], supplier_ids: list[int],
                       n: int) -> None:
    """``n`` maintenances of random live assets over the five years; one in twenty started in the last month and
    is still open (the hardware record's ``in_maintenance``)."""
    from inventory.models import Asset, Maintenance, MaintenanceType

    if not n:
        return
    asset_ids = list(Asset.objects.filter(deleted_at__isnull=True).values_list("id", flat=True))
    types = list(MaintenanceType.values)
    with TableWriter(Maintenance, MAINTENANCE_COLUMNS) as writer:
        for i in progress(range(n), "maintenances"):
            open_ = rng.random() < 0.05
            when = stamp(0.99 + rng.random() * 0.01 if open_ else rng.random() * 0.98)
            days = None if open_ else rng.randint(0, 21)
            start = when.date()
            writer.write((
                rng.choice(asset_ids), rng.choice(supplier_ids) if rng.random() < 0.8 else None, rng.choice(types),
                f"{rng.choice(MAINTENANCE_TITLES)} {i + 1:05d}", rng.random() < 0.3, start,
                None if days is None else start + dt.timedelta(days=days), days,
                Decimal(rng.randint(0, 60_000)) / 100 if rng.random() < 0.7 else None, "", admin.pk, when, when,
            ))


def _custom_value(rng: random.Random, index: int, asset_id: int) -> str:
    """The value of custom field ``index`` (of :data:`CUSTOM_FIELDS`) on asset ``asset_id``."""
    if index == 0:  # MAC address: one per asset
        return ":".join(f"{(asset_id * 2654435761 >> shift) & 0xFF:02X}" for shift in range(0, 48, 8))
    if index == 1:  # IMEI: one per asset
        return f"35{asset_id:013d}"
    if index == 2:
        return rng.choice(OS_VERSIONS)
    if index == 3:
        return rng.choice(["8", "16", "16", "32", "32", "64"])
    if index == 4:
        return rng.choice(["256", "512", "512", "1024", "2048"])
    if index == 5:
        return f"MDM-{rng.getrandbits(40):010x}"
    if index == 6:
        return rng.choice(["Intune", "Jamf", "Workspace ONE", "none"])
    if index == 7:
        return f"user{rng.randint(1, 5_000)}@example.com"
    if index == 8:
        return f"WR-{rng.randint(1, 50_000):06d}"
    return f"{rng.randint(2019, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _seed_custom_fields(rng: random.Random, admin, stamp) -> int:
    """Issue 15: :data:`CUSTOM_FIELDS` in two fieldsets, "Computers" (the first six fields and the last two) and
    "Mobile devices" (MAC, IMEI, OS, MDM enrolment, owner e-mail, warranty reference), attached to the models of
    the categories of :data:`FIELDSET_CATEGORIES`; every asset of those models gets a value for every field of its
    model's set (``COPY`` on PostgreSQL, indexes built afterwards). Drawn from its own random generator, last, so the
    rest of the data is the same as before. Returns the number of values."""
    from inventory.models import (
        Asset,
        AssetFieldValue,
        AssetModel,
        CustomField,
        CustomFieldset,
        CustomFieldsetField,
    )
    from inventory.services.custom_fields import column_name_for

    fields = _bulk(CustomField, [
        CustomField(name=name, element="text", format=fmt, created_by=admin, created_at=stamp(0), updated_at=stamp(0))
        for name, fmt in CUSTOM_FIELDS])
    for field in fields:
        field.db_column_name = column_name_for(field.name, field.pk)
    CustomField.objects.bulk_update(fields, ["db_column_name"])
    members = {"Computers": [0, 2, 3, 4, 5, 7, 8, 9], "Mobile devices": [0, 1, 2, 6, 7, 8]}
    sets = {}
    for name, indexes in members.items():
        sets[name] = CustomFieldset.objects.create(name=name, created_by=admin, created_at=stamp(0),
                                                   updated_at=stamp(0))
        CustomFieldsetField.objects.bulk_create([
            CustomFieldsetField(fieldset=sets[name], field=fields[index], order=order)
            for order, index in enumerate(indexes)])
    fieldset_of = {}
    for name, categories in FIELDSET_CATEGORIES.items():
        chosen = AssetModel.objects.filter(category__name__in=categories)
        chosen.update(fieldset=sets[name])
        fieldset_of.update(dict.fromkeys(chosen.values_list("pk", flat=True), name))
    written = 0
    # Read before the COPY starts: the connection runs nothing else while it is open.
    assets = list(Asset.objects.filter(model_id__in=list(fieldset_of)).order_by("id").values_list("id", "model_id"))
    with bulk_load(AssetFieldValue), TableWriter(AssetFieldValue, ("asset_id", "field_id", "value")) as out:
        for asset_id, model_id in progress(assets, "custom values"):
            for index in members[fieldset_of[model_id]]:
                out.write((asset_id, fields[index].pk, _custom_value(rng, index, asset_id)))
                written += 1
    return written


def _stock_models() -> tuple:
    """The stock item models and their assignment-row models."""
    from inventory.models import (
        Accessory,
        AccessoryCheckout,
        Component,
        ComponentAssignment,
        Consumable,
        ConsumableAssignment,
        License,
        LicenseSeat,
    )

    return (Accessory, AccessoryCheckout, Consumable, ConsumableAssignment, Component, ComponentAssignment, License,
            LicenseSeat)


@dataclass
class StockContext:
    """What the stock seeding reuses from the rest of the seed."""

    rng: random.Random
    admin: Any
    stamp: Callable[[float], dt.datetime]
    company_ids: list[int]
    location_ids: list[int]
    manufacturer_ids: list[int]
    supplier_ids: list[int]
    user_ids: list[int]
    asset_ids: list[int]


def _seed_stock(ctx: StockContext, counts: SeedCounts, log) -> None:
    """Accessories with their checkout rows, consumables with their assignment rows, components with their
    installation rows (see the module docstring)."""
    Accessory, AccessoryCheckout, Consumable, ConsumableAssignment, Component, ComponentAssignment, *_ = \
        _stock_models()

    accessory_rows = _stock_kind(
        ctx, Accessory, AccessoryCheckout, "accessory", n_items=counts.accessories,
        n_rows=counts.accessory_checkouts, categories=ACCESSORY_CATEGORIES, names=ACCESSORY_NAMES, targets="mixed",
    )
    log(f"  {counts.accessories:,} accessories, {accessory_rows:,} checkout rows")
    consumable_rows = _stock_kind(
        ctx, Consumable, ConsumableAssignment, "consumable", n_items=counts.consumables,
        n_rows=counts.consumable_assignments, categories=CONSUMABLE_CATEGORIES, names=CONSUMABLE_NAMES,
        targets="user",
    )
    log(f"  {counts.consumables:,} consumables, {consumable_rows:,} assignment rows")
    component_rows = _stock_kind(
        ctx, Component, ComponentAssignment, "component", n_items=counts.components,
        n_rows=counts.component_assignments, categories=COMPONENT_CATEGORIES, names=COMPONENT_NAMES,
        targets="asset",
    )
    log(f"  {counts.components:,} components, {component_rows:,} installation rows")
    _seed_licenses(ctx, counts.licenses, counts.license_seats)
    log(f"  {counts.licenses:,} licenses, {counts.license_seats:,} seats")


def _categories(ctx: StockContext, category_type: str, names: list[str]) -> list[int]:
    from inventory.models import Category

    start = ctx.stamp(0.0)
    return [category.pk for category in _bulk(Category, [
        Category(name=name, category_type=category_type, created_by=ctx.admin, created_at=start, updated_at=start)
        for name in names])]


def _popular_owners(rng: random.Random, n_items: int, n_rows: int) -> list[int]:
    """Which item each of ``n_rows`` rows belongs to: popular items hold most rows (the busiest about 2% of them)."""
    weights = [1 / (rank + 1) ** 0.7 for rank in range(n_items)]
    rng.shuffle(weights)
    return rng.choices(range(n_items), weights=weights, k=n_rows)


def _seed_licenses(ctx: StockContext, n_licenses: int, n_seats: int) -> None:
    """``n_licenses`` licenses with ``n_seats`` seats spread over them by popularity (at least one each); 70% of
    the seats are assigned, to users (90%) or assets (10%), the rest are free."""
    from inventory.models import License, LicenseSeat

    rng, admin = ctx.rng, ctx.admin
    category_ids = _categories(ctx, "license", LICENSE_CATEGORIES)
    seats = [1] * n_licenses
    for owner in _popular_owners(rng, n_licenses, n_seats - n_licenses):
        seats[owner] += 1
    created = sorted(rng.random() * 0.8 for _ in range(n_licenses))
    license_ids = []
    with TableWriter(License, LICENSE_COLUMNS) as writer:
        for i in range(n_licenses):
            stamp = ctx.stamp(created[i])
            license_ids.append(writer.write((
                f"{rng.choice(LICENSE_NAMES)} {i + 1:05d}", f"{rng.getrandbits(64):016X}", rng.choice(category_ids),
                rng.choice(ctx.company_ids) if rng.random() < 0.95 else None,
                rng.choice(ctx.manufacturer_ids) if rng.random() < 0.9 else None,
                rng.choice(ctx.supplier_ids) if rng.random() < 0.8 else None, seats[i],
                (stamp + dt.timedelta(days=365 * rng.randint(1, 5))).date() if rng.random() < 0.6 else None,
                f"PO-{rng.randint(1, 20_000):05d}", stamp.date(), Decimal(rng.randint(1_000, 500_000)) / 100,
                admin.pk, stamp, stamp,
            )))
    with TableWriter(LicenseSeat, LICENSE_SEAT_COLUMNS) as writer:
        for license_id, count, bought in progress(list(zip(license_ids, seats, created, strict=True)), "seats"):
            for _ in range(count):
                when = ctx.stamp(bought + (1 - bought) * rng.random())
                roll = rng.random()
                user = rng.choice(ctx.user_ids) if roll < 0.63 else None
                asset = rng.choice(ctx.asset_ids) if 0.63 <= roll < 0.7 else None
                writer.write((license_id, user, asset, admin.pk, when, when))


def _stock_kind(ctx: StockContext, model: type, row_model: type, item_field: str, *, n_items: int, n_rows: int,
                categories: list[str], names: list[str], targets: str) -> int:
    """``n_items`` items of ``model`` and ``n_rows`` assignment rows spread over them by popularity; each item's
    ``qty`` is what its rows hold plus a spare stock (none for a quarter of them). ``targets``: ``mixed``, rows go
    to users, assets and locations (accessories); ``user`` or ``asset``, all rows go to that type (consumables,
    components). Returns the rows written."""
    rng, admin = ctx.rng, ctx.admin
    category_ids = _categories(ctx, item_field, categories)  # "accessory" etc. are the CategoryType values
    owners = _popular_owners(rng, n_items, n_rows)
    units = [1 if roll < 0.9 else 2 if roll < 0.97 else rng.randint(3, 5) for roll in
             (rng.random() for _ in range(n_rows))]
    out = [0] * n_items
    for owner, held in zip(owners, units, strict=True):
        out[owner] += held
    created = sorted(rng.random() * 0.8 for _ in range(n_items))  # items bought over the first four years
    item_ids = []
    with TableWriter(model, STOCK_ITEM_COLUMNS) as writer:
        for i in range(n_items):
            stamp = ctx.stamp(created[i])
            item_ids.append(writer.write((
                f"{rng.choice(names)} {i + 1:05d}", rng.choice(category_ids),
                rng.choice(ctx.company_ids) if rng.random() < 0.95 else None,
                rng.choice(ctx.manufacturer_ids) if rng.random() < 0.9 else None,
                rng.choice(ctx.supplier_ids) if rng.random() < 0.8 else None,
                rng.choice(ctx.location_ids), f"{item_field[:3].upper()}-{i:05d}",
                f"PO-{rng.randint(1, 20_000):05d}", stamp.date(), Decimal(rng.randint(500, 20_000)) / 100,
                max(1, out[i] + (0 if rng.random() < 0.25 else rng.randint(1, 50))), rng.choice([None, 1, 5]),
                admin.pk, stamp, stamp,
            )))
    # Rows to users, assets or locations; a kind whose rows go to one type has only that column.
    written_targets = {"mixed": (0, 1, 2), "user": (0,), "asset": (1,)}[targets]
    pools = (ctx.user_ids, ctx.asset_ids, ctx.location_ids)
    columns = (f"{item_field}_id", "assigned_qty", "created_by_id", "created_at",
               *(TARGET_COLUMNS[k] for k in written_targets))
    with TableWriter(row_model, columns) as writer:
        for owner, held in progress(list(zip(owners, units, strict=True)), f"{item_field} rows"):
            when = ctx.stamp(created[owner] + (1 - created[owner]) * rng.random())
            roll = {"mixed": rng.random(), "user": 0.0, "asset": 0.9}[targets]  # one draw per row whatever the kind
            kind = 0 if roll < 0.85 else 1 if roll < 0.95 else 2
            target = [None, None, None]
            target[kind] = rng.choice(pools[kind])
            writer.write((item_ids[owner], held, admin.pk, when, *(target[k] for k in written_targets)))
    return n_rows
