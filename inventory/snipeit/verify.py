"""``import_snipeit --verify``: read Snipe-IT again and compare every imported record with ours, field by field
(issue 31; docs/switching-from-snipe-it.md "Verifying").

Generic, so a kind the importer learns is verified as soon as it is in ``importer.KINDS``: for each kind, the fields
its writer takes (``importer.KIND_FIELDS``) are compared with the attributes of our row of the same name, found
through ``SnipeitRecord`` (kind + Snipe-IT id → our id); a reference (``company_id``) is compared in Snipe-IT's ids,
ours translated back through the id map, so a merged record whose ids changed compares equal. What is not a plain
attribute has an entry in :data:`SPECIAL` (a user's groups, a fieldset's members, an asset's custom values, a file's
bytes); a field or sub-list without one is named in a note as not compared, never silently passed.

Nothing is written. A difference the import already reported (a field our checks refused and the record was imported
without, a manager not kept, a record skipped with why) is listed as *known*, not as a difference: the import said
so when it ran. Everything else (a field that differs, a record missing here, a record here that Snipe-IT no longer
has) is a difference, and the command exits non-zero.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import IO, TYPE_CHECKING, Any

from django.db import models

from inventory.models import AssetFieldValue, CustomFieldsetField, SnipeitImport, SnipeitRecord
from inventory.snipeit.importer import KIND_FIELDS, KINDS
from inventory.snipeit.kinds import KINDS_BY_NAME
from inventory.snipeit.reading import read_kind
from inventory.snipeit.report import FIRST_IDS, ImportReport
from inventory.snipeit.write_history import FILE_ROUTES, ITEM_KINDS, our_type
from inventory.snipeit.writing import chunks

if TYPE_CHECKING:
    from inventory.snipeit.client import SnipeitClient
    from inventory.snipeit.kinds import ReadContext

#: Records compared per query of ours.
BATCH = 500

#: Fields never compared: values Snipe-IT's API renders as 0 or computes (counts), and keys that are not data.
NOT_COMPARED: dict[str, frozenset[str]] = {
    "asset": frozenset({"requests_counter"}),  # always 0 in Snipe-IT's API (AssetsTransformer)
}


@dataclass
class Difference:
    kind: str
    snipeit_id: Any
    field: str
    theirs: Any
    ours: Any


@dataclass
class KindCheck:
    compared: int = 0
    equal: int = 0
    differing: int = 0
    missing: int = 0
    known: int = 0


@dataclass
class VerifyReport:
    """Per kind: compared, equal, differing, missing here; each difference named; known differences apart."""

    kinds: dict[str, KindCheck] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    missing: list[tuple[str, Any, str]] = field(default_factory=list)  # kind, Snipe-IT id, label
    gone: list[tuple[str, Any, Any]] = field(default_factory=list)  # kind, Snipe-IT id, our id: not in Snipe-IT now
    known: dict[tuple[str, str], list[tuple[Any, str]]] = field(default_factory=dict)  # (kind, what) → (id, line)
    notes: list[str] = field(default_factory=list)
    read: ImportReport = field(default_factory=ImportReport)

    @property
    def failed(self) -> bool:
        return bool(self.differences or self.missing or self.gone)

    def known_difference(self, kind: str, snipeit_id: Any, what: str, line: str) -> None:
        """A difference the import reported; printed grouped by (kind, what) so 30,000 of them stay one line."""
        self.known.setdefault((kind, what), []).append((snipeit_id, line))

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def render(self) -> str:
        width = max([len(name) for name in self.kinds] + [4])
        lines = [f"{'kind':<{width}}  {'compared':>8}  {'equal':>8}  {'differing':>9}  {'missing':>8}  {'known':>6}"]
        lines += [f"{name:<{width}}  {c.compared:>8}  {c.equal:>8}  {c.differing:>9}  {c.missing:>8}  {c.known:>6}"
                  for name, c in self.kinds.items()]
        if self.differences:
            lines += ["", "Differences (kind, Snipe-IT id, field: Snipe-IT's value / ours):"]
            lines += [f"  {d.kind} {d.snipeit_id} {d.field}: {d.theirs!r} / {d.ours!r}" for d in self.differences]
        if self.missing:
            lines += ["", "In Snipe-IT, missing here:"] + [f"  {label}" for _kind, _id, label in self.missing]
        if self.gone:
            lines += ["", "Imported, no longer in Snipe-IT:"]
            lines += [f"  {kind} {snipeit_id} (ours: {our_id})" for kind, snipeit_id, our_id in self.gone]
        if self.known:
            lines += ["", "Known differences (reported by the import):"]
            for (kind, what), found in self.known.items():
                if len(found) == 1:
                    lines.append(f"  {found[0][1]}")
                    continue
                ids = ", ".join(str(snipeit_id) for snipeit_id, _line in found[:FIRST_IDS])
                more = f" and {len(found) - FIRST_IDS:,} more" if len(found) > FIRST_IDS else ""
                lines.append(f"  {kind}: {len(found):,} records, {what}: ids {ids}{more}")
        skipped = [(name, s) for name, tally in self.read.kinds.items() for s in tally.skipped]
        notes = [*self.notes, *(f"{name}: not readable, not compared: {s.name}: {s.why}" for name, s in skipped)]
        if notes:
            lines += [""] + [f"Note: {note}" for note in notes]
        lines += ["", "No difference." if not self.failed else
                  f"{len(self.differences)} differing fields, {len(self.missing)} records missing here, "
                  f"{len(self.gone)} no longer in Snipe-IT."]
        return "\n".join(lines) + "\n"


# --- values -------------------------------------------------------------------------------------------------------


def same(value: Any) -> Any:
    """A value as both sides compare it: Snipe-IT's NULL strings are our empty ones, datetimes are instants (a naive
    one is UTC), numbers compare as numbers, line ends are ``\\n``, permission grants are integers."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return value
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, (float, Decimal)):
        return Decimal(str(value)).normalize()
    if isinstance(value, dict):
        return {str(key): same(item) for key, item in value.items()}
    if isinstance(value, str):
        return value.replace("\r\n", "\n")
    return value


