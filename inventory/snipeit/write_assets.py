"""Writing Snipe-IT's assets (issue 31; docs/switching-from-snipe-it.md "Assets"), in batches.

100,000 assets must come over in minutes, so they do not go one by one through ``asset_create``: each batch of
:data:`BATCH_SIZE` rows is checked the way ``asset_create`` checks one asset, in a fixed number of queries, and
written with ``bulk_create`` together with its custom values and its ``SnipeitRecord`` rows in one transaction:

* the tag: required, stored as ``normalize_tag`` makes it, its key (``tag_key``, what ``asset_create`` stores in
  ``asset_tag_key``) unique among live assets, the batch's own rows included; the serial likewise when
  ``unique_serial`` is on; a tag of the auto-increment form moves the counter on, as ``asset_create`` does;
* the row-local checks of ``Asset.full_clean`` (lengths, purchase cost and warranty limits);
* references through the import's id maps (``writing.id_map``): a model, status label or company that was not
  imported refuses the asset; a supplier, location, default location or checkout target that was not imported is
  left out and the report says so;
* custom values read by ``custom_values.read_input`` against the model's fieldset (formats, lengths), unique values
  judged for the batch in one query and stored by ``custom_values.batch`` (encrypted fields encrypted). A value our
  checks refuse is left out (named in the report) rather than the whole asset.

The asset is written as Snipe-IT has it now, not replayed: its current checkout (user, asset or location, with the
checkout date and expected checkin), last checkin, audit dates, counters, ``location`` as Snipe-IT reports it,
``created_at``/``updated_at`` and ``deleted_at``. No action-log row and no signal: the history comes from Snipe-IT's
own log. A checkout to an asset not written yet (a later row, ids in any order) is set by :func:`_link_assets`
once every batch is in, a plain column write that ``--resume`` repeats safely.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models.functions import Lower
from django.utils import timezone

from assetsvc.site import get_site_settings
from inventory import custom_values
from inventory.custom_values import batch as value_batch
from inventory.models import Asset, AssetModel, CustomField, SnipeitRecord
from inventory.services import assets as services
from inventory.snipeit.kinds import KINDS_BY_NAME
from inventory.snipeit.writing import ID_TAKEN, chunks, clean, id_map, refusal, skip
from inventory.tags import normalize_tag, tag_key

if TYPE_CHECKING:
    from inventory.models import SnipeitImport
    from inventory.snipeit.report import KindTally

#: Rows per transaction.
BATCH_SIZE = 1000
#: The reader's keys this writer takes (``importer.KIND_FIELDS["asset"]``).
ASSET_FIELDS = ("id", "name", "asset_tag", "serial", "model_id", "status_id", "company_id", "supplier_id",
                "location_id", "rtd_location_id", "assigned_user_id", "assigned_asset_id", "assigned_location_id",
                "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod", "requestable",
                "last_checkout", "last_checkin", "expected_checkin", "last_audit_date", "next_audit_date",
                "checkin_counter", "checkout_counter", "requests_counter", "deleted_at", "custom_values",
                "created_by_id", "created_at", "updated_at")
SCALARS = ("name", "serial", "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod",
           "requestable", "last_checkout", "last_checkin", "expected_checkin", "last_audit_date", "next_audit_date",
           "checkin_counter", "checkout_counter", "requests_counter", "deleted_at")
#: Reference → (the kind whose id map translates it, whether an unknown one refuses the asset).
REFERENCES = {"model_id": ("asset_model", True), "status_id": ("status_label", True),
              "company_id": ("company", True), "supplier_id": ("supplier", False),
              "location_id": ("location", False), "rtd_location_id": ("location", False)}
TARGETS = {"assigned_user_id": "user", "assigned_asset_id": "asset", "assigned_location_id": "location"}
FOREIGN_KEYS = ("model", "status", "company", "supplier", "location", "rtd_location", "assigned_user",
                "assigned_asset", "assigned_location")

INVALID = "The selected {name} id is invalid."
NOT_IMPORTED = "{kind} {id} is not imported"
WITHOUT = "{label} imported without {what}: {why}"
TAG_IN_BATCH = f"{services.TAG_TAKEN} Asset {{other}} has the same tag."
SERIAL_IN_BATCH = f"{services.SERIAL_TAKEN} Asset {{other}} has the same serial."
LOOP = "asset {target} is checked out to it (directly or through other assets)"
MAX_CHAIN = services.MAX_ASSIGNMENT_DEPTH


@dataclass
class _Maps:
    """What every batch looks up, read once: the id maps of the kinds assets refer to, each model's fieldset, each
    fieldset's fields, and the checkouts to assets seen so far (for the loop check)."""

    refs: dict[str, dict[int, int]]
    fieldsets: dict[int, int | None]
    slots: dict[int, list[custom_values.Slot]]
    known_columns: set[str]
    #: The tag keys and (lower-case) serials of live assets, read once and kept up to date: a query per batch would
    #: meet a table growing faster than PostgreSQL's statistics (a scan per batch, quadratic at 100,000 assets).
    #: A writer outside the import taking a tag meanwhile meets the constraint (``_write_batch``'s fallback).
    tag_keys: set[str] = field(default_factory=set)
    serials: set[str] = field(default_factory=set)
    parents: dict[int, int] = field(default_factory=dict)

    @classmethod
    def load(cls) -> _Maps:
        refs = {kind: id_map(kind) for kind in {"asset_model", "status_label", "company", "supplier", "location",
                                                "user", "asset"}}
        fieldsets = dict(AssetModel.objects.values_list("pk", "fieldset_id"))
        live = Asset.objects.alive().annotate(low=Lower("asset_tag"), low_serial=Lower("serial")).order_by()
        tags = list(live.values_list("asset_tag_key", "low", "low_serial"))
        return cls(refs=refs, fieldsets=fieldsets,
                   slots=custom_values.fieldset_slots(pk for pk in fieldsets.values() if pk is not None),
                   known_columns=set(CustomField.objects.values_list("db_column_name", flat=True)),
                   tag_keys={key or tag_key(low) for key, low, _ in tags},  # tag_matches: rows kept without a key
                   serials={serial for _, _, serial in tags if serial})

    def loops(self, child: int, target: int) -> bool:
        """Whether checking Snipe-IT asset ``child`` out to asset ``target`` closes a loop."""
        current = target
        for _ in range(MAX_CHAIN):
            if current == child:
                return True
            current = self.parents.get(current)
            if current is None:
                return False
        return True


