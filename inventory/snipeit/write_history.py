"""Writing Snipe-IT's files and action log (issue 31; docs/switching-from-snipe-it.md "Files and the action log").

Both come from ``/reports/activity`` and are the last two kinds written, so every record they name is already here
and its id is found through ``writing.id_map`` (Snipe-IT id → ours, from ``SnipeitRecord``).

**Files** (kind ``file``, one :class:`~activity.models.StoredFile` per ``uploaded`` row, its id kept: Snipe-IT's file
id is that log row's id). The bytes are downloaded through the run's :class:`SnipeitClient` (given by the importer:
:func:`inventory.snipeit.writing.source_client`) from the API route Snipe-IT serves a record's file at
(``hardware/{id}/file/{file_id}``), not from the row's ``url``: that is a web page of Snipe-IT's ``APP_URL`` that
wants a browser session, not a token. A file passes the checks an upload passes (``stored_file_check``: name, size,
a type that is allowed and that its content matches) and is stored as the upload service stores one (a generated
name in the ``files`` storage, the record's company as the file kind computes it), one file per transaction with
its ``SnipeitRecord``; the stored bytes are removed when that transaction fails. Files of deleted records come too
(a restore shows them again, as in Snipe-IT).

**The action log** (kind ``action``, one :class:`~activity.models.ActionLog` per row, ids kept) is written in
batches of :data:`BATCH`: one ``bulk_create`` of the rows, one update of their original ``created_at`` (which
``auto_now_add`` overrides on insert) and one ``bulk_create`` of their ``SnipeitRecord`` rows, in one transaction,
plus one query for ids already taken: a constant number of queries per batch, no signal, no notification. Every
reference is translated; ``company`` and ``target_company`` are computed as ``log_action`` computes them for a new
row (the item's company; for a maintenance its asset's; the target's company), so company separation holds for
the imported history. Decisions (docs/decisions.md "Issue 31: the imported action log"):

- a row whose item was not imported (purged in Snipe-IT, refused by our checks, or of a kind this service does
  not hold) is skipped and named: kept under Snipe-IT's id it would one day name another record (the sequence
  continues after the highest imported id); rows of records deleted in Snipe-IT are kept, their records are
  imported as deleted;
- an actor, target or location that was not imported is left out of the row (one note per kind of loss);
- an action type this service does not know is kept as Snipe-IT wrote it (the column is free text; the API shows it
  as it is), with a note counting them;
- a log id already taken here (a fresh install that signed someone in) is written under a new id after the rest.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.core.files.base import ContentFile
from django.db import connection, models, transaction

from activity.choices import ActionType
from activity.files import extension_of, file_kinds
from activity.models import ActionLog, StoredFile
from activity.services import UNRECORDED_SERIALS, files_storage, stored_file_check
from inventory.models import SnipeitRecord
from inventory.snipeit.client import SnipeitError, SnipeitRouteMissing
from inventory.snipeit.writing import (
    ID_TAKEN,
    REFUSED,
    KindSpec,
    id_map,
    refusal,
    sequence_advance,
    skip,
    source_client,
)

if TYPE_CHECKING:
    from inventory.models import SnipeitImport
    from inventory.snipeit.report import KindTally

logger = logging.getLogger("inventory.snipeit")

#: Log rows per transaction.
BATCH = 2000

#: Our ``item_type`` → (import kind, model label). Snipe-IT's ``Actionlog::itemType()`` is the camel-cased class name
#: (``customField``, ``predefinedKit``) or ``model``; :data:`TYPE_ALIASES` maps the names that differ from ours.
ITEM_KINDS: dict[str, tuple[str, str]] = {
    "asset": ("asset", "inventory.Asset"), "accessory": ("accessory", "inventory.Accessory"),
    "consumable": ("consumable", "inventory.Consumable"), "component": ("component", "inventory.Component"),
    "license": ("license", "inventory.License"), "user": ("user", "accounts.User"),
    "location": ("location", "inventory.Location"), "model": ("asset_model", "inventory.AssetModel"),
    "company": ("company", "companies.Company"), "department": ("department", "accounts.Department"),
    "manufacturer": ("manufacturer", "inventory.Manufacturer"), "supplier": ("supplier", "inventory.Supplier"),
    "category": ("category", "inventory.Category"), "statuslabel": ("status_label", "inventory.StatusLabel"),
    "depreciation": ("depreciation", "inventory.Depreciation"),
    "customfield": ("custom_field", "inventory.CustomField"),
    "customfieldset": ("fieldset", "inventory.CustomFieldset"),
    "maintenance": ("maintenance", "inventory.Maintenance"), "kit": ("kit", "inventory.Kit"),
    "group": ("group", "accounts.PermissionGroup"),
}
TYPE_ALIASES = {"assetmodel": "model", "predefinedkit": "kit", "assetmaintenance": "maintenance",
                "statuslabels": "statuslabel"}

#: Our file kind → Snipe-IT's API route of a record's files (``{route}/{id}/file/{file_id}``).
FILE_ROUTES = {"asset": "hardware", "user": "users", "accessory": "accessories", "consumable": "consumables",
               "component": "components", "license": "licenses", "model": "models", "location": "locations"}

#: Snipe-IT's action types (lower-cased by its transformer) → ours.
ACTION_TYPES = {value.lower(): value for value in ActionType.values}
ACTION_TYPE_MAX = ActionLog._meta.get_field("action_type").max_length

ITEM_NOT_KINDS = "Snipe-IT's item type {type!r} is not a kind of record this service holds"
ITEM_NOT_IMPORTED = "its {type} {id} was not imported (purged in Snipe-IT, or skipped above)"
NO_ITEM = "the row names no item"
TYPE_TOO_LONG = "its action type {action!r} is longer than {max} characters"
NO_CLIENT = "no Snipe-IT client to download it from"
DOWNLOAD_FAILED = "the download failed: {why}"
NOT_FOUND = "Snipe-IT has no such file (404)"
FILE_KIND_UNKNOWN = "files of a {type} are not kept by this service"
ACTOR_LOST = "{count} rows keep no actor: their user was not imported"
TARGET_LOST = "{count} rows keep no target: it was not imported ({types})"
LOCATION_LOST = "{count} rows keep no location: it was not imported"
UNKNOWN_TYPES = "kept with action types this service does not write itself: {types}"
NEW_IDS = "{count} rows are kept under new ids: their Snipe-IT ids were taken here"


def one_by_one_refused(row: dict[str, Any], actor: Any) -> models.Model:
    """``KindSpec.write`` of the two kinds written whole (``write_all``): never called."""
    raise NotImplementedError("files and log rows are written by write_files and write_actions")


def our_type(snipeit_type: str | None) -> str:
    """Our ``item_type`` for Snipe-IT's (``customField`` → ``customfield``, ``predefinedKit`` → ``kit``)."""
    name = (snipeit_type or "").replace("_", "").replace(" ", "").lower()
    return TYPE_ALIASES.get(name, name)


