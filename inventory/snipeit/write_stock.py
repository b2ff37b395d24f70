"""Writing Snipe-IT's stock (issue 31; docs/switching-from-snipe-it.md "Accessories, consumables, components,
licenses, maintenances, kits"): accessories with their checkouts, consumables with their handouts, components with
their installations, licenses with their seats, maintenances, and kits with their lines.

Each record is written with its sub-list rows (``accessory["checkouts"]``, ``license["seats"]``...) and the
``SnipeitRecord`` rows of both (kinds ``accessory`` and ``accessory.checkout``, ``license`` and ``license.seat``, ...)
in ONE transaction, so ``--resume`` (which skips every mapped record) never writes a checkout twice. The item goes
through its service (``stock_create``, ``maintenance_create``, ``kit_create``, ``kit_line_add``) with ``pk`` (ids
kept) and ``log=False`` (the history, checkouts included, comes from Snipe-IT's log): no action-log row, no signal,
no mail.

Checkouts are the state Snipe-IT has now, not new checkouts: ``item_checkout`` would log one, send its signal, open
an acceptance and refuse a deactivated holder. So the rows are written in bulk after the checks a checkout makes
that still mean something for a state (docs/decisions.md, "Issue 31: stock and seats"): the target is of a type the
kind takes, was imported and is not deleted; the quantity is a whole number from 1; the units out never exceed the
item's ``qty`` (a row that would over-issue is refused, the rows before it kept). Every reference is translated
through ``writing.id_map`` (Snipe-IT id to ours); a checkout whose target was not imported is skipped and named with
why, the rest of its item imported.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from accounts.models import User
from assetsvc.exceptions import InvalidInputError
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
    Kit,
    License,
    LicenseSeat,
    Location,
    Maintenance,
    SnipeitRecord,
)
from inventory.services.checkout import MAX_QUANTITY
from inventory.services.kits import LINE_KINDS, kit_create, kit_line_add
from inventory.services.licenses import MAX_SEATS
from inventory.services.maintenances import maintenance_create
from inventory.services.stock import MAX_STOCK, stock_create
from inventory.snipeit.kinds import KINDS_BY_NAME
from inventory.snipeit.report import KindTally, Skipped
from inventory.snipeit.writing import (
    ID_TAKEN,
    IMPORT_ACTOR,
    REFUSED,
    KindSpec,
    clean,
    id_map,
    refs,
    refusal,
    sequence_advance,
)

if TYPE_CHECKING:
    from inventory.models import SnipeitImport

NOT_IMPORTED = "{kind} {id} is not imported"
DELETED = "{kind} {id} is deleted"
OVER_ISSUED = "it would put {out} units out of {qty}: refused, never over-issued"
SEAT_LEFT_FREE = "{why}: the seat is imported free"
SEAT_BOTH = ("license {license} seat {seat}: Snipe-IT names user {user} and asset {asset}; kept on the asset (a "
             "seat here has one holder)")
SEATS_DIFFER = "license {id}: Snipe-IT says {said} seats and lists {listed}: imported with {listed}"
NO_SEATS = "Snipe-IT listed none of its {seats} seats"
QTY_RANGE = "The {field} must be between 1 and {max}."

#: References of each kind's record: our field (``<field>_id``) and the kind of record it names.
REFERENCES: dict[str, dict[str, str]] = {
    "stock": {"category_id": "category", "manufacturer_id": "manufacturer", "supplier_id": "supplier",
              "location_id": "location", "company_id": "company"},
    "maintenance": {"asset_id": "asset", "supplier_id": "supplier"},
}
#: The targets of a checkout row: its field and the kind of record it names (a location, a user or an asset).
TARGETS = {"assigned_user_id": ("user", User), "assigned_asset_id": ("asset", Asset),
           "assigned_location_id": ("location", Location)}

STOCK_FIELDS = ("name", "category_id", "manufacturer_id", "supplier_id", "location_id", "company_id", "model_number",
                "order_number", "purchase_date", "purchase_cost", "qty", "min_amt", "notes")
LICENSE_FIELDS = ("name", "serial", "category_id", "manufacturer_id", "supplier_id", "company_id", "seats",
                  "license_name", "license_email", "reassignable", "maintained", "expiration_date",
                  "termination_date", "purchase_order", "order_number", "purchase_date", "purchase_cost", "min_amt",
                  "notes")
MAINTENANCE_FIELDS = ("asset_id", "supplier_id", "asset_maintenance_type", "title", "is_warranty", "start_date",
                      "completion_date", "cost", "notes")

#: What the importer registers (``importer.KIND_FIELDS``): the writers here take the readers' whole records, sub-lists
#: included (``write_all``), so this says what they use.
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "accessory": ("id", *STOCK_FIELDS, "checkouts"),
    "consumable": ("id", *STOCK_FIELDS, "item_no", "assignments"),
    "component": ("id", *STOCK_FIELDS, "serial", "assignments"),
    "license": ("id", *LICENSE_FIELDS, "seat_count", "deleted_at"),  # seats: the seat rows (sub-list)
    "maintenance": ("id", *MAINTENANCE_FIELDS),
    "kit": ("id", "name", "models", "licenses", "consumables", "accessories"),
}


class Maps:
    """Snipe-IT id → our id per kind, each read once (``writing.id_map``) when first needed by a kind's run."""

    def __init__(self) -> None:
        self._maps: dict[str, dict[int, int]] = {}

    def __call__(self, kind: str) -> dict[int, int]:
        if kind not in self._maps:
            self._maps[kind] = id_map(kind)
        return self._maps[kind]

    def ours(self, kind: str, snipeit_id: Any, field: str) -> int:
        """Our id of ``kind`` ``snipeit_id``, or the field's refusal naming what was not imported."""
        found = self(kind).get(snipeit_id)
        if found is None:
            raise ValidationError({field: [NOT_IMPORTED.format(kind=kind.replace("_", " "), id=snipeit_id)]})
        return found