@dataclass
class _Planned:
    row: dict[str, Any]
    asset: Asset
    custom: custom_values.CustomInput | None = None
    notes: list[str] = field(default_factory=list)


def write_assets(run: SnipeitImport, kind: str, rows: Iterable[dict[str, Any]], tally: KindTally) -> None:
    """``KindSpec.write_all`` of assets: every row in batches (module docstring); rows an earlier run wrote are
    counted as resumed, then checkouts to assets written after their holder are set."""
    maps = _Maps.load()
    done = set(maps.refs["asset"])
    links: dict[int, int] = {}  # Snipe-IT asset → the Snipe-IT asset it is checked out to, set afterwards
    for chunk in chunks(rows, BATCH_SIZE):
        fresh = []
        for row in chunk:
            if row["id"] in done:
                tally.resumed += 1
                if row.get("assigned_asset_id") is not None:
                    links[row["id"]] = maps.parents[row["id"]] = row["assigned_asset_id"]
            else:
                fresh.append(row)
        if fresh:
            _write_batch(run, kind, fresh, maps, tally, links)
    _link_assets(kind, links, maps, tally)


# --- checking a batch ---------------------------------------------------------------------------------------------


def _write_batch(run: SnipeitImport, kind: str, rows: list[dict[str, Any]], maps: _Maps, tally: KindTally,
                 links: dict[int, int]) -> None:
    site = get_site_settings()
    label = KINDS_BY_NAME[kind].label
    taken_ids = dict(Asset.objects.filter(pk__in=[row["id"] for row in rows]).values_list("pk", "asset_tag"))
    tags = {row["id"]: normalize_tag(str(row.get("asset_tag") or "")) for row in rows}
    held_keys, held_serials = maps.tag_keys, maps.serials
    batch_tags: dict[str, int] = {}
    batch_serials: dict[str, int] = {}
    planned: list[_Planned] = []
    for row in rows:
        if row["id"] in taken_ids:
            skip(tally, kind, row, ID_TAKEN.format(id=row["id"], what=f"asset {taken_ids[row['id']]}"))
            continue
        try:
            plan = _plan(row, tags[row["id"]], maps, links, label(row))
            live = plan.asset.deleted_at is None
            key = plan.asset.asset_tag_key
            if live and (key in held_keys or key in batch_tags):
                raise ValidationError({"asset_tag": [TAG_IN_BATCH.format(other=batch_tags[key])
                                                     if key in batch_tags else services.TAG_TAKEN]})
            serial = plan.asset.serial.lower()
            if live and site.unique_serial and serial and (serial in held_serials or serial in batch_serials):
                raise ValidationError({"serial": [SERIAL_IN_BATCH.format(other=batch_serials[serial])
                                                  if serial in batch_serials else services.SERIAL_TAKEN]})
        except ValidationError as exc:
            skip(tally, kind, row, refusal(exc))
            continue
        if live:
            batch_tags[key] = row["id"]
            if site.unique_serial and serial:
                batch_serials[serial] = row["id"]
        planned.append(plan)
    writes = _plan_values(planned, tally, kind)
    try:
        with transaction.atomic():
            _store(run, kind, planned, writes, site)
    except IntegrityError:  # a writer outside the import took a tag or value meanwhile: row by row, as refusals
        for plan in planned:
            try:
                with transaction.atomic():
                    _store(run, kind, [plan], _plan_values([plan], tally, kind), site)
            except IntegrityError as exc:
                skip(tally, kind, plan.row, services.TAG_TAKEN if "asset_tag" in str(exc) else str(exc))
                continue
            _done(plan, maps, tally)
        return
    for plan in planned:
        _done(plan, maps, tally)


