"""Keyset ("cursor") paging for ``?cursor=`` (issue 13; docs/decisions.md "Issue 13: keyset pagination").

An offset page makes the database read and throw away every row before it, and ``total`` counts the whole set: at a
million assets a deep page costs more than a hundred milliseconds. A keyset page starts *after* the last row of the
previous one instead: ``WHERE (created_at, id) < (<last created_at>, <last id>) ORDER BY created_at DESC, id DESC
LIMIT n`` is a seek in the ``(created_at desc, id desc)`` index, as cheap on the last page as on the first.

A list can be walked by cursor when its order is a plain one: every ordering term a column of the listed model itself
(no relation, no annotation), never null, all in one direction, the last one the primary key (or another unique
column), so the sort key of a row is unique and the rows after it are exactly ``(keys) < (last keys)`` (``>`` when
ascending). :func:`keyset_of` says whether a queryset's order is one; any other order is refused, never paged wrong.

The cursor is the urlsafe base64 of ``{"o": <the order>, "k": <the last row's sort key values>}``: opaque to clients,
not a secret. It carries no visibility: every page is the caller's scoped, filtered queryset, and a forged cursor can
only move where a page starts within it. Values are typed by their column (timestamps as ISO 8601 in UTC with
microseconds, decimals as text), and anything that does not decode to the order's columns is refused.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models import BooleanField, F, Func, Value
from django.db.models.query import FlatValuesListIterable, ModelIterable, ValuesListIterable

if TYPE_CHECKING:
    from django.db.models import Field, QuerySet

#: Longest cursor accepted (an order of a few columns and their values is far shorter).
MAX_CURSOR_LENGTH = 2048
MAX_BIGINT = 2**63 - 1
INTEGER_TYPES = {"AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField",
                 "SmallIntegerField", "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField"}
TEXT_TYPES = {"CharField", "TextField", "SlugField", "EmailField"}
OTHER_TYPES = {"DateTimeField", "DateField", "DecimalField", "BooleanField"}


class CursorInvalid(Exception):
    """The cursor does not decode to a position in this order (malformed or tampered with)."""


class CursorOfAnotherOrder(CursorInvalid):
    """A well-formed cursor of another sort order (``sort`` or ``order`` changed during a walk)."""


@dataclass(frozen=True)
class Keyset:
    """A plain order (see the module docstring): ``terms`` as ``order_by`` spells them, ``fields`` their columns."""

    terms: tuple[str, ...]
    fields: tuple[Field, ...]
    descending: bool


def keyset_of(queryset: QuerySet) -> Keyset | None:
    """The queryset's order as a :class:`Keyset`, or None when a cursor cannot follow it."""
    query = queryset.query
    ordering = list(query.order_by) or (list(queryset.model._meta.ordering) if query.default_ordering else [])
    meta = queryset.model._meta
    terms: list[str] = []
    fields: list[Field] = []
    directions = set()
    for term in ordering:
        if not isinstance(term, str) or "__" in term or term.lstrip("-") in ("", "?"):
            return None  # an expression, a relation's column, random order
        name = term.lstrip("-")
        try:
            field = meta.pk if name == "pk" else meta.get_field(name)
        except FieldDoesNotExist:  # an annotation: not a column of the model
            return None
        if field in fields:
            continue  # ``-id`` after ``sort=id``: the repeat changes nothing
        kind = field.get_internal_type() if getattr(field, "concrete", False) else None
        if field.is_relation or getattr(field, "null", True) or kind not in INTEGER_TYPES | TEXT_TYPES | OTHER_TYPES:
            return None
        terms.append(f"-{field.name}" if term.startswith("-") else field.name)
        fields.append(field)
        directions.add(term.startswith("-"))
    if not fields or len(directions) != 1 or not (fields[-1].primary_key or fields[-1].unique):
        return None
    return Keyset(tuple(terms), tuple(fields), directions.pop())


# --- the cursor ------------------------------------------------------------------------------------------------


def _dump(field: Field, value: Any) -> Any:
    kind = field.get_internal_type()
    if kind == "DateTimeField":
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        return value.isoformat(timespec="microseconds")
    if kind in ("DateField", "DecimalField"):
        return value.isoformat() if kind == "DateField" else str(value)
    return value


