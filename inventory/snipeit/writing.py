"""What every Snipe-IT writer shares (issue 31; docs/switching-from-snipe-it.md "Writing: ids, resume"): the caller
the services see (:data:`IMPORT_ACTOR`), how a refusal reads (:func:`refusal`), the field checks the API's serializers
make (:func:`clean`), references as rows (:func:`refs`) or as id maps (:func:`id_map`), the sequence after ids kept
(:func:`sequence_advance`) and :class:`KindSpec`, what :mod:`inventory.snipeit.importer` needs to write a kind.

The writers of the catalogue, groups and users are in ``importer.py``; those of assets (``write_assets.py``), stock
and licenses (``write_stock.py``), files and the action log (``write_history.py``) have modules of their own, each
registering its kinds in ``importer.KINDS``. A writer takes the readers' records (``inventory.snipeit.kinds``):
plain dicts of our field names, references as ``<field>_id`` holding Snipe-IT ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, models
from django.db.models.functions import Lower

from assetsvc.exceptions import DomainError
from inventory.models import SnipeitRecord
from inventory.snipeit.kinds import KINDS_BY_NAME
from inventory.snipeit.report import KindTally, Skipped

if TYPE_CHECKING:
    from inventory.models import SnipeitImport
    from inventory.snipeit.client import SnipeitClient

ID_TAKEN = "id {id} is already taken here by {what!r}"


@dataclass(frozen=True)
class ImportActor:
    """Who the services see as the caller (``assetsvc.typing.Actor``): a super user without a company and without a
    row, so every guard a super user passes (rules 7 and 8, groups, permission escalation) passes, and the rows it
    writes record no creator (nobody, as for any caller without a row). Never saved: it is not a ``User``."""

    pk: None = None
    company_id: None = None
    is_active: bool = True
    is_superuser: bool = True
    is_authenticated: bool = True
    username: str = "snipeit-import"


IMPORT_ACTOR = ImportActor()


# --- ids kept: the sequence ---------------------------------------------------------------------------------------


def sequence_advance(model: type[models.Model]) -> None:
    """Make the next id the database gives ``model`` come after the highest one stored. PostgreSQL's identity /
    serial sequence does not move when rows are inserted with their ids, so it is set (``setval``); SQLite's
    ``AUTOINCREMENT`` counter follows the largest id inserted by itself, so nothing is needed there."""
    if connection.vendor != "postgresql":
        return
    table = connection.ops.quote_name(model._meta.db_table)
    column = model._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, %s), COALESCE((SELECT MAX({connection.ops.quote_name(column)}) "
            f"FROM {table}), 0) + 1, false)",
            [model._meta.db_table, column],
        )


def refusal(exc: Exception) -> str:
    """A refusal as one line: ``field: message`` per message, or the error's text."""
    if isinstance(exc, ValidationError) and hasattr(exc, "error_dict"):
        return "; ".join(f"{name}: {' '.join(str(m) for m in msgs)}".replace("__all__: ", "")
                         for name, msgs in exc.message_dict.items())
    if isinstance(exc, DomainError) and isinstance(getattr(exc, "messages", None), dict) and exc.messages:
        return "; ".join(f"{name}: {' '.join(str(m) for m in msgs)}" for name, msgs in exc.messages.items())
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    return str(exc) or type(exc).__name__


REFUSED = (ValidationError, DomainError, PermissionDenied)


def skip(tally: KindTally, kind: str, row: dict[str, Any], why: str) -> None:
    tally.skipped.append(Skipped(KINDS_BY_NAME[kind].label(row), why, row.get("id")))


def clean(obj: models.Model, exclude: tuple[str, ...] = ()) -> models.Model:
    """Field-level checks the API's serializers make before a service (lengths, choices, required values);
    references are known already (:func:`refs` found them) and uniqueness is left to the service, which answers
    with its own message."""
    # A reference given was found by refs() already: not looked up again (one query each); a missing one is checked.
    related = [f.name for f in obj._meta.concrete_fields if f.is_relation and getattr(obj, f.attname) is not None]
    obj.full_clean(exclude=["created_by", *related, *exclude], validate_unique=False, validate_constraints=False)
    return obj


