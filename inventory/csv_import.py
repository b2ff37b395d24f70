"""CSV import of assets, accessories, consumables, components and licenses (issue 14; docs/import-export.md).

Rules:
- Every cell is validated by the API's own serializer fields (``AssetWriteSerializer`` and the stock and license
  write serializers: lengths, NUL bytes, ``YYYY-MM-DD`` dates, money and warranty limits) with the API's messages.
  Every error of a row is reported at once as ``line N, column X: message``; nothing of that row is written.
- Catalogue entries named by a valid row and missing are created once (as Snipe-IT's importer does), through the
  catalogue services (each logs its ``create new``). An unknown status label is created deployable; an empty one is
  the first deployable label (created as "Default Status" when there is none).
- Assets: rows with a tag and no checkout are written in batches (``bulk_create`` of the assets and of their
  ``create new`` action-log rows, one transaction per batch); a batch that meets a tag taken meanwhile is redone row
  by row so only that row fails. Rows checked out to a user, rows without a tag (generated) and updates go through
  ``asset_create``/``asset_update``, the API's services, each in its own savepoint.
- ``update``: an existing item (asset by tag; accessory, consumable, component by name; license by name and serial)
  gets the row's non-empty cells; without it the row is skipped. A row that changes nothing is skipped.
- ``dry_run``: the same work inside a transaction that is rolled back: the counts are exact, nothing stays.
- The acting user decides company separation as in the API (rule 7): a user limited to a company imports into it
  (the Company column is ignored) and sees only its items and people.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import IO, TYPE_CHECKING, Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, models, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from rest_framework import serializers

from activity.choices import ActionType
from activity.services import log_actions_bulk
from assetsvc.admin_services import SERVICE_ERRORS, error_map
from assetsvc.api.fields import StrictCharField, TextField
from assetsvc.api.serializers import ApiSerializer
from assetsvc.site import get_site_settings
from companies.models import Company
from companies.querysets import caller_chooses_company
from companies.services import company_create
from inventory import catalogue_services, licenses, services, signals, stock
from inventory.api.hardware.serializers import AssetWriteSerializer
from inventory.api.licenses.serializers import LicenseWriteSerializer
from inventory.api.stock.serializers import (
    AccessoryWriteSerializer,
    ComponentWriteSerializer,
    ConsumableWriteSerializer,
)
from inventory.checkout import log_company_id
from inventory.choices import CategoryType, StatusType
from inventory.csv_columns import COLUMNS, CsvRows, Progress, header_of, iter_chunks, read_csv
from inventory.models import (
    Accessory,
    Asset,
    AssetModel,
    Category,
    Component,
    Consumable,
    License,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)

if TYPE_CHECKING:
    from accounts.models import User

#: Rows kept for the admin's preview.
PREVIEW_ROWS = 20
#: Rows per transaction of the asset importer.
BATCH_SIZE = 500
DEFAULT_STATUS = "Default Status"
#: The note of a checkout made by creating an asset for someone (``asset_create``'s).
CHECKOUT_NOTE = "Checked out on asset creation"


@dataclass
class ImportResult:
    """What an import did (or, dry, would do): the counts, every error line, and the first rows' outcomes."""

    kind: str
    dry_run: bool = False
    created: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)
    preview: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.created + self.updated + self.skipped + self.failed

    def summary(self) -> str:
        verb = "would be " if self.dry_run else ""
        return (f"{self.total} rows: {self.created} {verb}created, {self.updated} {verb}updated, "
                f"{self.skipped} skipped, {self.failed} failed.")

    def outcome(self, line: int, status: str, cells: dict[str, str], messages: list[str] = ()) -> None:
        setattr(self, status, getattr(self, status) + 1)
        if len(self.preview) < PREVIEW_ROWS or line < self.preview[-1]["line"]:  # the first lines, in order
            self.preview.append({"line": line, "status": status, "cells": cells, "messages": list(messages)})
            self.preview.sort(key=lambda entry: entry["line"])
            del self.preview[PREVIEW_ROWS:]


