"""Helpers every domain service uses, one home each (issue 9): lock a row or answer "not found", save under a
unique constraint without leaking ``IntegrityError``, and change a row's fields while recording the old and new
values the action log keeps (``log_meta``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any, TypeVar

from django.db import IntegrityError, models, transaction

M = TypeVar("M", bound=models.Model)

#: Bookkeeping columns never reported as a change.
UNLOGGED_FIELDS = frozenset({"id", "created_at", "updated_at", "created_by_id"})


def alive(queryset: models.QuerySet) -> models.QuerySet:
    """Rows not soft-deleted (models without ``deleted_at`` are returned whole): what counts and guards count, as
    Snipe-IT's ``withCount`` skips soft-deleted rows."""
    if any(f.name == "deleted_at" for f in queryset.model._meta.concrete_fields):
        return queryset.filter(deleted_at__isnull=True)
    return queryset


def lock_or_not_found(source: type[M] | models.QuerySet, pk: Any, error: Callable[[], Exception]) -> M:
    """The row ``pk`` of ``source`` (a model or queryset), locked until the transaction ends (``SELECT ... FOR
    UPDATE``); ``error()`` is raised when it does not exist, also when a concurrent delete removed it after the
    caller read it (never ``DoesNotExist``, which would be a 500)."""
    queryset = source._default_manager.all() if isinstance(source, type) else source
    pk = getattr(pk, "pk", pk)
    try:
        row = queryset.select_for_update().filter(pk=pk).first()
    except (ValueError, TypeError, OverflowError):
        row = None
    if row is None:
        raise error()
    return row


def save_unique(obj: models.Model, on_conflict: Callable[[IntegrityError], Exception], **save_kwargs: Any) -> None:
    """Save ``obj`` in a savepoint; a unique-constraint violation (a concurrent writer took the value first) is
    raised as ``on_conflict(exc)``, the same error the validation before the save gives. The caller's transaction
    stays usable."""
    try:
        with transaction.atomic():
            obj.save(**save_kwargs)
    except IntegrityError as exc:
        raise on_conflict(exc) from exc


def json_value(value: Any) -> Any:
    """A value as the action log stores it: datetimes in UTC seconds, dates ISO, money with two decimals, rows by
    id."""
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    return value


def snapshot(obj: models.Model, exclude: Iterable[str] = UNLOGGED_FIELDS) -> dict[str, Any]:
    """The row's column values (by attname, e.g. ``status_id``), normalised by their field so ``"2.5"`` and
    ``Decimal("2.50")`` compare equal."""
    skip = set(exclude)
    return {f.attname: f.to_python(getattr(obj, f.attname)) for f in obj._meta.concrete_fields
            if f.attname not in skip}


def diff(before: Mapping[str, Any], after: Mapping[str, Any], skip: Iterable[str] = ()) -> dict[str, dict]:
    """``{column: {"old", "new"}}`` for every column whose value changed (Snipe-IT's ``log_meta``)."""
    skipped = set(skip)
    return {name: {"old": json_value(before[name]), "new": json_value(after[name])}
            for name in before if name not in skipped and name in after and before[name] != after[name]}


def model_update(obj: models.Model, data: Mapping[str, Any], *, exclude: Iterable[str] = UNLOGGED_FIELDS
                 ) -> dict[str, dict]:
    """Set ``data`` (field names, relations as rows or None) on ``obj`` without saving; return what changed, keyed by
    column (``parent_id``), old and new values as the log keeps them."""
    before = snapshot(obj, exclude)
    for name, value in data.items():
        setattr(obj, name, value)
    return diff(before, snapshot(obj, exclude))