def _translated(row: dict[str, Any], fields: tuple[str, ...], references: dict[str, str],
                maps: Maps) -> dict[str, Any]:
    """``row``'s ``fields``, each reference translated to our id (a reference not imported refuses the record)."""
    out = {key: row[key] for key in fields if key in row}
    for field, kind in references.items():
        if out.get(field) is not None:
            out[field] = maps.ours(kind, out[field], field)
    return out


def _check_qty(value: Any, field: str, maximum: int) -> None:
    """The API's range of ``qty`` / ``seats`` (its serializers: a whole number from 1)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        text = QTY_RANGE.format(field=field, max=f"{maximum:,}")
        raise InvalidInputError(text, messages={field: [text]})


class SubRows:
    """The sub-list rows of one record: kept (to write) and refused (named with why), counted per sub-list."""

    def __init__(self, tally: KindTally, kind: str, parent: dict[str, Any]) -> None:
        self.tally, self.kind, self.parent = tally, kind, parent
        self.skipped: list[Skipped] = []
        #: Rows written per sub-list, when a record has several (a kit's four kinds of line).
        self.written: dict[str, int] = {}

    def skip(self, what: str, row: dict[str, Any], why: str) -> None:
        label = KINDS_BY_NAME[self.kind].label(self.parent)
        ident = row.get("id")
        self.skipped.append(Skipped(f"{label}: {what}{f' {ident}' if ident is not None else ''}", why, ident,
                                    self.parent.get("id")))


def _targets(rows: list[dict[str, Any]], fields: tuple[str, ...], maps: Maps,
             sub: SubRows, what: str) -> list[tuple[dict[str, Any], str, int]]:
    """Each row with its one target as (row, our field, our id), checked: imported and not deleted (two queries at
    most per record). Refused rows go to ``sub`` with why."""
    found: list[tuple[dict[str, Any], str, int]] = []
    for row in rows:
        named = [(field, row[field]) for field in fields if row.get(field) is not None]
        if len(named) != 1:
            sub.skip(what, row, "no target" if not named else "more than one target")
            continue
        field, snipeit_id = named[0]
        kind = TARGETS[field][0]
        ours = maps(kind).get(snipeit_id)
        if ours is None:
            sub.skip(what, row, NOT_IMPORTED.format(kind=kind, id=snipeit_id))
            continue
        found.append((row, field, ours))
    deleted: set[tuple[str, int]] = set()
    for field in fields:
        model = TARGETS[field][1]
        ids = [ours for _row, f, ours in found if f == field]
        if ids and hasattr(model, "deleted_at"):
            deleted |= {(field, pk) for pk in model._default_manager.filter(pk__in=ids, deleted_at__isnull=False)
                        .values_list("pk", flat=True)}
    kept = []
    for row, field, ours in found:
        if (field, ours) in deleted:
            sub.skip(what, row, DELETED.format(kind=TARGETS[field][0], id=row[field]))
        else:
            kept.append((row, field, ours))
    return kept


# --- accessories, consumables, components ---------------------------------------------------------------------------

#: Per stock kind: its model, sub-list, assignment model, parent field, target fields, sub-kind mapped (None: the
#: rows have no Snipe-IT id, as a consumable's handouts) and the sub-list's name in the report.
STOCK: dict[str, tuple[type[models.Model], str, type[models.Model], str, tuple[str, ...], str | None]] = {
    "accessory": (Accessory, "checkouts", AccessoryCheckout, "accessory",
                  ("assigned_user_id", "assigned_asset_id", "assigned_location_id"), "accessory.checkout"),
    "consumable": (Consumable, "assignments", ConsumableAssignment, "consumable", ("assigned_user_id",), None),
    "component": (Component, "assignments", ComponentAssignment, "component", ("assigned_asset_id",),
                  "component.assignment"),
}


def _write_stock(run: SnipeitImport, kind: str, row: dict[str, Any], maps: Maps, sub: SubRows) -> int:
    """One accessory, consumable or component and its rows out; returns how many rows out were written."""
    model, sublist, row_model, parent_field, target_fields, sub_kind = STOCK[kind]
    extra = {"consumable": ("item_no",), "component": ("serial",)}.get(kind, ())
    data = _translated(row, (*STOCK_FIELDS, *extra), REFERENCES["stock"], maps)
    _check_qty(data.get("qty"), "qty", MAX_STOCK)
    data = refs(model, data)
    clean(model(pk=row["id"], **data))
    item = stock_create(model=model, data=data, actor=IMPORT_ACTOR, pk=row["id"], log=False)
    users = maps("user")
    out, rows = 0, []
    for line, field, ours in _targets(row.get(sublist) or [], target_fields, maps, sub, sublist[:-1]):
        qty = line.get("assigned_qty") or 1
        if isinstance(qty, bool) or not isinstance(qty, int) or not 1 <= qty <= MAX_QUANTITY:
            sub.skip(sublist[:-1], line, f"quantity {qty!r} is not a whole number from 1")
            continue
        if out + qty > item.qty:
            sub.skip(sublist[:-1], line, OVER_ISSUED.format(out=out + qty, qty=item.qty))
            continue
        out += qty
        rows.append((line, row_model(
            pk=line.get("id") if sub_kind else None, **{parent_field: item, field: ours},
            assigned_qty=qty, note=line.get("note") or "", created_by_id=users.get(line.get("created_by_id")))))
    written = row_model._default_manager.bulk_create([obj for _line, obj in rows])
    dated = []
    for (line, _obj), obj in zip(rows, written, strict=True):
        if line.get("created_at") is not None:  # the checkout's own date, not the import's (auto_now_add)
            obj.created_at = line["created_at"]
            dated.append(obj)
    if dated:
        row_model._default_manager.bulk_update(dated, ["created_at"])
    if sub_kind:
        SnipeitRecord.objects.bulk_create([SnipeitRecord(run=run, kind=sub_kind, snipeit_id=line["id"],
                                                         our_id=obj.pk) for (line, _o), obj in zip(rows, written,
                                                                                                   strict=True)])
    return len(written)


# --- licenses and seats ---------------------------------------------------------------------------------------------


def _write_license(run: SnipeitImport, kind: str, row: dict[str, Any], maps: Maps, sub: SubRows) -> int:
    """A license and its seats under their Snipe-IT ids with their holders; returns how many seats were written. A
    seat whose holder was not imported (or is deleted) is imported free, and named with why."""
    seats = row.get("seats") or []  # the seat rows (the sub-list); the count Snipe-IT gives is `seat_count`
    said = row.get("seat_count")
    data = _translated({**row, "seats": len(seats) if said is None else said}, LICENSE_FIELDS, REFERENCES["stock"],
                       maps)
    if not seats:
        raise ValidationError({"seats": [NO_SEATS.format(seats=data.get("seats"))]})
    if len(seats) != data.get("seats"):
        sub.tally.notes.append(SEATS_DIFFER.format(id=row["id"], said=data.get("seats"), listed=len(seats)))
        data["seats"] = len(seats)
    _check_qty(data["seats"], "seats", MAX_SEATS)
    data = refs(License, data)
    clean(License(pk=row["id"], **data))
    item = stock_create(model=License, data=data, actor=IMPORT_ACTOR, pk=row["id"], log=False)
    if row.get("deleted_at"):
        License.objects.filter(pk=item.pk).update(deleted_at=row["deleted_at"])
    held = []
    for seat in seats:
        user, asset = seat.get("assigned_user_id"), seat.get("assigned_asset_id")
        if user is not None and asset is not None:
            sub.tally.notes.append(SEAT_BOTH.format(license=row["id"], seat=seat["id"], user=user, asset=asset))
            seat = {**seat, "assigned_user_id": None}
        if user is not None or asset is not None:
            held.append(seat)
    refused = SubRows(sub.tally, kind, row)
    holders = {seat["id"]: (field, ours) for seat, field, ours in _targets(
        held, ("assigned_user_id", "assigned_asset_id"), maps, refused, "seat")}
    sub.skipped += [Skipped(s.name, SEAT_LEFT_FREE.format(why=s.why), s.snipeit_id, s.parent) for s in refused.skipped]
    objs = [LicenseSeat(pk=seat["id"], license=item, notes=seat.get("notes") or "",
                        **(dict([holders[seat["id"]]]) if seat["id"] in holders else {})) for seat in seats]
    LicenseSeat.objects.bulk_create(objs)
    SnipeitRecord.objects.bulk_create([SnipeitRecord(run=run, kind="license.seat", snipeit_id=obj.pk, our_id=obj.pk)
                                       for obj in objs])
    return len(objs)


# --- maintenances and kits ------------------------------------------------------------------------------------------


def _write_maintenance(run: SnipeitImport, kind: str, row: dict[str, Any], maps: Maps, sub: SubRows) -> int:
    """A maintenance (about 10,000 in a 100,000-asset Snipe-IT): its asset and supplier are known to exist from the
    id maps, so they go to the service as ids (it locks the asset and refuses a deleted one), sparing the reads of
    ``refs`` and of ``full_clean``'s reference checks."""
    data = _translated(row, MAINTENANCE_FIELDS, REFERENCES["maintenance"], maps)
    asset = data.pop("asset_id", None)
    if asset is None:
        raise ValidationError({"asset_id": ["The asset id field is required."]})
    clean(Maintenance(pk=row["id"], asset_id=asset, **data), exclude=("asset", "supplier"))
    maintenance_create(data={"asset": asset, **data}, actor=IMPORT_ACTOR, pk=row["id"], log=False)
    return 0