@dataclass
class Maps:
    """The id maps of every kind (Snipe-IT → ours) and back, loaded once."""

    forward: dict[str, dict[int, int]] = field(default_factory=dict)
    back: dict[str, dict[int, int]] = field(default_factory=dict)

    def load(self, kind: str) -> None:
        pairs = SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", "our_id")
        self.forward[kind] = dict(pairs)
        self.back[kind] = {ours: theirs for theirs, ours in self.forward[kind].items()}

    def theirs_of(self, kind: str | None, our_id: Any) -> Any:
        """Our id as Snipe-IT's (``our 7`` when no imported record has it)."""
        if our_id is None or kind is None:
            return our_id
        if kind not in self.back:  # a sub-list's kind ("license.seat"), loaded when first asked
            self.load(kind)
        found = self.back.get(kind, {}).get(our_id)
        return found if found is not None else f"our {our_id}"


class Known(str):
    """What a comparison returns for a difference the import made on purpose and reported (why, as text)."""


def _kind_of_model() -> dict[type[models.Model], str]:
    return {spec.model: kind for kind, spec in KINDS.items()}


# --- special comparisons ------------------------------------------------------------------------------------------


@dataclass
class Ctx:
    client: SnipeitClient
    maps: Maps
    report: VerifyReport
    kind: str = ""  # the kind being compared
    values: dict[int, dict[str, str]] = field(default_factory=dict)  # our asset id → its custom values, per batch
    custom_fields: dict[int, Any] = field(default_factory=dict)  # our custom fields by id, loaded once
    checkbox_columns: set[str] = field(default_factory=set)
    sub_skips: dict[tuple[str, int], list[Any]] = field(default_factory=dict)  # (kind, id) → its refused sub-rows


Compare = Callable[[dict[str, Any], models.Model, Ctx], tuple[Any, Any] | Known | None]