def refs(model: type[models.Model], row: dict[str, Any]) -> dict[str, Any]:
    """``row``'s references (Snipe-IT ids, as the readers name them) as rows, under the names our services take:
    ``{"company_id": 3}`` → ``{"company": <our company of Snipe-IT's 3>}``, translated through ``SnipeitRecord``
    (:func:`our_id`; in an empty database the same id, after ``--merge`` maybe another). A reference not imported is
    a field error (the API's "The selected ... is invalid."). A reference to a model no kind imports is taken as is."""
    out = dict(row)
    for f in model._meta.concrete_fields:
        if f.is_relation and f.attname in row:
            ref = out.pop(f.attname)
            kind = MODEL_KINDS.get(f.related_model)
            pk = ref if ref is None or kind is None else _translated(kind, ref)
            found = None if pk is None else _referenced(f.related_model, pk)
            if ref is not None and found is None:
                raise ValidationError({f.attname: [f"The selected {f.name.replace('_', ' ')} id is invalid."]})
            out[f.name] = found
    return out


#: Rows :func:`refs` found, by model and id, for the kind being written (emptied by :func:`refs_forget` when a kind
#: starts): 20,000 users name a handful of companies, departments and locations, each looked up once.
_REFERENCED: dict[tuple[type[models.Model], Any], models.Model] = {}


def _referenced(model: type[models.Model], pk: Any) -> models.Model | None:
    found = _REFERENCED.get((model, pk))
    if found is None:
        found = model._default_manager.filter(pk=pk).first()
        if found is not None:
            _REFERENCED[(model, pk)] = found
    return found


_TRANSLATED: dict[tuple[str, Any], int | None] = {}


def _translated(kind: str, snipeit_id: Any) -> int | None:
    if (kind, snipeit_id) not in _TRANSLATED:
        _TRANSLATED[(kind, snipeit_id)] = our_id(kind, snipeit_id)
    return _TRANSLATED[(kind, snipeit_id)]


def refs_forget() -> None:
    """Forget the rows :func:`refs` found and the ids it translated (a new kind may have changed them)."""
    _REFERENCED.clear()
    _TRANSLATED.clear()


Writer = Callable[[dict[str, Any], Any], models.Model]


@dataclass(frozen=True)
class KindSpec:
    model: type[models.Model]
    write: Writer
    order: Callable[[Iterable[dict[str, Any]], KindTally], Iterable[dict[str, Any]]] | None = None
    #: A kind written in batches (assets, the action log) writes all its rows itself: it counts imported, resumed
    #: and skipped in the tally, writes each record's ``SnipeitRecord`` in the same transaction as the record, and
    #: leaves rows an earlier run wrote alone. ``write`` is then not called.
    write_all: Callable[[SnipeitImport, str, Iterable[dict[str, Any]], KindTally], None] | None = None


def chunks(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in lists of ``size`` (the last one shorter), read as they come: the batched writers and ``--verify``
    hold one batch at a time, not 100,000 records."""
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def id_map(kind: str) -> dict[int, int]:
    """Snipe-IT id → our id of every record of ``kind`` an import wrote (one query): how a batched writer checks and
    translates the references of a whole batch. A Snipe-IT id missing here was not imported (skipped, or absent)."""
    return dict(SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", "our_id"))


def our_id(kind: str, snipeit_id: Any) -> int | None:
    """Our id of Snipe-IT's ``snipeit_id`` of ``kind``, if an import wrote or matched it (one query)."""
    if snipeit_id is None:
        return None
    return SnipeitRecord.objects.filter(kind=kind, snipeit_id=snipeit_id).values_list("our_id", flat=True).first()


#: Model → kind, for every kind the importer writes (``importer.KINDS`` fills it), so :func:`refs` knows which id map
#: a reference goes through.
MODEL_KINDS: dict[type[models.Model], str] = {}


# --- --merge: natural keys ----------------------------------------------------------------------------------------

_MERGING: ContextVar[bool] = ContextVar("snipeit_merging", default=False)


def merging() -> bool:
    """Whether the run writes with ``--merge`` (into a database that holds data). A writer consults it: with it,
    each record is first matched by :func:`natural_match` (a match is mapped, never overwritten), and one that is not
    matched gets a new id when its Snipe-IT id is taken here (:func:`ids_taken`); report changed ids with
    :meth:`KindTally.changed`."""
    return _MERGING.get()


def set_merging(value: bool) -> Any:
    """Set for the run by ``importer.import_snipeit``; returns the token to reset it with."""
    return _MERGING.set(value)


def reset_merging(token: Any) -> None:
    _MERGING.reset(token)


#: How ``--merge`` finds the record a Snipe-IT record is: alternatives tried in order, each a tuple of fields (all
#: equal, strings case-insensitively; a reference such as ``parent_id`` compared after translation to our id).
NATURAL_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    **{kind: (("name",),) for kind in ("company", "department", "manufacturer", "supplier", "category",
                                       "status_label", "depreciation", "group", "fieldset", "license", "accessory",
                                       "consumable", "component", "kit")},
    "location": (("name", "parent_id"),),
    "custom_field": (("db_column_name",), ("name",)),
    # Our models are unique by name and model number (alive), so a name alone could join two models.
    "asset_model": (("name", "model_number"),),
    "user": (("username",),),
    "asset": (("asset_tag",),),
}