#: A kit's sub-lists: the reader's key, the line kind (``inventory.services.kits.LINE_KINDS``), the kind its items are
#: imported as, and the sub-kind mapped.
KIT_LINES = (("models", "models", "asset_model", "kit.model"), ("licenses", "licenses", "license", "kit.license"),
             ("consumables", "consumables", "consumable", "kit.consumable"),
             ("accessories", "accessories", "accessory", "kit.accessory"))


def _write_kit(run: SnipeitImport, kind: str, row: dict[str, Any], maps: Maps, sub: SubRows) -> int:
    kit = Kit(pk=row["id"], name=row.get("name") or "")
    clean(kit)
    kit = kit_create(data={"name": kit.name}, actor=IMPORT_ACTOR, pk=row["id"], log=False)
    written = 0
    for key, segment, item_kind, sub_kind in KIT_LINES:
        line_kind = LINE_KINDS[segment]
        for line in row.get(key) or []:
            item_id = line.get(f"{line_kind.field}_id")
            ours = maps(item_kind).get(item_id)
            if ours is None:
                sub.skip(f"{line_kind.field} line", line, NOT_IMPORTED.format(kind=item_kind.replace("_", " "),
                                                                              id=item_id))
                continue
            item = line_kind.item_model._default_manager.get(pk=ours)
            try:
                with transaction.atomic():
                    made = kit_line_add(kit=kit, kind=line_kind, item=item, quantity=line.get("quantity") or 1,
                                        actor=IMPORT_ACTOR, pk=line.get("id"), log=False)
            except REFUSED as exc:
                sub.skip(f"{line_kind.field} line", line, refusal(exc))
                continue
            if line.get("id") is not None:
                SnipeitRecord.objects.create(run=run, kind=sub_kind, snipeit_id=line["id"], our_id=made.pk)
            written += 1
            sub.written[key] = sub.written.get(key, 0) + 1
    return written