class References:
    """Snipe-IT id → our id per import kind, and our id → company per model, each loaded once when first asked (one
    query per kind for the whole run), so a batch costs no query to translate."""

    def __init__(self) -> None:
        self._ids: dict[str, dict[int, int]] = {}
        self._companies: dict[str, dict[int, int | None]] = {}

    def ours(self, kind: str, snipeit_id: Any) -> int | None:
        if kind not in self._ids:
            self._ids[kind] = id_map(kind)
        return self._ids[kind].get(snipeit_id) if snipeit_id is not None else None

    def company(self, item_type: str, our_id: int | None) -> int | None:
        """The company of our record ``our_id`` of ``item_type`` (deleted records too), None for kinds without."""
        if our_id is None or item_type not in ITEM_KINDS:
            return None
        if item_type not in self._companies:
            model = apps.get_model(ITEM_KINDS[item_type][1])
            field = "pk" if item_type == "company" else _company_field(model)
            self._companies[item_type] = (dict(model._base_manager.values_list("pk", field)) if field else {})
        return self._companies[item_type].get(our_id)


def _company_field(model: type[models.Model]) -> str | None:
    names = {f.name for f in model._meta.concrete_fields}
    return "company_id" if "company" in names else None


# --- files --------------------------------------------------------------------------------------------------------