class RowError(Exception):
    """A row refused: ``(column header, message)`` pairs, all of the row's errors."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(problems)
        self.problems = problems


def _messages(exc: serializers.ValidationError | DjangoValidationError) -> list[str]:
    if isinstance(exc, DjangoValidationError):
        return exc.messages
    detail = exc.detail
    if isinstance(detail, dict):
        return [str(text) for texts in detail.values() for text in texts]
    return [str(text) for text in (detail if isinstance(detail, list) else [detail])]


def _fail(result: ImportResult, line: int, cells: dict[str, str], problems: list[tuple[str, str]]) -> None:
    texts = [f"line {line}, column {column}: {message}" for column, message in problems]
    result.errors.extend(texts)
    result.outcome(line, "failed", cells, texts)


@contextmanager
def _dry_run_scope(dry_run: bool) -> Iterator[None]:
    """Everything inside one transaction rolled back at the end when ``dry_run``; nothing special otherwise."""
    if not dry_run:
        yield
        return
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


class _Names(ApiSerializer):
    """The catalogue-name columns, checked as the API checks a name (at most 255 characters, no NUL byte)."""

    model = StrictCharField(max_length=255, required=False, allow_blank=True)
    category = StrictCharField(max_length=255, required=False, allow_blank=True)
    manufacturer = StrictCharField(max_length=255, required=False, allow_blank=True)
    status = StrictCharField(max_length=255, required=False, allow_blank=True)
    location = StrictCharField(max_length=255, required=False, allow_blank=True)
    company = StrictCharField(max_length=255, required=False, allow_blank=True)
    supplier = StrictCharField(max_length=255, required=False, allow_blank=True)
    checked_out_to = StrictCharField(max_length=191, required=False, allow_blank=True)
    model_number = TextField(max_length=255)


# --- catalogue names and people, resolved once per import --------------------------------------------------------


class Catalogue:
    """Names → catalogue rows, read once and created when missing (through the catalogue services), and the
    people a row may be checked out to (by username or e-mail, among those the actor may see)."""

    def __init__(self, actor: User) -> None:
        self.actor = actor
        self.chooses_company = caller_chooses_company(actor)
        self._cache: dict[Any, dict[Any, Any]] = {}
        self._users: tuple[dict[str, Any], dict[str, list[Any]]] | None = None

    def _table(self, key: Any, rows: Callable[[], list[tuple[Any, Any]]]) -> dict[Any, Any]:
        if key not in self._cache:
            self._cache[key] = {}
            for name, row in rows():
                self._cache[key].setdefault(name, row)
        return self._cache[key]

    def _named(self, model: type[models.Model], name: str, create: Callable[[], models.Model],
               **filters: Any) -> models.Model:
        queryset = model.objects.filter(**filters).order_by("pk")
        table = self._table((model, tuple(sorted(filters.items()))),
                            lambda: [(obj.name.lower(), obj) for obj in queryset])
        found = table.get(name.lower())
        if found is None:
            found = table[name.lower()] = create()
        return found

    def _create(self, model: type[models.Model], **data: Any) -> Callable[[], models.Model]:
        return lambda: catalogue_services.catalogue_item_create(model=model, data=data, actor=self.actor)

    def category(self, name: str, category_type: str) -> Category:
        return self._named(Category, name, self._create(Category, name=name, category_type=category_type),
                           category_type=category_type)

    def manufacturer(self, name: str) -> Manufacturer:
        return self._named(Manufacturer, name, self._create(Manufacturer, name=name), deleted_at__isnull=True)

    def supplier(self, name: str) -> Supplier:
        return self._named(Supplier, name, self._create(Supplier, name=name))

    def location(self, name: str) -> Location:
        return self._named(Location, name, self._create(Location, name=name))

    def status(self, name: str) -> StatusLabel:
        return self._named(StatusLabel, name, self._create(StatusLabel, name=name, type=StatusType.DEPLOYABLE))

    def default_status(self) -> StatusLabel:
        if "default_status" not in self._cache:
            label = StatusLabel.objects.filter(type=StatusType.DEPLOYABLE).order_by("pk").first()
            self._cache["default_status"] = label or self.status(DEFAULT_STATUS)
        return self._cache["default_status"]

    def find_status(self, name: str) -> StatusLabel | None:
        table = self._table((StatusLabel, ()), lambda: [(obj.name.lower(), obj)
                                                        for obj in StatusLabel.objects.order_by("pk")])
        return table.get(name.lower())

    def company(self, name: str) -> Company | None:
        """The row's company: the named one (created when missing) for a caller who chooses companies, else the
        caller's own (rule 7; the column is ignored)."""
        if not self.chooses_company:
            return self.actor.company
        if not name:
            return None
        return self._named(Company, name, lambda: company_create(actor=self.actor, data={"name": name}))

    def find_model(self, name: str, number: str) -> AssetModel | None:
        table = self._table(AssetModel, lambda: [
            ((obj.name.lower(), obj.model_number.lower()), obj)
            for obj in AssetModel.objects.filter(deleted_at__isnull=True).order_by("pk")])
        return table.get((name.lower(), number.lower()))

    def asset_model(self, name: str, number: str, category: str, manufacturer: str) -> AssetModel:
        found = self.find_model(name, number)
        if found is None:
            data = {"name": name, "model_number": number, "category": self.category(category, CategoryType.ASSET),
                    "manufacturer": self.manufacturer(manufacturer) if manufacturer else None}
            found = catalogue_services.catalogue_item_create(model=AssetModel, data=data, actor=self.actor)
            self._cache[AssetModel][(name.lower(), number.lower())] = found
        return found

    def user(self, text: str) -> tuple[Any | None, str]:
        """The live, active user with this username, else with this e-mail (one only), among those the actor may
        see; with the reason when none."""
        if self._users is None:
            from accounts.models import User

            by_name: dict[str, Any] = {}
            by_email: dict[str, list[Any]] = {}
            people = User.objects.restrict(self.actor).filter(deleted_at__isnull=True, is_active=True)
            for person in people.order_by("pk"):
                by_name.setdefault(person.username.lower(), person)
                if person.email:
                    by_email.setdefault(person.email.lower(), []).append(person)
            self._users = (by_name, by_email)
        by_name, by_email = self._users
        key = text.strip().lower()
        if key in by_name:
            return by_name[key], ""
        matches = by_email.get(key, [])
        if len(matches) == 1:
            return matches[0], ""
        if matches:
            return None, f"{len(matches)} users have the e-mail {text}; give the username."
        return None, f"No active user has the username or e-mail {text}."