def _done(plan: _Planned, maps: _Maps, tally: KindTally) -> None:
    maps.refs["asset"][plan.row["id"]] = plan.asset.pk
    if plan.asset.deleted_at is None:
        maps.tag_keys.add(plan.asset.asset_tag_key)
        if plan.asset.serial:
            maps.serials.add(plan.asset.serial.lower())
    tally.imported += 1
    tally.notes.extend(plan.notes)


def _plan(row: dict[str, Any], tag: str, maps: _Maps, links: dict[int, int], label: str) -> _Planned:
    """The asset of ``row`` as ``asset_create`` would build it, its state as Snipe-IT has it; ``ValidationError``
    when our checks refuse it."""
    if not tag:
        raise ValidationError({"asset_tag": ["The asset tag field is required."]})
    notes: list[str] = []
    data: dict[str, Any] = {name: row.get(name) for name in SCALARS if name in row}
    for name in ("name", "serial", "notes", "order_number"):
        data[name] = data.get(name) or ""
    for name in ("checkin_counter", "checkout_counter", "requests_counter"):
        data[name] = data.get(name) or 0
    errors: dict[str, list[str]] = {}
    for name, (ref_kind, required) in REFERENCES.items():
        ref = row.get(name)
        if ref is None:
            if required and name != "company_id":
                errors[name] = [f"The {name[:-3].replace('_', ' ')} field is required."]
            data[name] = None
        elif ref in maps.refs[ref_kind]:
            data[name] = maps.refs[ref_kind][ref]
        elif required:
            errors[name] = [INVALID.format(name=name[:-3].replace("_", " "))]
        else:
            data[name] = None
            notes.append(WITHOUT.format(label=label, what=name, why=NOT_IMPORTED.format(
                kind=ref_kind.replace("_", " "), id=ref)))
    if errors:
        raise ValidationError(errors)
    _target(row, data, maps, links, label, notes)
    created = row.get("created_at") or timezone.now()
    asset = Asset(pk=row["id"], asset_tag=tag, asset_tag_key=tag_key(tag), created_at=created,
                  updated_at=row.get("updated_at") or created,
                  created_by_id=maps.refs["user"].get(row.get("created_by_id")), **data)
    clean(asset, exclude=FOREIGN_KEYS)
    plan = _Planned(row=row, asset=asset, notes=notes)
    plan.custom = _custom(row, asset, maps, label, notes)
    return plan


