"""Querysets compiled to SQL once per process, then run with new parameters (issue 13).

Compiling a queryset (joins, ``only()``, annotations) costs more Python time than PostgreSQL takes to run the
prepared statement, and the hot queries of every request (the bearer token with its user, a page of asset rows)
have the same shape every time. :class:`CompiledValues` builds the ``values_list`` queryset once with *sentinel*
parameters, keeps the SQL and Django's value converters, and on each call substitutes the real values for the
sentinels. Converters are applied exactly as the ORM would (SQLite's dates and booleans, JSON columns), so both
databases take the same path and read the same Python values as ``values_list`` would give.

If a sentinel does not come out of the compiler unchanged (Django compiled the queryset differently than
expected), :meth:`CompiledValues.rows` falls back to the ORM: slower, never wrong.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from django.db import connections
from django.db.models import QuerySet

_UNCOMPILABLE = object()


class CompiledValues:
    """``build(*args)`` returns a ``values_list`` queryset; :meth:`rows` runs it for ``args``, compiled once per
    database alias and ``shape`` (e.g. the number of ids, when that changes the SQL).

    ``sentinels(shape)`` gives the placeholder arguments to compile with: values that no real call passes and that
    the compiler hands through unchanged as parameters (negative ids, a string no column holds).
    """

    def __init__(self, build: Callable[..., QuerySet], sentinels: Callable[[Hashable], tuple]) -> None:
        self._build = build
        self._sentinels = sentinels
        self._compiled: dict[tuple[str, Hashable], Any] = {}
        self._lock = threading.Lock()

    def rows(self, *args: Any, shape: Hashable = None, using: str = "default") -> list[tuple]:
        compiled = self._compiled.get((using, shape))
        if compiled is None:
            with self._lock:
                compiled = self._compiled.setdefault((using, shape), self._compile(shape, using))
        if compiled is _UNCOMPILABLE:
            return list(self._build(*args).using(using))
        sql, slots, converters = compiled
        params = [args[slot] if isinstance(slot, int) else slot[0] for slot in slots]
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            fetched = cursor.fetchall()
        if not converters:
            return fetched
        rows = []
        for row in fetched:
            row = list(row)
            for position, (functions, expression) in converters:
                value = row[position]
                for function in functions:
                    value = function(value, expression, connection)
                row[position] = value
            rows.append(tuple(row))
        return rows

    def _compile(self, shape: Hashable, using: str):
        sentinels = self._sentinels(shape)
        compiler = self._build(*sentinels).query.get_compiler(using)
        sql, params = compiler.as_sql()
        slots: list[int | tuple[Any]] = []
        wanted = {value: index for index, value in enumerate(sentinels)}
        for value in params:
            if isinstance(value, Hashable) and value in wanted and type(value) is type(sentinels[wanted[value]]):
                slots.append(wanted.pop(value))
            else:
                slots.append((value,))  # a constant of the query itself
        if wanted:  # a sentinel was transformed or dropped: do not guess
            return _UNCOMPILABLE
        selected = [column for column, _, _ in compiler.select]
        converters = list(compiler.get_converters(selected).items())
        return sql, slots, converters


def int_sentinels(count: Hashable) -> Sequence[int]:
    """``count`` distinct negative ids: no row has them, and the compiler passes them through."""
    return tuple(range(-int(count), 0))