def _load(field: Field, value: Any, aware: bool) -> Any:
    kind = field.get_internal_type()
    if kind in INTEGER_TYPES:
        if type(value) is not int or not -MAX_BIGINT <= value <= MAX_BIGINT:
            raise CursorInvalid
        return value
    if kind == "BooleanField":
        if type(value) is not bool:
            raise CursorInvalid
        return value
    if type(value) is not str or "\x00" in value:
        raise CursorInvalid
    if kind in TEXT_TYPES:
        return value
    try:
        if kind == "DateTimeField":
            parsed = dt.datetime.fromisoformat(value)
            if (parsed.tzinfo is not None) != aware:
                raise CursorInvalid
            return parsed
        if kind == "DateField":
            return dt.date.fromisoformat(value)
        number = Decimal(value)
    except (ValueError, InvalidOperation) as exc:
        raise CursorInvalid from exc
    if not number.is_finite():
        raise CursorInvalid
    return number


def encode_cursor(keyset: Keyset, values: tuple[Any, ...]) -> str:
    payload = {"o": list(keyset.terms), "k": [_dump(f, v) for f, v in zip(keyset.fields, values, strict=True)]}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(keyset: Keyset, cursor: str, *, aware: bool) -> tuple[Any, ...]:
    """The sort key values a cursor holds; :class:`CursorInvalid` unless it is a cursor of exactly this order."""
    text = cursor.strip()
    if len(text) > MAX_CURSOR_LENGTH:
        raise CursorInvalid
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        payload = json.loads(raw.decode())
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise CursorInvalid from exc
    if not isinstance(payload, dict) or set(payload) != {"o", "k"}:
        raise CursorInvalid
    if payload["o"] != list(keyset.terms):
        raise CursorOfAnotherOrder
    values = payload["k"]
    if not isinstance(values, list) or len(values) != len(keyset.fields):
        raise CursorInvalid
    return tuple(_load(field, value, aware) for field, value in zip(keyset.fields, values, strict=True))


# --- the seek --------------------------------------------------------------------------------------------------


class RowCompare(Func):
    """``(col1, col2, ...) < (%s, %s, ...)`` (or ``>``): one row-value comparison, which PostgreSQL answers with an
    index seek on an index of the same columns in the same order (``Index Cond: ROW(created_at, id) < ROW(...)``),
    where the equivalent ``a < x OR (a = x AND b < y)`` walks the index from its start. SQLite has row values since
    3.15."""

    output_field = BooleanField()

    def __init__(self, columns: list[F], values: list[Value], operator: str) -> None:
        super().__init__(*columns, *values)
        self.width = len(columns)
        self.operator = operator

    def as_sql(self, compiler, connection, **extra_context):
        parts, params = [], []
        for expression in self.source_expressions:
            sql, expression_params = compiler.compile(expression)
            parts.append(sql)
            params.extend(expression_params)
        left, right = ", ".join(parts[: self.width]), ", ".join(parts[self.width :])
        return f"({left}) {self.operator} ({right})", params


def after(queryset: QuerySet, keyset: Keyset, values: tuple[Any, ...]) -> QuerySet:
    """The rows of ``queryset`` after the row whose sort key is ``values``, in its order."""
    columns = [F(field.attname) for field in keyset.fields]
    bound = [Value(value, output_field=field) for field, value in zip(keyset.fields, values, strict=True)]
    return queryset.filter(RowCompare(columns, bound, "<" if keyset.descending else ">"))


def rows_and_keys(queryset: QuerySet, keyset: Keyset, count: int) -> tuple[list[Any], list[tuple[Any, ...]]] | None:
    """The first ``count`` rows of ``queryset`` as it would give them (model instances, or ``values_list`` tuples or
    values) and the sort key of each, in one query; None for a queryset shape this does not read (``values()``)."""
    iterable = queryset._iterable_class
    attnames = [field.attname for field in keyset.fields]
    if issubclass(iterable, ModelIterable):
        rows = list(queryset[:count])
        return rows, [tuple(getattr(row, name) for name in attnames) for row in rows]
    if iterable in (FlatValuesListIterable, ValuesListIterable) and queryset._fields:
        width = len(queryset._fields)
        wide = list(queryset.values_list(*queryset._fields, *attnames)[:count])
        if iterable is FlatValuesListIterable:
            rows = [row[0] for row in wide]
        else:
            rows = [row[:width] for row in wide]
        return rows, [row[width:] for row in wide]
    return None