def _groups(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
    mine = sorted(ctx.maps.theirs_of("group", pk) for pk in ours.groups.values_list("pk", flat=True))
    return sorted(record.get("group_ids") or []), mine


def _fieldset_fields(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
    members = CustomFieldsetField.objects.filter(fieldset=ours).order_by("order", "id")
    mine = [(ctx.maps.theirs_of("custom_field", m.field_id), bool(m.required)) for m in members]
    return [(m["field_id"], bool(m.get("required"))) for m in record.get("fields") or []], mine


def _load_custom_values(objs: list[models.Model], ctx: Ctx) -> None:
    """The custom values of a batch of our assets, ``{db_column: plain value}`` each, in one query (and the fields
    once): encrypted values are decrypted (our API shows them so to a super user, and Snipe-IT to a super user's
    token); empty values count as absent."""
    from inventory.custom_values import plain
    from inventory.models import CustomField

    fields = ctx.custom_fields = ctx.custom_fields or CustomField.objects.in_bulk()
    ctx.values = {obj.pk: {} for obj in objs}
    rows = AssetFieldValue.objects.filter(asset_id__in=list(ctx.values)).values_list("asset_id", "field_id", "value")
    for asset_id, field_id, value in rows.iterator(chunk_size=5000):
        custom_field = fields.get(field_id)
        if custom_field is None:
            custom_field = fields[field_id] = CustomField.objects.get(pk=field_id)
        text = plain(custom_field, value)
        if text not in (None, ""):
            ctx.values[asset_id][custom_field.db_column_name] = text


def _custom_values(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
    """``{db_column: plain value}`` both sides (ours loaded for the whole batch by :func:`_load_custom_values`). A
    checkbox's ticked options are joined by ``, `` in Snipe-IT and by ``,`` here (as our API stores any checkbox
    input): compared as the list of options."""
    if not ctx.checkbox_columns and ctx.custom_fields:
        ctx.checkbox_columns = {f.db_column_name for f in ctx.custom_fields.values() if f.element == "checkbox"}
    theirs = {}
    for key, value in (record.get("custom_values") or {}).items():
        if value in (None, ""):
            continue
        text = str(value)
        theirs[key] = ",".join(p.strip() for p in text.split(",") if p.strip()) if key in ctx.checkbox_columns else text
    return theirs, ctx.values.get(ours.pk, {})


def _log_meta(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
    """An ``uploaded`` row's ``log_meta`` names its file here, as our own uploads do (``filename``, and ``file_id``
    when the file came over): Snipe-IT's ``log_meta`` with those added, the file's id in Snipe-IT's ids."""
    theirs = dict(record.get("log_meta") or {}) or None
    mine = dict(ours.log_meta) if isinstance(ours.log_meta, dict) else ours.log_meta
    if record.get("filename"):
        theirs = {**(theirs or {}), "filename": record["filename"]}
        if record["id"] in ctx.maps.forward.get("file", {}):
            theirs["file_id"] = record["id"]
        if isinstance(mine, dict) and "file_id" in mine:
            mine["file_id"] = ctx.maps.theirs_of("file", mine["file_id"])
    return same(theirs), same(mine)


def _log_filename(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
    meta = ours.log_meta if isinstance(ours.log_meta, dict) else {}
    return same(record.get("filename")), same(meta.get("filename"))


def _log_target(name: str) -> Compare:
    """An action row's target (type or id), ours translated back through the target kind's map; a target that was
    not imported is not kept (the import counts those rows in a note): known."""
    def compare(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any] | Known:
        kind = ITEM_KINDS.get(our_type(record.get("target_type")), (None,))[0]
        theirs_id = record.get("target_id")
        if ours.target_id is None and theirs_id is not None and theirs_id not in ctx.maps.forward.get(kind, {}):
            return Known(f"not kept: its target, {record.get('target_type')} {theirs_id}, was not imported")
        if name == "target_type":
            return our_type(record.get("target_type")) if theirs_id is not None else "", ours.target_type or ""
        return theirs_id, ctx.maps.theirs_of(kind, ours.target_id)
    return compare


def _file_bytes(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any] | None:
    """A file's bytes as SHA-256 both sides (Snipe-IT's downloaded through the client's ``download``)."""
    from django.core.files.storage import storages

    download = getattr(ctx.client, "download", None)
    if download is None:
        ctx.report.note("file: bytes not compared (this client cannot download)")
        return None
    try:
        with storages["files"].open(ours.storage_name, "rb") as handle:
            mine = hashlib.sha256(handle.read()).hexdigest()
    except FileNotFoundError:
        mine = "missing here"  # a difference to name, not a crash of the whole check
    route = FILE_ROUTES.get(record.get("item_type"))
    if route is None:
        return None
    # The API's download route, as the import fetched it (a row's ``url`` is Snipe-IT's web page, behind a login).
    theirs = download(f"{route}/{record['item_id']}/file/{record['id']}")
    return hashlib.sha256(theirs).hexdigest(), mine


def _license_seat_count(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
    return record.get("seat_count"), ours.seats


def _sub_rows(name: str, sub_kind: str | None, related: str, targets: tuple[tuple[str, str], ...],
              extra: tuple[str, ...] = ()) -> Compare:
    """The sub-list ``name`` (seats, checkouts, installations, kit lines) as a sorted list of (Snipe-IT id, each
    target in Snipe-IT's ids, each extra field) on both sides. Ours are the record's ``related`` rows, their ids
    translated back through ``sub_kind``'s map; rows that have no id in Snipe-IT (``sub_kind`` None: a consumable's
    handouts) compare without one."""
    def compare(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any]:
        theirs = sorted(((row.get("id") if sub_kind else None), *(row.get(field) for field, _kind in targets),
                         *(same(row.get(field)) for field in extra)) for row in record.get(name) or [])
        mine = sorted(((ctx.maps.theirs_of(sub_kind, row.pk) if sub_kind else None),
                       *(ctx.maps.theirs_of(kind, getattr(row, field)) for field, kind in targets),
                       *(same(getattr(row, field)) for field in extra))
                      for row in getattr(ours, related).all())
        refused = ctx.sub_skips.get((ctx.kind, record["id"]))
        if refused and theirs != mine:
            return _without_refused(theirs, mine, refused, bool(sub_kind))
        return theirs, mine
    return compare


def _without_refused(theirs: list[Any], mine: list[Any], refused: list[Any], by_id: bool) -> tuple[Any, Any] | Known:
    """A sub-list of a record some of whose rows the import refused (and named): those rows set apart on both sides
    (by id; a row without one, as a consumable's handout, by count), the rest compared."""
    if by_id:
        theirs = [row for row in theirs if row[0] not in refused]
        mine = [row for row in mine if row[0] not in refused]
    else:
        left = list(mine)
        extra = []
        for row in theirs:
            if row in left:
                left.remove(row)
            else:
                extra.append(row)
        if not left and len(extra) <= len(refused):
            theirs = mine
    if theirs == mine:
        return Known(f"{len(refused)} rows not kept, as the import reported")
    return theirs, mine


_HOLDERS = (("assigned_user_id", "user"), ("assigned_asset_id", "asset"), ("assigned_location_id", "location"))


def _flag(name: str) -> Compare:
    """A custom field's flag Snipe-IT 8 does not send: compared only when it was sent (``flags_known``)."""
    def compare(record: dict[str, Any], ours: Any, ctx: Ctx) -> tuple[Any, Any] | None:
        if not record.get("flags_known", True):
            return None
        return same(record.get(name)), same(getattr(ours, name))
    return compare


#: (kind, field) → how it is compared: a function giving (Snipe-IT's, ours) in comparable form, or None when it is
#: not compared for this record. A new kind's non-attribute fields and sub-lists get an entry here.
SPECIAL: dict[tuple[str, str], Compare] = {
    ("user", "group_ids"): _groups,
    ("fieldset", "fields"): _fieldset_fields,
    ("asset", "custom_values"): _custom_values,
    ("file", "url"): _file_bytes,
    ("license", "seat_count"): _license_seat_count,
    ("license", "seats"): _sub_rows("seats", "license.seat", "seat_rows", _HOLDERS[:2], ("notes",)),
    ("accessory", "checkouts"): _sub_rows("checkouts", "accessory.checkout", "checkouts", _HOLDERS, ("assigned_qty",)),
    ("consumable", "assignments"): _sub_rows("assignments", None, "assignments", _HOLDERS[:1], ("assigned_qty",)),
    ("component", "assignments"): _sub_rows("assignments", "component.assignment", "assignments", _HOLDERS[1:2],
                                            ("assigned_qty",)),
    **{("kit", lines): _sub_rows(lines, f"kit.{item}", f"kit{item.replace('_', '')}_set",
                                 ((f"{item}_id", "asset_model" if item == "model" else item),), ("quantity",))
       for lines, item in (("models", "model"), ("licenses", "license"), ("consumables", "consumable"),
                           ("accessories", "accessory"))},
    **{("custom_field", name): _flag(name) for name in ("field_encrypted", "is_unique", "help_text")},
    ("action", "log_meta"): _log_meta,
    ("action", "filename"): _log_filename,
    ("action", "target_type"): _log_target("target_type"),
    ("action", "target_id"): _log_target("target_id"),
}

#: kind → what loads a batch of our rows' special values at once (instead of a query per record).
PREPARE: dict[str, Callable[[list[models.Model], Ctx], None]] = {"asset": _load_custom_values}


# --- what the import already reported -----------------------------------------------------------------------------


def _known_from_import() -> tuple[dict[tuple[str, int], set[str]], dict[tuple[str, int], tuple[str, str]],
                                  dict[tuple[str, int], list[Any]]]:
    """From the stored reports: (kind, Snipe-IT id) → fields the import dropped with a note (a manager not kept
    counts as ``manager_id``, a custom value left out by its column), (kind, Snipe-IT id) → why a record was
    skipped, and (kind, Snipe-IT id) → the ids of its sub-rows (seats, checkouts, lines) the import refused."""
    dropped: dict[tuple[str, int], set[str]] = {}
    skipped: dict[tuple[str, int], tuple[str, str]] = {}
    sub_skips: dict[tuple[str, int], list[Any]] = {}
    for stored in SnipeitImport.objects.order_by("id").values_list("report", flat=True):
        for kind, tally in ImportReport.from_dict(stored or {}).kinds.items():
            manager = re.compile(rf"^{re.escape(kind)} (\d+): its manager, user \d+, is not")
            notes, groups = tally.grouped(kind)
            for group in groups:
                names = {"permissions" if name.startswith("permission ") else name
                         for name in group["what"].split(", ")}
                for snipeit_id in group["ids"]:
                    dropped.setdefault((kind, int(snipeit_id)), set()).update(names)
            for note in notes:
                if found := manager.match(note):
                    dropped.setdefault((kind, int(found.group(1))), set()).add("manager_id")
            for item in tally.skipped:
                if item.parent is not None:
                    sub_skips.setdefault((kind, int(item.parent)), []).append(item.snipeit_id)
                elif item.snipeit_id is not None:
                    skipped[(kind, int(item.snipeit_id))] = (item.name, item.why)
    return dropped, skipped, sub_skips


# --- the run ------------------------------------------------------------------------------------------------------


def _fields(kind: str, model: type[models.Model]) -> list[str]:
    names = [name for name in KIND_FIELDS.get(kind, ()) if name != "id" and name not in NOT_COMPARED.get(kind, ())]
    if any(f.name == "deleted_at" for f in model._meta.concrete_fields):
        names.append("deleted_at")  # every writer keeps Snipe-IT's deletion (importer._write_one)
    return names


def verify_kind(kind: str, records: Iterator[dict[str, Any]], ctx: Ctx,
                known: tuple[dict[tuple[str, int], set[str]], dict[tuple[str, int], tuple[str, str]],
                             dict[tuple[str, int], list[Any]]]) -> KindCheck:
    """Compare every record of ``kind`` (as the readers make them) with our row of it."""
    spec = KINDS[kind]
    model = spec.model
    check = ctx.report.kinds.setdefault(kind, KindCheck())
    dropped, skipped, ctx.sub_skips = known
    ctx.kind = kind
    prepare = PREPARE.get(kind)
    forward = ctx.maps.forward[kind]
    fields = _fields(kind, model)
    concrete = {f.attname: f for f in model._meta.concrete_fields}
    model_kinds = _kind_of_model()
    seen: set[int] = set()
    for batch in chunks(records, BATCH):
        ours = model._default_manager.in_bulk([forward[r["id"]] for r in batch if r["id"] in forward])
        if prepare is not None:
            prepare(list(ours.values()), ctx)
        for record in batch:
            snipeit_id = record["id"]
            seen.add(snipeit_id)
            label = KINDS_BY_NAME[kind].label(record)
            obj = ours.get(forward.get(snipeit_id))
            if obj is None:
                if (kind, snipeit_id) in skipped:
                    check.known += 1
                    name, why = skipped[(kind, snipeit_id)]
                    ctx.report.known_difference(kind, snipeit_id, f"skipped at import ({why})",
                                                f"skipped at import: {name}: {why}")
                else:
                    check.missing += 1
                    ctx.report.missing.append((kind, snipeit_id, label))
                continue
            check.compared += 1
            differing = known_here = False
            for name in fields:
                pair = _pair(kind, name, record, obj, ctx, concrete, model_kinds)
                if pair is None:
                    continue
                if isinstance(pair, Known):
                    known_here = True
                    ctx.report.known_difference(kind, snipeit_id, f"{name} {pair}", f"{label}: {name} {pair}")
                    continue
                theirs, mine = pair
                if theirs == mine:
                    continue
                why = _known_why(name, theirs, mine, dropped.get((kind, snipeit_id), set()))
                if why:
                    known_here = True
                    ctx.report.known_difference(kind, snipeit_id, why[0], f"{label}: {why[0]}{why[1]}")
                    continue
                differing = True
                ctx.report.differences.append(Difference(kind, snipeit_id, name, theirs, mine))
            for sublist in KINDS_BY_NAME[kind].sublists:
                if (kind, sublist.name) not in SPECIAL:
                    ctx.report.note(f"{kind}.{sublist.name}: not compared (no comparison for it in verify.SPECIAL)")
            if differing:
                check.differing += 1
            else:
                check.equal += 1
                check.known += known_here
    for snipeit_id, our_id in forward.items():
        if snipeit_id not in seen:
            ctx.report.gone.append((kind, snipeit_id, our_id))
    return check


def _known_why(name: str, theirs: Any, mine: Any, dropped: set[str]) -> tuple[str, str] | None:
    """Why a difference is one the import reported (a field, or the custom values of the columns, it left out with
    a note) and this record's detail, or None."""
    if name in dropped:
        return f"{name} not kept, as the import reported", f" (Snipe-IT: {theirs!r})"
    if isinstance(theirs, dict) and isinstance(mine, dict):
        columns = {key for key in theirs.keys() | mine.keys() if theirs.get(key) != mine.get(key)}
        if columns and columns <= dropped:
            return f"{', '.join(sorted(columns))} not kept, as the import reported", ""
    return None


def _pair(kind: str, name: str, record: dict[str, Any], obj: models.Model, ctx: Ctx,
          concrete: dict[str, models.Field],
          model_kinds: dict[type[models.Model], str]) -> tuple[Any, Any] | Known | None:
    """(Snipe-IT's value, ours) of one field, comparable; None when it is not compared."""
    special = SPECIAL.get((kind, name))
    if special is not None:
        return special(record, obj, ctx)
    if name not in record:
        return None
    model_field = concrete.get(name)
    if model_field is None:
        ctx.report.note(f"{kind}.{name}: not compared (not a column of ours; add a comparison in verify.SPECIAL)")
        return None
    mine = getattr(obj, name)
    if model_field.is_relation:
        ref_kind = model_kinds.get(model_field.related_model)
        if mine is None and record[name] is not None and ref_kind is not None \
                and record[name] not in ctx.maps.forward.get(ref_kind, {}):
            # a reference to a record that was not imported cannot be kept; the import said so (a note, a count)
            return Known(f"not kept: {ref_kind.replace('_', ' ')} {record[name]} was not imported")
        return record[name], ctx.maps.theirs_of(ref_kind, mine)
    return same(record[name]), same(mine)


def verify(*, client: SnipeitClient, context: ReadContext, stdout: IO[str],
           stderr: IO[str] | None = None) -> VerifyReport:
    """Read every kind the importer writes and compare it with ours; the report goes to ``stdout``. Writes
    nothing."""
    report = VerifyReport()
    maps = Maps()
    for kind in KINDS:
        maps.load(kind)
    ctx = Ctx(client=client, maps=maps, report=report)
    known = _known_from_import()
    for kind in KINDS:
        records = (record for _raw, record in read_kind(client, KINDS_BY_NAME[kind], context, report.read,
                                                         stream=stderr))
        verify_kind(kind, records, ctx, known)
    stdout.write(report.render())
    return report