def _target(row: dict[str, Any], data: dict[str, Any], maps: _Maps, links: dict[int, int], label: str,
            notes: list[str]) -> None:
    """The current checkout: a user or location must be imported; an asset not written yet is linked afterwards
    (``links``), one whose chain leads back to this asset is left out."""
    for name, ref_kind in TARGETS.items():
        data[name] = None
        ref = row.get(name)
        if ref is None:
            continue
        if ref_kind == "asset":
            if ref == row["id"] or maps.loops(row["id"], ref):
                notes.append(WITHOUT.format(label=label, what="its checkout", why=LOOP.format(target=ref)))
            elif ref in maps.refs["asset"]:
                data[name] = maps.refs["asset"][ref]
                maps.parents[row["id"]] = ref
            else:
                links[row["id"]] = ref
        elif ref in maps.refs[ref_kind]:
            data[name] = maps.refs[ref_kind][ref]
        else:
            notes.append(WITHOUT.format(label=label, what="its checkout", why=NOT_IMPORTED.format(kind=ref_kind,
                                                                                                 id=ref)))


def _custom(row: dict[str, Any], asset: Asset, maps: _Maps, label: str,
            notes: list[str]) -> custom_values.CustomInput | None:
    """The custom values, read against the model's fieldset with the API's checks; a refused value is left out."""
    values = row.get("custom_values") or {}
    slots = maps.slots.get(maps.fieldsets.get(asset.model_id), [])
    if not values:
        return None
    custom = custom_values.read_input(values, slots=slots, may_write_encrypted=True, known=maps.known_columns,
                                      check_unique=False)
    for column, texts in custom.errors.items():
        notes.append(WITHOUT.format(label=label, what=column, why=" ".join(str(text) for text in texts)))
    custom.errors = {}
    return custom if custom.values else None


def _plan_values(planned: list[_Planned], tally: KindTally, kind: str) -> value_batch.ValueWrites:
    """The batch's value rows (``value_batch.plan_values``); a unique value another asset holds is left out of the
    asset that comes later, with a note."""
    holders = value_batch.unique_holders(plan.custom for plan in planned)
    writes = value_batch.ValueWrites()
    for plan in planned:
        if plan.custom is None:
            continue
        owner = SimpleNamespace(pk=plan.asset.pk, deleted_at=plan.asset.deleted_at, company_id=plan.asset.company_id)
        try:
            value_batch.plan_values(owner, plan.custom, {}, writes, holders)
        except ValidationError as exc:
            refused = set(exc.message_dict)
            label = KINDS_BY_NAME[kind].label(plan.row)
            for column, texts in exc.message_dict.items():
                plan.notes.append(WITHOUT.format(label=label, what=column, why=" ".join(texts)))
            plan.custom.values = {pk: value for pk, value in plan.custom.values.items()
                                  if value[0].db_column_name not in refused}
            value_batch.plan_values(owner, plan.custom, {}, writes, holders)
    return writes


# --- writing a batch ----------------------------------------------------------------------------------------------