# --- the loop -------------------------------------------------------------------------------------------------------

#: Per kind: the writer of one record and the name of its sub-rows in the closing note.
WRITERS = {"accessory": (_write_stock, "checkouts"), "consumable": (_write_stock, "handouts"),
           "component": (_write_stock, "installations"), "license": (_write_license, "seats"),
           "maintenance": (_write_maintenance, ""), "kit": (_write_kit, "lines")}
#: Rows out and seats kept under their Snipe-IT ids: their sequences continue after them too.
SUB_MODELS = {"accessory": (AccessoryCheckout,), "component": (ComponentAssignment,), "license": (LicenseSeat,),
              "kit": tuple(line.line_model for line in LINE_KINDS.values())}


#: The reader's sub-list of each kind with one (``kinds.KINDS``: ``accessory.checkouts``, ``license.seats``).
READ_SUBLIST = {"accessory": "checkouts", "consumable": "assignments", "component": "assignments", "license": "seats"}


def write_all(run: SnipeitImport, kind: str, rows: Iterable[dict[str, Any]], tally: KindTally) -> None:
    """Every record of ``kind`` with its sub-rows, one transaction each (see the module docstring); records an earlier
    run wrote are counted as resumed and left alone; a refused record is skipped with why, a refused sub-row is
    skipped with why and its record kept. Sub-rows written are counted in the report's `<kind>.<sub-list>` rows."""
    write, _sub_name = WRITERS[kind]
    model = {"accessory": Accessory, "consumable": Consumable, "component": Component, "license": License,
             "maintenance": Maintenance, "kit": Kit}[kind]
    maps = Maps()
    done = set(maps(kind))
    # Ids held here already (one read, not one per record): an id kept is never written over.
    taken = set(model._default_manager.values_list("pk", flat=True)) - set(maps(kind).values())
    label = KINDS_BY_NAME[kind].label
    for row in rows:
        if row["id"] in done:
            tally.resumed += 1
            continue
        holder = model._default_manager.filter(pk=row["id"]).first() if row["id"] in taken else None
        if holder is not None:
            tally.skipped.append(Skipped(label(row), ID_TAKEN.format(id=row["id"], what=str(holder)), row["id"]))
            continue
        sub = SubRows(tally, kind, row)
        try:
            with transaction.atomic():
                written = write(run, kind, row, maps, sub)
                SnipeitRecord.objects.create(run=run, kind=kind, snipeit_id=row["id"], our_id=row["id"])
        except REFUSED as exc:
            tally.skipped.append(Skipped(label(row), refusal(exc), row["id"]))
            continue
        done.add(row["id"])
        tally.imported += 1
        tally.skipped.extend(sub.skipped)
        for name, count in (sub.written or ({READ_SUBLIST[kind]: written} if kind in READ_SUBLIST else {})).items():
            tally.sub_written(name, count)
    for sub_model in SUB_MODELS.get(kind, ()):
        sequence_advance(sub_model)


def spec(kind: str) -> KindSpec:
    model = {"accessory": Accessory, "consumable": Consumable, "component": Component, "license": License,
             "maintenance": Maintenance, "kit": Kit}[kind]
    return KindSpec(model, _never, write_all=write_all)


def _never(row: dict[str, Any], actor: Any) -> models.Model:  # pragma: no cover - write_all writes these kinds
    raise NotImplementedError


#: What ``importer.KINDS`` registers, in dependency order (after assets: their checkouts and maintenances name them).
STOCK_KINDS: dict[str, KindSpec] = {kind: spec(kind) for kind in KIND_FIELDS}