# --- assets ------------------------------------------------------------------------------------------------------


_WARRANTY = re.compile(r"^\s*(\d+)\s*(months?)?\s*$", re.IGNORECASE)
_ASSET_SCALARS = ("name", "serial", "purchase_date", "purchase_cost", "order_number", "warranty_months", "notes")
_ERROR_COLUMNS = {"status_id": "status", "model_id": "model", "location_id": "location",
                  "rtd_location_id": "location", "supplier_id": "supplier", "company_id": "company",
                  "assigned_user": "checked_out_to", "": "asset_tag"}


@dataclass
class _AssetRow:
    line: int
    cells: dict[str, str]
    tag: str
    data: dict[str, Any]
    target: Any = None
    existing: int | None = None


class AssetImporter:
    """Reads, checks and writes asset rows (module docstring)."""

    kind = "asset"

    def __init__(self, *, actor: User, update: bool = False, dry_run: bool = False,
                 progress: Progress | None = None, batch_size: int = BATCH_SIZE) -> None:
        self.actor, self.update, self.dry_run = actor, update, dry_run
        self.progress, self.batch_size = progress, batch_size
        self.result = ImportResult(kind=self.kind, dry_run=dry_run)
        self.site = get_site_settings()
        self.fields = AssetWriteSerializer(context={}).fields
        self.names = _Names().fields
        self.catalogue = Catalogue(actor)
        self.tags: dict[str, int] = {}
        self.serials: dict[str, int | None] = {}
        self.file_tags: dict[str, int] = {}

    def col(self, key: str) -> str:
        return header_of(self.kind, key)

    # reading ---------------------------------------------------------------------------------------------------

    def run(self, rows: CsvRows) -> ImportResult:
        self.result.ignored_columns = rows.ignored
        for line, text in rows.bad_lines:
            _fail(self.result, line, {}, [("-", text)])
        with _dry_run_scope(self.dry_run):
            self.tags = dict(Asset.objects.alive().annotate(low=Lower("asset_tag")).values_list("low", "pk"))
            if self.site.unique_serial:
                self.serials = dict(Asset.objects.alive().exclude(serial="")
                                    .annotate(low=Lower("serial")).values_list("low", "pk"))
            for chunk in iter_chunks(rows.rows, self.batch_size):
                prepared = [row for row in (self.prepare(line, cells) for line, cells in chunk) if row is not None]
                self.write(prepared)
                if self.progress is not None:
                    self.progress.advance(len(chunk))
        return self.result

    def _value(self, key: str, raw: str | None, problems: list[tuple[str, str]]) -> Any:
        fld = self.fields[key]
        if key == "warranty_months" and raw:
            match = _WARRANTY.match(raw)
            raw = match.group(1) if match else raw
        try:
            return fld.run_validation(raw if raw not in ("", None) or isinstance(fld, TextField) else None)
        except serializers.ValidationError as exc:
            problems.extend((self.col(key), text) for text in _messages(exc))
        return None

    def _name(self, key: str, cells: dict[str, str], problems: list[tuple[str, str]]) -> str:
        raw = cells.get(key)
        if raw is None:
            return ""
        try:
            return self.names[key].run_validation(raw).strip()
        except serializers.ValidationError as exc:
            problems.extend((self.col(key), text) for text in _messages(exc))
        return ""

    def prepare(self, line: int, cells: dict[str, str]) -> _AssetRow | None:
        """Check one row; refused rows are recorded (failed or skipped) and give None."""
        problems: list[tuple[str, str]] = []
        tag = self._name_tag(line, cells, problems)
        existing = self.tags.get(tag.lower()) if tag else None
        if existing is not None and not self.update and not problems:
            self.result.notes.append(f"line {line}: asset tag {tag} exists; skipped (use update to change it).")
            self.result.outcome(line, "skipped", cells, ["asset tag exists"])
            return None
        creating = existing is None
        data: dict[str, Any] = {}
        for key in _ASSET_SCALARS:
            if key in cells and (creating or cells[key].strip()):
                value = self._value(key, cells[key], problems)
                data[key] = value
        names = {key: self._name(key, cells, problems)
                 for key in ("model", "model_number", "category", "manufacturer", "status", "location", "company",
                             "supplier", "checked_out_to")}
        if creating and not names["model"]:
            problems.append((self.col("model"), "The model name field is required."))
        elif names["model"] and not self.catalogue.find_model(names["model"], names["model_number"]) \
                and not names["category"]:
            problems.append((self.col("category"), f'The category field is required to create the model '
                                                   f'"{names["model"]}".'))
        target = None
        if names["checked_out_to"]:
            target, reason = self.catalogue.user(names["checked_out_to"])
            if target is None:
                problems.append((self.col("checked_out_to"), reason))
            elif names["status"]:
                label = self.catalogue.find_status(names["status"])
                if label is not None and label.type != StatusType.DEPLOYABLE:
                    problems.append((self.col("status"), services.NOT_DEPLOYABLE_ON_CREATE))
        serial = data.get("serial")
        if serial and self.site.unique_serial:
            holder = self.serials.get(serial.lower(), existing)
            if holder != existing:
                problems.append((self.col("serial"), services.SERIAL_TAKEN))
        if problems:
            _fail(self.result, line, cells, problems)
            return None
        if tag:
            self.file_tags[tag.lower()] = line
        if serial and self.site.unique_serial:
            self.serials[serial.lower()] = existing
        try:
            self._resolve(data, names, creating)
        except SERVICE_ERRORS as exc:
            _fail(self.result, line, cells, self._problems(exc))
            return None
        return _AssetRow(line=line, cells=cells, tag=tag, data=data, target=target, existing=existing)

    def _name_tag(self, line: int, cells: dict[str, str], problems: list[tuple[str, str]]) -> str:
        raw = cells.get("asset_tag", "")
        if not raw.strip():
            if not self.site.auto_increment_assets:
                problems.append((self.col("asset_tag"), "The asset tag field is required."))
            return ""
        try:
            tag = self.fields["asset_tag"].run_validation(raw).strip()
        except serializers.ValidationError as exc:
            problems.extend((self.col("asset_tag"), text) for text in _messages(exc))
            return ""
        earlier = self.file_tags.get(tag.lower())
        if earlier is not None:
            problems.append((self.col("asset_tag"), f"{services.TAG_TAKEN} Line {earlier} has the same tag."))
        return tag

    def _resolve(self, data: dict[str, Any], names: dict[str, str], creating: bool) -> None:
        """Catalogue names → rows (created when missing); empty names keep an update's values."""
        catalogue = self.catalogue
        if names["model"]:
            data["model"] = catalogue.asset_model(names["model"], names["model_number"], names["category"],
                                                  names["manufacturer"])
        if names["status"]:
            data["status"] = catalogue.status(names["status"])
        elif creating:
            data["status"] = catalogue.default_status()
        if names["location"]:
            data["rtd_location"] = catalogue.location(names["location"])
        if names["supplier"]:
            data["supplier"] = catalogue.supplier(names["supplier"])
        if creating or names["company"]:
            company = catalogue.company(names["company"])
            if creating or catalogue.chooses_company:
                data["company"] = company

    def _problems(self, exc: Exception) -> list[tuple[str, str]]:
        columns = {column.key for column in COLUMNS[self.kind]}
        problems = []
        for key, texts in error_map(exc).items():
            key = _ERROR_COLUMNS.get(key, key)
            header = self.col(key if key in columns else "asset_tag")
            problems.extend((header, str(text)) for text in texts)
        return problems

    # writing ---------------------------------------------------------------------------------------------------

    def write(self, rows: list[_AssetRow]) -> None:
        """New rows with a tag in bulk (checkouts included); generated tags and updates row by row."""
        bulk = [row for row in rows if row.existing is None and row.tag
                and (row.target is None or row.data["status"].type == StatusType.DEPLOYABLE)]
        single = [row for row in rows if row not in bulk] if len(bulk) != len(rows) else []
        with transaction.atomic():  # one commit per batch; each row below is a savepoint
            if bulk:
                self._bulk_create(bulk)
            current = Asset.objects.in_bulk([row.existing for row in single if row.existing is not None])
            for row in single:
                self._one(row, current)

    def _new_asset(self, row: _AssetRow, moment: datetime) -> tuple[Asset, dict[str, Any] | None]:
        """The asset as ``asset_create`` builds it; checked out to the row's user as ``AssetKind.assign`` does,
        with the changes that checkout logs."""
        data = dict(row.data)
        data.setdefault("location", data.get("rtd_location"))
        asset = Asset(asset_tag=row.tag, created_by=self.actor, **data)
        if row.target is None:
            return asset, None
        before = services._snapshot(asset)
        asset.assigned_user = row.target
        asset.location_id = row.target.location_id
        asset.last_checkout = moment
        asset.checkout_counter = 1
        return asset, services._changes(before, services._snapshot(asset))

    def _bulk_create(self, rows: list[_AssetRow]) -> None:
        """``asset_create`` (with its checkout) for many rows at once: the assets, their ``create new`` and
        ``checkout`` log rows, then the checkout signals (notifications), in one savepoint."""
        moment = timezone.now()
        built = [self._new_asset(row, moment) for row in rows]
        try:
            with transaction.atomic():
                if self.site.auto_increment_assets:
                    self._bump_counter([row.tag for row in rows])
                assets = Asset.objects.bulk_create([asset for asset, _ in built])
                entries = [{"action_type": ActionType.CREATE, "item_type": "asset", "item_id": asset.pk,
                            "actor": self.actor, "company_id": log_company_id(self.actor, asset, None),
                            "location_id": getattr(row.data.get("rtd_location"), "pk", None), "action_date": moment}
                           for asset, row in zip(assets, rows, strict=True)]
                out = [(asset, row, changes) for asset, row, (_, changes) in zip(assets, rows, built, strict=True)
                       if row.target is not None]
                entries += [{"action_type": ActionType.CHECKOUT, "item_type": "asset", "item_id": asset.pk,
                             "actor": self.actor, "company_id": log_company_id(self.actor, asset, row.target),
                             "target_type": "user", "target_id": row.target.pk, "location_id": asset.location_id,
                             "note": CHECKOUT_NOTE, "log_meta": changes, "action_date": moment}
                            for asset, row, changes in out]
                logs = log_actions_bulk(entries)
                for (asset, row, _), log in zip(out, logs[len(assets):], strict=True):
                    signals.asset_checked_out.send(sender=Asset, item=asset, actor=self.actor, target=row.target,
                                                   note=CHECKOUT_NOTE, log=log, quantity=1)
        except IntegrityError:
            for row in rows:  # a tag taken meanwhile: only its row fails
                self._one(row)
            return
        for row, asset in zip(rows, assets, strict=True):
            self.tags[row.tag.lower()] = asset.pk
            self.result.outcome(row.line, "created", row.cells)

    def _bump_counter(self, tags: list[str]) -> None:
        prefix = self.site.auto_increment_prefix.lower()
        numbered = [tag for tag in tags if tag.lower().startswith(prefix) and tag[len(prefix):].isdigit()
                    and len(tag) - len(prefix) <= 18]
        if numbered:
            site = services._locked_site_settings()
            services._bump_auto_tag_base(site, max(numbered, key=lambda tag: int(tag[len(prefix):])))

    def _one(self, row: _AssetRow, current: dict[int, Asset] | None = None) -> None:
        """One row through the API's services in its own savepoint; an update that changes nothing writes
        nothing (decided on the batch's read of the existing assets, ``current``)."""
        try:
            if row.existing is None:
                with transaction.atomic():
                    asset = services.asset_create(actor=self.actor, data={**row.data, "asset_tag": row.tag},
                                                  target=row.target)
                self.tags[asset.asset_tag.lower()] = asset.pk
                status = "created"
            else:
                asset = (current or {}).get(row.existing) or Asset.objects.get(pk=row.existing)
                changed, target = self._update_plan(asset, row)
                status = "skipped"
                if changed or target is not None:
                    with transaction.atomic():
                        services.asset_update(asset=asset, actor=self.actor, data=changed, target=target)
                    status = "updated"
        except SERVICE_ERRORS as exc:
            _fail(self.result, row.line, row.cells, self._problems(exc))
            return
        self.result.outcome(row.line, status, row.cells)

    def _update_plan(self, asset: Asset, row: _AssetRow) -> tuple[dict[str, Any], Any]:
        """The fields the row changes, and the user to check the asset out to (None: no checkout)."""
        changed = {key: value for key, value in row.data.items() if _differs(asset, key, value)}
        target = row.target
        if target is not None and asset.assigned_user_id == target.pk:
            target = None
        elif target is not None and asset.is_assigned:
            raise DjangoValidationError({"assigned_user": [
                "The asset is already checked out to someone else; check it in before importing a new holder."]})
        return changed, target