def _store(run: SnipeitImport, kind: str, planned: list[_Planned], writes: value_batch.ValueWrites,
           site: Any) -> None:
    """The batch's assets, their kept timestamps, custom values and id map rows: five statements at most."""
    if not planned:
        return
    if site.auto_increment_assets:
        _bump_counter([plan.asset.asset_tag for plan in planned], site)
    assets = [plan.asset for plan in planned]
    stamps = [(asset.pk, asset.created_at, asset.updated_at) for asset in assets]
    Asset.objects.bulk_create(assets)
    _keep_stamps(stamps)
    value_batch.apply_writes(writes)
    SnipeitRecord.objects.bulk_create(SnipeitRecord(run=run, kind=kind, snipeit_id=plan.row["id"],
                                                    our_id=plan.asset.pk) for plan in planned)


def _keep_stamps(stamps: list[tuple[int, datetime, datetime]]) -> None:
    """Snipe-IT's ``created_at``/``updated_at`` again (``bulk_create`` stamps "now": the fields are ``auto_now``), in
    one ``UPDATE ... FROM (VALUES ...)``, which PostgreSQL and SQLite (3.33+) both run; ``bulk_update``'s ``CASE``
    costs as much as the insert itself."""
    ops = connection.ops
    table, quote = Asset._meta.db_table, ops.quote_name
    params = [value for pk, created, updated in stamps
              for value in (pk, ops.adapt_datetimefield_value(created), ops.adapt_datetimefield_value(updated))]
    cast = "::timestamptz" if connection.vendor == "postgresql" else ""
    rows = ", ".join([f"(%s, %s{cast}, %s{cast})"] * len(stamps))
    with connection.cursor() as cursor:
        cursor.execute(f"WITH stamps (id, created, updated) AS (VALUES {rows}) UPDATE {quote(table)} SET "
                       f"created_at = stamps.created, updated_at = stamps.updated FROM stamps "
                       f"WHERE {quote(table)}.id = stamps.id", params)


def _bump_counter(tags: list[str], site: Any) -> None:
    """``asset_create``'s rule for a batch: a tag of the auto-increment form moves the counter past it."""
    prefix = site.auto_increment_prefix.lower()
    numbered = [tag for tag in tags if tag.lower().startswith(prefix) and tag[len(prefix):].isdigit()
                and len(tag) - len(prefix) <= 18]
    if numbered:
        services._bump_auto_tag_base(services._locked_site_settings(),
                                     max(numbered, key=lambda tag: int(tag[len(prefix):])))


def _link_assets(kind: str, links: dict[int, int], maps: _Maps, tally: KindTally) -> None:
    """Checkouts to an asset that was written after its holder, and those of rows an earlier run wrote (``--resume``
    after a stop between a batch and this step): set on assets not checked out yet, a batch at a time."""
    ids = list(links)
    for start in range(0, len(ids), BATCH_SIZE):
        chunk = {maps.refs["asset"][i]: i for i in ids[start:start + BATCH_SIZE] if i in maps.refs["asset"]}
        free = Asset.objects.filter(pk__in=list(chunk), assigned_user__isnull=True, assigned_asset__isnull=True,
                                    assigned_location__isnull=True).only("pk").in_bulk()
        linked = []
        for our_id, snipeit_id in chunk.items():  # in the order read: of two in a loop, the first keeps its checkout
            asset = free.get(our_id)
            if asset is None:
                continue
            target = links[snipeit_id]
            label = f"asset {snipeit_id}"
            if target not in maps.refs["asset"]:
                tally.notes.append(WITHOUT.format(label=label, what="its checkout",
                                                  why=NOT_IMPORTED.format(kind="asset", id=target)))
            elif maps.loops(snipeit_id, target):
                tally.notes.append(WITHOUT.format(label=label, what="its checkout", why=LOOP.format(target=target)))
            else:
                maps.parents[snipeit_id] = target
                asset.assigned_asset_id = maps.refs["asset"][target]
                linked.append(asset)
        if linked:
            with transaction.atomic():
                Asset.objects.bulk_update(linked, ["assigned_asset"])