def _kind_model(kind: str) -> type[models.Model]:
    return next(model for model, name in MODEL_KINDS.items() if name == kind)


def natural_match(kind: str, rows: Iterable[dict[str, Any]]) -> dict[int, int]:
    """Snipe-IT id → our id of the rows of ``kind`` that already exist here by their natural key
    (:data:`NATURAL_KEYS`), one query per alternative and key: what a batched writer calls for a batch under
    ``--merge``. A live record is preferred to a deleted one, then the lowest id."""
    model = _kind_model(kind)
    rows = [row for row in rows if row.get("id") is not None]
    found: dict[int, int] = {}
    for fields in NATURAL_KEYS.get(kind, ()):
        pending = [row for row in rows if row["id"] not in found and all(f in row for f in fields)]
        if not pending:
            continue
        wanted = {row["id"]: tuple(_natural_value(model, f, row[f]) for f in fields) for row in pending}
        first = fields[0]
        query = model._default_manager.annotate(_key=Lower(first)).filter(
            _key__in={key[0] for key in wanted.values() if key[0] is not None})
        if any(f.name == "deleted_at" for f in model._meta.concrete_fields):
            query = query.order_by(models.F("deleted_at").asc(nulls_first=True), "pk")
        else:
            query = query.order_by("pk")
        here: dict[tuple[Any, ...], int] = {}
        for values in query.values_list("pk", *fields):
            key = tuple(_natural_value(model, f, value, translated=True) for f, value in zip(fields, values[1:],
                                                                                                strict=True))
            here.setdefault(key, values[0])
        for snipeit_id, key in wanted.items():
            if key[0] is not None and key in here:
                found[snipeit_id] = here[key]
    return found


def _natural_value(model: type[models.Model], name: str, value: Any, *, translated: bool = False) -> Any:
    """A key's value as both sides compare it: strings lower-cased and trimmed (empty is None), references as our
    ids (Snipe-IT's translated through the id map unless ``translated``)."""
    field = next((f for f in model._meta.concrete_fields if f.attname == name), None)
    if field is not None and field.is_relation:
        kind = MODEL_KINDS.get(field.related_model)
        return value if translated or value is None or kind is None else our_id(kind, value)
    if isinstance(value, str):
        return value.strip().lower() or None
    return value


def ids_taken(model: type[models.Model], ids: Iterable[int]) -> set[int]:
    """Which of ``ids`` a row of ``model`` holds here (one query): under ``--merge`` those records get new ids."""
    return set(model._default_manager.filter(pk__in=list(ids)).values_list("pk", flat=True))


def merge_split(run: SnipeitImport, kind: str, rows: list[dict[str, Any]],
                tally: KindTally) -> tuple[list[dict[str, Any]], set[int]]:
    """For a batched writer under ``--merge`` (call it inside the batch's transaction): the rows found here by their
    natural key are mapped (their ``SnipeitRecord`` rows written, counted as matched, changed ids noted) and left
    out; returns the other rows, and the Snipe-IT ids among them taken here, which the writer gives new ids (after
    :func:`sequence_advance`), reporting each with ``tally.id_changed(snipeit_id, new_id, "new id")``. Without
    ``--merge``: ``(rows, set())``."""
    if not merging():
        return rows, set()
    matches = natural_match(kind, rows)
    SnipeitRecord.objects.bulk_create([SnipeitRecord(run=run, kind=kind, snipeit_id=snipeit_id, our_id=ours)
                                       for snipeit_id, ours in matches.items()])
    for snipeit_id, ours in matches.items():
        tally.matched += 1
        tally.id_changed(snipeit_id, ours, "matched")
    rest = [row for row in rows if row["id"] not in matches]
    return rest, ids_taken(_kind_model(kind), [row["id"] for row in rest])

# --- the Snipe-IT being read, for writers that read more (files) ------------------------------------------------

_SOURCE: ContextVar[SnipeitClient | None] = ContextVar("snipeit_source", default=None)


@contextmanager
def reading_from(client: SnipeitClient) -> Iterator[None]:
    """Within this block :func:`source_client` is ``client``: ``importer.run`` wraps the writing in it, so a writer
    that must fetch more than the readers' records (a file's bytes) uses the run's client, its token and its pacing,
    without every writer's signature taking a client most of them never use."""
    token = _SOURCE.set(client)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def source_client() -> SnipeitClient | None:
    """The client of the run being written (:func:`reading_from`), or None outside one (a test writing records)."""
    return _SOURCE.get()