def _differs(obj: models.Model, key: str, value: Any) -> bool:
    current = getattr(obj, f"{key}_id") if isinstance(value, models.Model | type(None)) and hasattr(
        obj, f"{key}_id") else getattr(obj, key)
    return current != (value.pk if isinstance(value, models.Model) else value)


# --- accessories, consumables, components, licenses ----------------------------------------------------------------


@dataclass(frozen=True)
class ItemKindSpec:
    """How one quantity kind is imported: its model, the API's write serializer, its category type, the
    services that create and update it, and which columns find an existing item."""

    kind: str
    model: type[models.Model]
    serializer: type[serializers.Serializer]
    category_type: str
    create: Callable[..., models.Model]
    update: Callable[..., models.Model]
    match: tuple[str, ...] = ("name",)


ITEM_KINDS: dict[str, ItemKindSpec] = {
    "accessory": ItemKindSpec("accessory", Accessory, AccessoryWriteSerializer, CategoryType.ACCESSORY,
                              stock.stock_create, stock.stock_update),
    "consumable": ItemKindSpec("consumable", Consumable, ConsumableWriteSerializer, CategoryType.CONSUMABLE,
                               stock.stock_create, stock.stock_update),
    "component": ItemKindSpec("component", Component, ComponentWriteSerializer, CategoryType.COMPONENT,
                              stock.stock_create, stock.stock_update),
    "license": ItemKindSpec("license", License, LicenseWriteSerializer, CategoryType.LICENSE,
                            licenses.license_create, licenses.license_update, match=("name", "serial")),
}
_FK_KEYS = {"category": "category_id", "company": "company_id", "manufacturer": "manufacturer_id",
            "supplier": "supplier_id", "location": "location_id"}


