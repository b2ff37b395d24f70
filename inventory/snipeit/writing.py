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
    """Field-level checks the API's serializers make before a service (lengths, choices, required values, known
    references); uniqueness is left to the service, which answers with its own message."""
    obj.full_clean(exclude=["created_by", *exclude], validate_unique=False, validate_constraints=False)
    return obj


def refs(model: type[models.Model], row: dict[str, Any]) -> dict[str, Any]:
    """``row``'s references (Snipe-IT ids, as the readers name them) as rows, under the names our services take:
    ``{"company_id": 3}`` → ``{"company": <Company 3>}``; an id not found here is a field error (the API's "The
    selected ... is invalid.")."""
    out = dict(row)
    for f in model._meta.concrete_fields:
        if f.is_relation and f.attname in row:
            ref = out.pop(f.attname)
            found = None if ref is None else f.related_model._default_manager.filter(pk=ref).first()
            if ref is not None and found is None:
                raise ValidationError({f.attname: [f"The selected {f.name.replace('_', ' ')} id is invalid."]})
            out[f.name] = found
    return out


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


def id_map(kind: str) -> dict[int, int]:
    """Snipe-IT id → our id of every record of ``kind`` an import wrote (one query): how a batched writer checks and
    translates the references of a whole batch. A Snipe-IT id missing here was not imported (skipped, or absent)."""
    return dict(SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", "our_id"))


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