def write_files(run: SnipeitImport, kind: str, rows: Iterable[dict[str, Any]], tally: KindTally) -> None:
    """Each ``uploaded`` row's file: downloaded, checked and stored on our record of its item, with its
    ``SnipeitRecord``, one file per transaction (see the module docstring)."""
    done = set(SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", flat=True))
    refs = References()
    client = source_client()
    for row in rows:
        if row["id"] in done:
            tally.resumed += 1
            continue
        why = _write_file(run, kind, row, refs, client)
        if why:
            skip(tally, kind, row, why)
            continue
        done.add(row["id"])
        tally.imported += 1


def _write_file(run: SnipeitImport, kind: str, row: dict[str, Any], refs: References, client: Any) -> str | None:
    """Store one file; answers why not when it is skipped."""
    item_type = our_type(row.get("item_type"))
    file_kind = file_kinds().get(item_type)
    if file_kind is None or item_type not in FILE_ROUTES:
        return FILE_KIND_UNKNOWN.format(type=row.get("item_type") or "?")
    item_id = refs.ours(ITEM_KINDS[item_type][0], row.get("item_id"))
    if item_id is None:
        return ITEM_NOT_IMPORTED.format(type=item_type, id=row.get("item_id"))
    holder = StoredFile.objects.filter(pk=row["id"]).first()
    if holder is not None:
        return ID_TAKEN.format(id=row["id"], what=str(holder))
    if client is None:
        return NO_CLIENT
    try:
        content = client.download(f"{FILE_ROUTES[item_type]}/{row['item_id']}/file/{row['id']}")
    except SnipeitRouteMissing:
        return NOT_FOUND
    except SnipeitError as exc:  # its message never holds the token
        return DOWNLOAD_FAILED.format(why=exc)
    upload = ContentFile(content, name=row.get("filename") or "")
    try:
        name, content_type = stored_file_check(upload)
    except REFUSED as exc:
        return refusal(exc)
    record = apps.get_model(file_kind.model_label)._base_manager.filter(pk=item_id).first()
    if record is None:
        return ITEM_NOT_IMPORTED.format(type=item_type, id=row.get("item_id"))
    storage = files_storage()
    stored = storage.save(f"{file_kind.name}/{record.pk}/{uuid.uuid4().hex}.{extension_of(name)}", upload)
    try:
        with transaction.atomic():
            created = {"created_at": row["created_at"], "updated_at": row["created_at"]} if row.get("created_at") \
                else {}
            StoredFile.objects.create(pk=row["id"], item_type=file_kind.name, item_id=record.pk,
                                      company_id=file_kind.company_of(record), filename=name, storage_name=stored,
                                      content_type=content_type, size=upload.size, note=row.get("note") or "",
                                      created_by_id=refs.ours("user", row.get("created_by_id")))
            if created:  # auto_now_add wrote now
                StoredFile.objects.filter(pk=row["id"]).update(**created)
            SnipeitRecord.objects.create(run=run, kind=kind, snipeit_id=row["id"], our_id=row["id"])
    except BaseException:
        storage.delete(stored)
        raise
    return None


# --- the action log -----------------------------------------------------------------------------------------------


class _Losses:
    """What rows lost on the way (notes once per run, not one line per row)."""

    def __init__(self) -> None:
        self.actors = self.locations = self.new_ids = 0
        self.targets: Counter[str] = Counter()
        self.unknown_types: Counter[str] = Counter()

    def notes(self) -> list[str]:
        notes = []
        if self.actors:
            notes.append(ACTOR_LOST.format(count=self.actors))
        if self.targets:
            notes.append(TARGET_LOST.format(count=sum(self.targets.values()),
                                            types=", ".join(f"{t}: {n}" for t, n in sorted(self.targets.items()))))
        if self.locations:
            notes.append(LOCATION_LOST.format(count=self.locations))
        if self.unknown_types:
            notes.append(UNKNOWN_TYPES.format(types=", ".join(f"{t!r} ({n})"
                                                              for t, n in sorted(self.unknown_types.items()))))
        if self.new_ids:
            notes.append(NEW_IDS.format(count=self.new_ids))
        return notes


def write_actions(run: SnipeitImport, kind: str, rows: Iterable[dict[str, Any]], tally: KindTally) -> None:
    """Every log row, in batches of :data:`BATCH` (see the module docstring); rows an earlier run wrote are counted as
    resumed and left alone."""
    done = set(SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", flat=True))
    refs, losses = References(), _Losses()
    batch: list[ActionLog] = []
    moved: list[ActionLog] = []  # rows whose id is taken here: written last, under new ids
    for row in rows:
        if row["id"] in done:
            tally.resumed += 1
            continue
        done.add(row["id"])
        log = _action(row, refs, losses)
        if isinstance(log, str):
            skip(tally, kind, row, log)
            continue
        batch.append(log)
        if len(batch) >= BATCH:
            moved += _write_batch(run, kind, batch, tally)
            batch = []
    if batch:
        moved += _write_batch(run, kind, batch, tally)
    if moved:
        sequence_advance(ActionLog)  # the new ids come after every kept one
        losses.new_ids = len(moved)
        for start in range(0, len(moved), BATCH):
            _write_batch(run, kind, moved[start:start + BATCH], tally, new_ids=True)
    tally.notes.extend(losses.notes())


def _write_batch(run: SnipeitImport, kind: str, logs: list[ActionLog], tally: KindTally, *,
                 new_ids: bool = False) -> list[ActionLog]:
    """One transaction: the rows whose ids are free here, their original dates, their ``SnipeitRecord`` rows.
    Answers the rows left out because their id is taken (with ``new_ids`` every row gets a new id instead)."""
    with transaction.atomic():
        if new_ids:
            taken: set[int] = set()
            for log in logs:
                log.pk = None
        else:
            taken = set(ActionLog.objects.filter(pk__in=[log.pk for log in logs]).values_list("pk", flat=True))
            for log in logs:
                log.snipeit_id = log.pk
        written = [log for log in logs if log.snipeit_id not in taken]
        stamps = [(log.created_at, log.updated_at) for log in written]
        ActionLog.objects.bulk_create(written)
        for log, (created_at, updated_at) in zip(written, stamps, strict=True):  # auto_now(_add) wrote now
            log.created_at, log.updated_at = created_at, updated_at
        _restamp(written)
        SnipeitRecord.objects.bulk_create([SnipeitRecord(run=run, kind=kind, snipeit_id=log.snipeit_id,
                                                         our_id=log.pk) for log in written])
    tally.imported += len(written)
    return [log for log in logs if log.snipeit_id in taken]


def _restamp(logs: list[ActionLog]) -> None:
    """Give inserted rows their original ``created_at`` / ``updated_at`` (``auto_now_add`` / ``auto_now`` wrote now on
    insert): on PostgreSQL one ``UPDATE … FROM unnest(…)`` (a hash join; ``bulk_update``'s ``CASE`` per row made 200,000
    rows take minutes), elsewhere ``bulk_update``."""
    if connection.vendor != "postgresql":
        ActionLog.objects.bulk_update(logs, ["created_at", "updated_at"], batch_size=500)
        return
    table = connection.ops.quote_name(ActionLog._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS log SET created_at = stamp.created_at, updated_at = stamp.updated_at "
            "FROM unnest(%s::bigint[], %s::timestamptz[], %s::timestamptz[]) AS stamp(id, created_at, updated_at) "
            "WHERE log.id = stamp.id",
            [[log.pk for log in logs], [log.created_at for log in logs], [log.updated_at for log in logs]])


def _action(row: dict[str, Any], refs: References, losses: _Losses) -> ActionLog | str:
    """Our row for Snipe-IT's ``row``, or why it is skipped."""
    action_type = str(row.get("action_type") or "")
    ours = ACTION_TYPES.get(action_type.lower())
    if ours is None:
        if len(action_type) > ACTION_TYPE_MAX:
            return TYPE_TOO_LONG.format(action=action_type[:60], max=ACTION_TYPE_MAX)
        losses.unknown_types[action_type] += 1
        ours = action_type
    item_type = our_type(row.get("item_type"))
    if row.get("item_id") is None:
        return NO_ITEM
    if item_type not in ITEM_KINDS:
        return ITEM_NOT_KINDS.format(type=row.get("item_type") or "")
    item_id = refs.ours(ITEM_KINDS[item_type][0], row["item_id"])
    if item_id is None:
        return ITEM_NOT_IMPORTED.format(type=item_type, id=row["item_id"])
    target_type, target_id = our_type(row.get("target_type")), None
    if row.get("target_id") is not None:
        if target_type in ITEM_KINDS:
            target_id = refs.ours(ITEM_KINDS[target_type][0], row["target_id"])
        if target_id is None:
            losses.targets[target_type or "?"] += 1
    if target_id is None:
        target_type = ""
    created_by = refs.ours("user", row.get("created_by_id"))
    if created_by is None and row.get("created_by_id") is not None:
        losses.actors += 1
    location = refs.ours("location", row.get("location_id"))
    if location is None and row.get("location_id") is not None:
        losses.locations += 1
    company = refs.company(item_type, item_id)
    target_company = refs.company(target_type, target_id) if target_type in ("user", "asset", "location") else None
    if item_type == "maintenance" and target_type == "asset":
        company = target_company
    log_meta = row.get("log_meta") or None
    if row.get("filename"):
        file_id = refs.ours("file", row["id"])
        log_meta = {**(log_meta or {}), "filename": row["filename"], **({"file_id": file_id} if file_id else {})}
    action_date = row.get("action_date") or row.get("created_at")
    created_at = row.get("created_at") or action_date
    return ActionLog(
        pk=row["id"], action_type=ours, created_by_id=created_by, item_type=item_type, item_id=item_id,
        item_name=_cut(row.get("item_name"), 255),
        item_serial=None if item_type in UNRECORDED_SERIALS else _cut(row.get("item_serial"), 255),
        target_type=target_type, target_id=target_id, target_company_id=target_company, location_id=location,
        company_id=company, note=row.get("note") or "", log_meta=log_meta, action_date=action_date,
        action_source=_cut(row.get("action_source"), 16) or "", remote_ip=_cut(row.get("remote_ip"), 64) or "",
        user_agent=_cut(row.get("user_agent"), 255) or "", created_at=created_at, updated_at=created_at,
    )


def _cut(value: Any, length: int) -> str | None:
    return None if value in (None, "") else str(value)[:length]



#: How ``importer.KINDS`` and ``importer.KIND_FIELDS`` name these two kinds (the last ones written).
FILE_KIND = KindSpec(StoredFile, one_by_one_refused, write_all=write_files)
ACTION_KIND = KindSpec(ActionLog, one_by_one_refused, write_all=write_actions)
FILE_FIELDS = ("id", "item_type", "item_id", "filename", "url", "note", "created_by_id", "created_at")
ACTION_FIELDS = ("id", "action_type", "created_by_id", "item_type", "item_id", "item_name", "item_serial",
                 "target_type", "target_id", "location_id", "note", "log_meta", "action_date", "action_source",
                 "remote_ip", "user_agent", "filename", "created_at")