class ItemImporter:
    """Quantity kinds, row by row through the API's write serializer and the kind's services (each row in its own
    savepoint); catalogue names become ids first (created when missing)."""

    def __init__(self, spec: ItemKindSpec, *, actor: User, update: bool = False, dry_run: bool = False,
                 progress: Progress | None = None) -> None:
        self.spec, self.actor, self.update, self.dry_run, self.progress = spec, actor, update, dry_run, progress
        self.result = ImportResult(kind=spec.kind, dry_run=dry_run)
        self.catalogue = Catalogue(actor)
        self.names = _Names().fields
        self.seen: dict[tuple[str, ...], int] = {}

    def col(self, key: str) -> str:
        return header_of(self.spec.kind, key)

    def run(self, rows: CsvRows) -> ImportResult:
        self.result.ignored_columns = rows.ignored
        for line, text in rows.bad_lines:
            _fail(self.result, line, {}, [("-", text)])
        with _dry_run_scope(self.dry_run):
            for line, cells in rows.rows:
                self.row(line, cells)
                if self.progress is not None:
                    self.progress.advance()
        return self.result

    def _existing(self, cells: dict[str, str]) -> models.Model | None:
        queryset = self.spec.model.objects.restrict(self.actor).filter(deleted_at__isnull=True)
        for key in self.spec.match:
            queryset = queryset.filter(**{f"{key}__iexact": cells.get(key, "").strip()})
        return queryset.order_by("pk").first()

    def row(self, line: int, cells: dict[str, str]) -> None:
        problems: list[tuple[str, str]] = []
        names = {}
        for key in _FK_KEYS:
            try:
                names[key] = self.names[key].run_validation(cells.get(key, "")).strip()
            except serializers.ValidationError as exc:
                problems.extend((self.col(key), text) for text in _messages(exc))
        existing = self._existing(cells)
        if existing is not None and not self.update:
            self.result.notes.append(f"line {line}: {cells.get('name', '').strip()} exists; skipped.")
            self.result.outcome(line, "skipped", cells, ["exists"])
            return
        payload: dict[str, Any] = {}
        for key, value in cells.items():
            if key in _FK_KEYS or (existing is not None and not value.strip()):
                continue
            payload[key] = value if value.strip() else None
        if existing is None and not names["category"]:
            problems.append((self.col("category"), "The category field is required."))
        if existing is None and "qty" in self.spec.serializer().fields and not (cells.get("qty") or "").strip():
            payload["qty"] = 1  # Snipe-IT's importer: one when the quantity is not given
        if existing is None and self.spec.kind == "license" and not (cells.get("seats") or "").strip():
            payload["seats"] = 1
        context = {"request": SimpleNamespace(user=self.actor)}
        if problems:
            self._check_fields(self.spec.serializer(context=context), payload, problems)
            _fail(self.result, line, cells, problems)
            return
        try:
            with transaction.atomic():
                for key, fk in _FK_KEYS.items():
                    if names[key]:
                        payload[fk] = self._resolve(key, names[key]).pk
                serializer = self.spec.serializer(data=payload, partial=existing is not None, context=context)
                if not serializer.is_valid():
                    raise serializers.ValidationError(serializer.errors)
                status = self._write(serializer.validated_data, existing)
        except SERVICE_ERRORS as exc:
            _fail(self.result, line, cells, self._problems(exc))
            return
        self.result.outcome(line, status, cells)

    def _check_fields(self, serializer: serializers.Serializer, payload: dict[str, Any],
                      problems: list[tuple[str, str]]) -> None:
        """The other columns' errors too, when a name already failed (no catalogue entry is created then)."""
        for key, value in payload.items():
            fld = serializer.fields.get(key)
            if fld is None:
                continue
            try:
                fld.run_validation(value)
            except serializers.ValidationError as exc:
                problems.extend((self.col(key), text) for text in _messages(exc))

    def _resolve(self, key: str, name: str) -> models.Model:
        catalogue = self.catalogue
        if key == "category":
            return catalogue.category(name, self.spec.category_type)
        if key == "company":
            return catalogue.company(name) or Company(pk=None)
        return getattr(catalogue, key)(name)

    def _write(self, data: dict[str, Any], existing: models.Model | None) -> str:
        if existing is None:
            self.spec.create(model=self.spec.model, data=data, actor=self.actor)
            return "created"
        changed = {key: value for key, value in data.items() if _differs(existing, key, value)}
        if not changed:
            return "skipped"
        self.spec.update(item=existing, data=changed, actor=self.actor)
        return "updated"

    def _problems(self, exc: Exception) -> list[tuple[str, str]]:
        columns = {column.key for column in COLUMNS[self.spec.kind]}
        problems = []
        for key, texts in error_map(exc).items():
            key = key.removesuffix("_id")
            header = self.col(key if key in columns else "name")
            problems.extend((header, str(text)) for text in texts)
        return problems


def import_csv(kind: str, stream: IO[str] | IO[bytes], *, actor: User, update: bool = False,
               dry_run: bool = False, progress_stream: IO[str] | None = None) -> ImportResult:
    """Import one CSV file of ``kind`` (``asset``, ``accessory``, ``consumable``, ``component``, ``license``) as
    ``actor``. Raises ``csv_columns.CsvFileError`` when the file as a whole is unreadable (nothing written)."""
    rows = read_csv(kind, stream)
    progress = Progress(len(rows.rows), verb="dry run" if dry_run else "imported", stream=progress_stream)
    try:
        if kind == "asset":
            return AssetImporter(actor=actor, update=update, dry_run=dry_run, progress=progress).run(rows)
        return ItemImporter(ITEM_KINDS[kind], actor=actor, update=update, dry_run=dry_run,
                            progress=progress).run(rows)
    finally:
        progress.close()
