"""CSV import of assets, accessories, consumables, components and licenses (issue 14; docs/import-export.md).
The asset importer is here; the other kinds are in ``inventory.transfer.import_items``, what both share in
``inventory.transfer.common``.

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
- Custom fields: a column headed by a custom field's name or ``db_column_name`` (any case) is that field's value,
  read by ``custom_values.read_input`` against the fields of the row's model's fieldset (the API's checks and
  messages; required fields on create and on a model change). An empty cell sets nothing (an update keeps the value);
  a cell of a field outside the model's fieldset, an ``ENCRYPTED`` cell of an encrypted field (an export made without
  the permission to read it) and encrypted values the actor may not write are ignored and counted in the notes. New
  rows with values are created in the batch's bulk create, their values in one more multi-row ``INSERT``; unique
  values are judged for the batch in one query (issue 25). Updates store them through ``asset_update``.
- ``dry_run``: the same work inside a transaction that is rolled back: the counts are exact, nothing stays.
- The acting user decides company separation as in the API (rule 7): a user limited to a company imports into it
  (the Company column is ignored) and sees only its items and people.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import IO, TYPE_CHECKING, Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from rest_framework import serializers

from accounts.permissions import has_access
from activity.choices import ActionType
from activity.services import log_actions_bulk
from assetsvc.admin_services import SERVICE_ERRORS, error_map
from assetsvc.api.fields import TextField
from assetsvc.progress import Progress
from assetsvc.site import close_request_scope, get_site_settings, open_request_scope
from companies.querysets import limiting_company_id
from inventory import custom_values, signals
from inventory.api.assets.serializers import AssetWriteSerializer
from inventory.choices import StatusType
from inventory.custom_values import batch as value_batch
from inventory.custom_values.crypto import MASK
from inventory.models import Asset, AssetModel, CustomField
from inventory.services import assets as services
from inventory.services.checkout import log_company_id
from inventory.tags import normalize_tag, tag_key
from inventory.transfer.columns import COLUMNS, CsvRows, header_of, iter_chunks, read_csv
from inventory.transfer.common import (
    Catalogue,
    ImportResult,
    NameFields,
    differs,
    dry_run_scope,
    messages_of,
    record_failure,
)
from inventory.transfer.import_items import ITEM_KINDS, ItemImporter

if TYPE_CHECKING:
    from accounts.models import User

#: Rows per transaction.
BATCH_SIZE = 500
#: The note of a checkout made by creating an asset for someone (``asset_create``'s).
CHECKOUT_NOTE = "Checked out on asset creation"
#: The key of a custom field's column: this prefix and the field's id.
CUSTOM_KEY = "custom:"


def custom_headers() -> dict[str, str]:
    """The headers read as custom fields (each field's name, then each ``db_column_name``) → ``custom:<id>``; the
    asset columns' own names come first (``read_csv``)."""
    fields = list(CustomField.objects.filter(db_column_name__startswith=custom_values.PREFIX)
                  .order_by("pk").values_list("pk", "name", "db_column_name"))
    headers: dict[str, str] = {}
    for pk, name, _ in fields:
        headers.setdefault(name, f"{CUSTOM_KEY}{pk}")
    for pk, _, column in fields:
        headers.setdefault(column, f"{CUSTOM_KEY}{pk}")
    return headers


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
    custom: custom_values.CustomInput | None = None


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
        self.names = NameFields().fields
        self.catalogue = Catalogue(actor)
        self.tags: dict[str, int] = {}
        #: Assets whose tag exists but that the actor may not see (company separation): not theirs to update.
        self.hidden: set[int] = set()
        self.serials: dict[str, int | None] = {}
        self.file_tags: dict[str, int] = {}
        self.may_write_encrypted = has_access(actor, custom_values.ENCRYPTED_PERMISSION)
        #: The file's custom-field columns: key → field, and the field's ``db_column_name`` → header as written.
        self.custom_fields: dict[str, CustomField] = {}
        self.custom_headers: dict[str, str] = {}
        self.slots: dict[int, list[custom_values.Slot]] = {}
        #: The existing assets of the current chunk's rows (their model and fieldset), read once per chunk.
        self.current: dict[int, Asset] = {}
        #: Cells not written, counted for the notes: (header, model name) outside the fieldset; header → count.
        self.outside: Counter[tuple[str, str]] = Counter()
        self.masked: Counter[str] = Counter()
        self.unpermitted: Counter[str] = Counter()

    def col(self, key: str) -> str:
        return header_of(self.kind, key)

    # reading ---------------------------------------------------------------------------------------------------

    def run(self, rows: CsvRows) -> ImportResult:
        self.result.ignored_columns = rows.ignored
        wanted = {key: int(key[len(CUSTOM_KEY):]) for key in rows.keys if key.startswith(CUSTOM_KEY)}
        fields = CustomField.objects.in_bulk(list(wanted.values()))
        self.custom_fields = {key: fields[pk] for key, pk in wanted.items() if pk in fields}
        self.custom_headers = {field_.db_column_name: rows.keys[key] for key, field_ in self.custom_fields.items()}
        for line, text in rows.bad_lines:
            record_failure(self.result, line, {}, [("-", text)])
        with dry_run_scope(self.dry_run):
            self.tags = {tag_key(tag): pk for tag, pk in  # look-alikes are one tag (issue 25); the oldest wins
                         Asset.objects.alive().order_by("-pk").values_list("asset_tag", "pk")}
            if limiting_company_id(self.actor) is not None:
                visible = Asset.objects.restrict(self.actor).alive().values("pk")
                self.hidden = set(Asset.objects.alive().exclude(pk__in=visible).values_list("pk", flat=True))
            if self.site.unique_serial:
                self.serials = dict(Asset.objects.alive().exclude(serial="")
                                    .annotate(low=Lower("serial")).values_list("low", "pk"))
            for chunk in iter_chunks(rows.rows, self.batch_size):
                ids = {self.tags.get(tag_key(cells.get("asset_tag", ""))) for _, cells in chunk} - {None}
                self.current = Asset.objects.select_related("model").in_bulk(list(ids)) if self.update and ids else {}
                prepared = [row for row in (self.prepare(line, cells) for line, cells in chunk) if row is not None]
                self.write(prepared)
                if self.progress is not None:
                    self.progress.advance(len(chunk))
        self._custom_notes()
        return self.result

    def _custom_notes(self) -> None:
        notes = self.result.notes
        for (header, model), count in self.outside.items():
            notes.append(f"column {header} is not a field of model {model}'s fieldset; ignored for {count} rows.")
        for header, count in self.masked.items():
            notes.append(f"column {header}: {MASK} (an export's mask of an encrypted value) keeps the stored value; "
                         f"ignored for {count} rows.")
        for header, count in self.unpermitted.items():
            notes.append(f"column {header}: {custom_values.NESTED_NEEDS_PERMISSION}; ignored for {count} rows.")

    def _value(self, key: str, raw: str | None, problems: list[tuple[str, str]]) -> Any:
        fld = self.fields[key]
        if key == "warranty_months" and raw:
            match = _WARRANTY.match(raw)
            raw = match.group(1) if match else raw
        try:
            return fld.run_validation(raw if raw not in ("", None) or isinstance(fld, TextField) else None)
        except serializers.ValidationError as exc:
            problems.extend((self.col(key), text) for text in messages_of(exc))
        return None

    def _name(self, key: str, cells: dict[str, str], problems: list[tuple[str, str]]) -> str:
        raw = cells.get(key)
        if raw is None:
            return ""
        try:
            return self.names[key].run_validation(raw).strip()
        except serializers.ValidationError as exc:
            problems.extend((self.col(key), text) for text in messages_of(exc))
        return ""

    def prepare(self, line: int, cells: dict[str, str]) -> _AssetRow | None:
        """Check one row; refused rows are recorded (failed or skipped) and give None."""
        problems: list[tuple[str, str]] = []
        tag = self._name_tag(line, cells, problems)
        existing = self.tags.get(tag_key(tag)) if tag else None
        if existing in self.hidden:  # another company's asset: its tag is taken, as for a new asset (no update)
            record_failure(self.result, line, cells, [(self.col("asset_tag"), services.TAG_TAKEN)])
            return None
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
        custom = self._custom(cells, names, existing, problems)
        if problems:
            record_failure(self.result, line, cells, problems)
            return None
        if tag:
            self.file_tags[tag_key(tag)] = line
        if serial and self.site.unique_serial:
            self.serials[serial.lower()] = existing if existing is not None else -line  # a new row of this file
        try:
            self._resolve(data, names, creating)
        except SERVICE_ERRORS as exc:
            record_failure(self.result, line, cells, self._problems(exc))
            return None
        return _AssetRow(line=line, cells=cells, tag=tag, data=data, target=target, existing=existing, custom=custom)

    def _custom(self, cells: dict[str, str], names: dict[str, str], existing: int | None,
                problems: list[tuple[str, str]]) -> custom_values.CustomInput | None:
        """The row's custom values, read against the fieldset of the row's model (the named one, else the existing
        asset's); None when there is nothing to write or check. Errors are added to ``problems``."""
        asset = None
        if existing is not None:
            asset = self.current.get(existing) or Asset.objects.select_related("model").get(pk=existing)
        model: AssetModel | None = None
        if names["model"]:
            model = self.catalogue.find_model(names["model"], names["model_number"])
        elif asset is not None:
            model = asset.model
        slots = self._slots_of(model)
        carried = {slot.field.pk for slot in slots}
        data: dict[str, str] = {}
        for key, field_ in self.custom_fields.items():
            cell = cells.get(key, "")
            if not cell.strip():
                continue  # no value on create; an update keeps the stored one
            header = self.custom_headers[field_.db_column_name]
            if field_.pk not in carried:
                model_name = model.name if model is not None else names["model"]
                if model_name:
                    self.outside[(header, model_name)] += 1
                continue
            if field_.field_encrypted and cell.strip() == MASK:
                self.masked[header] += 1
                continue
            if field_.field_encrypted and not self.may_write_encrypted:
                self.unpermitted[header] += 1
                continue
            data[field_.db_column_name] = cell
        creating = existing is None
        model_changed = asset is not None and model is not None and model.pk != asset.model_id
        if not data and not (slots and (creating or model_changed)):
            return None
        stored = custom_values.values_of([existing]).get(existing, {}) if model_changed else {}
        custom = custom_values.read_input(data, slots=slots, may_write_encrypted=self.may_write_encrypted,
                                          existing=stored, asset_pk=existing, creating=creating,
                                          model_changed=model_changed, known=set(), check_unique=False)
        names_of = {slot.field.db_column_name: slot.field.name for slot in slots}
        for column, texts in custom.errors.items():
            header = self.custom_headers.get(column) or names_of.get(column, column)
            problems.extend((header, str(text)) for text in texts)
        return custom

    def _slots_of(self, model: AssetModel | None) -> list[custom_values.Slot]:
        fieldset_id = getattr(model, "fieldset_id", None)
        if fieldset_id is None:
            return []
        if fieldset_id not in self.slots:
            self.slots.update(custom_values.fieldset_slots([fieldset_id]))
        return self.slots[fieldset_id]

    def _name_tag(self, line: int, cells: dict[str, str], problems: list[tuple[str, str]]) -> str:
        raw = cells.get("asset_tag", "")
        if not raw.strip():
            if not self.site.auto_increment_assets:
                problems.append((self.col("asset_tag"), "The asset tag field is required."))
            return ""
        try:
            tag = normalize_tag(self.fields["asset_tag"].run_validation(raw))
        except serializers.ValidationError as exc:
            problems.extend((self.col("asset_tag"), text) for text in messages_of(exc))
            return ""
        if not tag:  # invisible characters only
            if not self.site.auto_increment_assets:
                problems.append((self.col("asset_tag"), "The asset tag field is required."))
            return ""
        earlier = self.file_tags.get(tag_key(tag))
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
            if key in self.custom_headers:
                problems.extend((self.custom_headers[key], str(text)) for text in texts)
                continue
            key = _ERROR_COLUMNS.get(key, key)
            header = self.col(key if key in columns else "asset_tag")
            problems.extend((header, str(text)) for text in texts)
        return problems

    # writing ---------------------------------------------------------------------------------------------------

    def write(self, rows: list[_AssetRow]) -> None:
        """New rows with a tag in bulk (checkouts and custom values included); generated tags and updates row by
        row."""
        bulk = [row for row in rows if row.existing is None and row.tag
                and (row.target is None or row.data["status"].type == StatusType.DEPLOYABLE)]
        single = [row for row in rows if row not in bulk] if len(bulk) != len(rows) else []
        # the site settings read once per batch (the signals' receivers ask for them per row), as in a request
        scope = open_request_scope()
        try:
            with transaction.atomic():  # one commit per batch; each row below is a savepoint
                if bulk:
                    self._bulk_create(bulk)
                current = Asset.objects.in_bulk([row.existing for row in single if row.existing is not None])
                for row in single:
                    self._one(row, current)
        finally:
            close_request_scope(scope)

    def _new_asset(self, row: _AssetRow, moment: datetime) -> tuple[Asset, dict[str, Any] | None]:
        """The asset as ``asset_create`` builds it; checked out to the row's user as ``AssetKind.assign`` does,
        with the changes that checkout logs."""
        data = dict(row.data)
        data.setdefault("location", data.get("rtd_location"))
        asset = Asset(asset_tag=row.tag, asset_tag_key=tag_key(row.tag), created_by=self.actor, **data)
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
        rows, values = self._plan_values(rows)
        if not rows:
            return
        built = [self._new_asset(row, moment) for row in rows]
        try:
            with transaction.atomic():
                if self.site.auto_increment_assets:
                    self._bump_counter([row.tag for row in rows])
                assets = Asset.objects.bulk_create([asset for asset, _ in built])
                self._store_values(assets, rows, values)
                entries = [{"action_type": ActionType.CREATE, "item_type": "asset", "item_id": asset.pk,
                            "actor": self.actor, "company_id": log_company_id(self.actor, asset, None), "item": asset,
                            "location_id": getattr(row.data.get("rtd_location"), "pk", None), "action_date": moment}
                           for asset, row in zip(assets, rows, strict=True)]
                out = [(asset, row, changes) for asset, row, (_, changes) in zip(assets, rows, built, strict=True)
                       if row.target is not None]
                entries += [{"action_type": ActionType.CHECKOUT, "item_type": "asset", "item_id": asset.pk,
                             "actor": self.actor, "company_id": log_company_id(self.actor, asset, row.target),
                             "item": asset, "target": row.target,
                             "target_type": "user", "target_id": row.target.pk, "location_id": asset.location_id,
                             "note": CHECKOUT_NOTE, "log_meta": changes, "action_date": moment}
                            for asset, row, changes in out]
                logs = log_actions_bulk(entries)
                for asset, log in zip(assets, logs, strict=False):
                    signals.send_lifecycle("asset", ActionType.CREATE, item=asset, actor=self.actor, log=log)
                for (asset, row, _), log in zip(out, logs[len(assets):], strict=True):
                    signals.asset_checked_out.send(sender=Asset, item=asset, actor=self.actor, target=row.target,
                                                   note=CHECKOUT_NOTE, log=log, quantity=1)
        except IntegrityError:
            for row in rows:  # a tag taken meanwhile: only its row fails
                self._one(row)
            return
        for row, asset in zip(rows, assets, strict=True):
            self.tags[tag_key(row.tag)] = asset.pk
            self.result.outcome(row.line, "created", row.cells)

    def _plan_values(self, rows: list[_AssetRow]) -> tuple[list[_AssetRow], dict[int, value_batch.ValueWrites]]:
        """The custom value rows of new assets (``value_batch.plan_values``: unique values judged for the batch in
        one query, against the database and the earlier rows of the file); a row whose unique value is taken fails
        here. Returns the rows to create and each one's planned values (by line)."""
        holders = value_batch.unique_holders(row.custom for row in rows)
        claimed: dict[tuple[int, str, int], Any] = {}
        kept, values = [], {}
        for row in rows:
            if row.custom is not None and row.custom.values:
                planned = value_batch.ValueWrites(claimed=claimed)
                try:
                    # what plan_values reads of an asset not created yet (a model instance per row costs more)
                    new_asset = SimpleNamespace(pk=None, deleted_at=None,
                                                company_id=getattr(row.data.get("company"), "pk", None))
                    value_batch.plan_values(new_asset, row.custom, {}, planned, holders, owner=row.line)
                except DjangoValidationError as exc:
                    record_failure(self.result, row.line, row.cells, self._problems(exc))
                    continue
                values[row.line] = planned
            kept.append(row)
        return kept, values

    @staticmethod
    def _store_values(assets: list[Asset], rows: list[_AssetRow], values: dict[int, value_batch.ValueWrites]
                      ) -> None:
        """The planned values of the new assets, in one multi-row ``INSERT``."""
        writes = value_batch.ValueWrites()
        for asset, row in zip(assets, rows, strict=True):
            for value in values[row.line].inserts if row.line in values else ():
                value.asset_id = asset.pk
                writes.inserts.append(value)
        value_batch.apply_writes(writes)

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
                                                  target=row.target, custom=row.custom)
                self.tags[tag_key(asset.asset_tag)] = asset.pk
                status = "created"
            else:
                asset = (current or {}).get(row.existing) or Asset.objects.get(pk=row.existing)
                changed, target, custom = self._update_plan(asset, row)
                status = "skipped"
                if changed or target is not None or custom is not None:
                    with transaction.atomic():
                        services.asset_update(asset=asset, actor=self.actor, data=changed, target=target,
                                              custom=custom)
                    status = "updated"
        except SERVICE_ERRORS as exc:
            record_failure(self.result, row.line, row.cells, self._problems(exc))
            return
        self.result.outcome(row.line, status, row.cells)

    def _update_plan(self, asset: Asset, row: _AssetRow) -> tuple[dict[str, Any], Any, Any]:
        """The fields the row changes, the user to check the asset out to (None: no checkout), and the custom
        values when one of them differs from the stored plaintext (None: no custom change)."""
        changed = {key: value for key, value in row.data.items() if differs(asset, key, value)}
        custom = row.custom
        if custom is not None:
            stored = custom_values.stored_rows(asset.pk)
            if not any(text != (custom_values.plain(field_, stored[field_.pk].value) if field_.pk in stored else None)
                       for field_, text in custom.values.values()):
                custom = None
        target = row.target
        if target is not None and asset.assigned_user_id == target.pk:
            target = None
        elif target is not None and asset.is_assigned:
            raise DjangoValidationError({"assigned_user": [
                "The asset is already checked out to someone else; check it in before importing a new holder."]})
        return changed, target, custom


def import_csv(kind: str, stream: IO[str] | IO[bytes], *, actor: User, update: bool = False,
               dry_run: bool = False, progress_stream: IO[str] | None = None,
               report: Callable[[int, int], None] | None = None) -> ImportResult:
    """Import one CSV file of ``kind`` (``asset``, ``accessory``, ``consumable``, ``component``, ``license``) as
    ``actor``. Raises ``csv_columns.CsvFileError`` when the file as a whole is unreadable (nothing written).
    ``report``: told (rows done, total) after every batch (``assetsvc.progress.Progress``)."""
    rows = read_csv(kind, stream, extra=custom_headers() if kind == "asset" else None)
    progress = Progress(len(rows.rows), verb="dry run" if dry_run else "imported", stream=progress_stream,
                        report=report)
    try:
        if kind == "asset":
            return AssetImporter(actor=actor, update=update, dry_run=dry_run, progress=progress).run(rows)
        return ItemImporter(ITEM_KINDS[kind], actor=actor, update=update, dry_run=dry_run,
                            progress=progress).run(rows)
    finally:
        progress.close()
