"""``{total, rows}`` pagination with Snipe-IT's forgiving limit/offset rules (API-CONTRACT.md §4), and the opt-in
keyset pages of ``?cursor=`` (:mod:`assetsvc.api.keyset`; docs/decisions.md "Issue 13: keyset pagination")."""

from __future__ import annotations

import copy
from collections import OrderedDict

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from assetsvc.api import keyset as ks
from assetsvc.api.exceptions import BadQueryParameter
from assetsvc.conf import app_settings

CURSOR_WITH_OFFSET = "The cursor parameter cannot be combined with offset."
CURSOR_ORDER_UNSUPPORTED = ("This list cannot be paged by cursor in this sort order: use the default sort (or another "
                            "column of the record that is never empty), or page with offset.")
CURSOR_INVALID = "The cursor is invalid."
CURSOR_OTHER_ORDER = "The cursor belongs to another sort order."


class QuerySetNotOrdered(Exception):
    """Paging an unordered queryset gives unstable pages; every list must order (and end with ``id``)."""


def _to_int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        try:
            number = float(str(value).strip())
        except (TypeError, ValueError):
            return None
        if number != number or number in (float("inf"), float("-inf")):
            return None
        return int(number)


def detached(data):
    """``data`` with its serializer's references to the page dropped (issue 13: worker memory).

    A serializer is a reference cycle (its fields point back to it, ``serializer.data`` points to the serializer
    and the serializer to its data), so the page it holds (``instance`` and the ``_args`` it was built with, in
    the list serializer and in its child: 500 rows) and its output (``_data``: 500 records) were freed only by a
    garbage collection, not when the request ended; between collections they piled up. The answer is the same
    list; the serializer keeps neither, and the page's rows drop their prefetched relations.
    """
    serializer = getattr(data, "serializer", None)
    if serializer is None:
        return data
    page = serializer.instance
    for holder in (serializer, getattr(serializer, "child", None)):
        if holder is not None:
            vars(holder).pop("_data", None)
            holder.instance = None
            holder._args = ()
    for row in page if isinstance(page, list) else ():
        # A prefetched relation (``prefetch_related``) is a queryset that points back to its row (its hints): a
        # cycle per row, so the rows of a users page would still wait for the collector.
        row_vars = getattr(row, "__dict__", None)
        if row_vars is not None:
            row_vars.pop("_prefetched_objects_cache", None)
    return data


class TotalRowsPagination(LimitOffsetPagination):
    """Limit: absent or not a number → 50; 0 or above MAX_RESULTS → MAX_RESULTS; negative → its absolute value,
    still capped. Offset: absent or negative → 0; beyond the end → no rows. ``total`` counts before paging.

    With ``cursor`` in the query string (``cursor=`` for the first page) the list is paged by keyset instead: the
    page is the ``limit`` rows after the cursor's row, nothing is counted (``total`` is null) and ``next_cursor``
    is the cursor of the next page (null on the last). Without it the answer is exactly the offset answer."""

    default_limit = 50
    cursor_query_param = "cursor"
    cursor_mode = False
    next_cursor: str | None = None

    @property
    def max_limit(self) -> int:  # read per request so the setting can change in tests
        return app_settings.MAX_RESULTS

    def get_limit(self, request) -> int:
        raw = request.query_params.get(self.limit_query_param)
        if raw is None or str(raw).strip() == "":
            return min(self.default_limit, self.max_limit)
        number = _to_int(raw)
        if number is None:
            return min(self.default_limit, self.max_limit)
        number = abs(number)
        if number == 0 or number > self.max_limit:
            return self.max_limit
        return number

    def get_offset(self, request) -> int:
        number = _to_int(request.query_params.get(self.offset_query_param))
        if number is None or number < 0:
            return 0
        return min(number, 2**62)

    def paginate_queryset(self, queryset, request, view=None, *, total: int | None = None):
        """The offset page (or the keyset page with ``?cursor=``). ``total``: the queryset's row count when the
        caller knows it exactly without counting (the hardware list's live-asset tally); otherwise it is counted."""
        if hasattr(queryset, "ordered") and not queryset.ordered:
            raise QuerySetNotOrdered(f"{queryset.model.__name__} list is not ordered")
        self.request = request
        self.limit = self.get_limit(request)
        if self.cursor_query_param in request.query_params:
            return self.paginate_by_cursor(queryset, request)
        self.cursor_mode = False
        self.offset = self.get_offset(request)
        self.count = self.get_count(queryset) if total is None else total
        if self.count == 0 or self.offset >= self.count:
            return []
        return list(queryset[self.offset : self.offset + self.limit])

    def paginate_counted(self, queryset, request):
        """The page and the ``total`` in one query, for lists whose filter costs more than the page (a search):
        ``queryset`` yields ``(value, total)`` pairs, its second column ``COUNT(*) OVER ()`` (the whole filtered
        set, counted before ``LIMIT``). Only a page past the end asks for the count alone.
        Not for ``?cursor=`` pages (:meth:`paginate_queryset`), which count nothing."""
        if hasattr(queryset, "ordered") and not queryset.ordered:
            raise QuerySetNotOrdered(f"{queryset.model.__name__} list is not ordered")
        self.request = request
        self.limit = self.get_limit(request)
        self.cursor_mode = False
        self.offset = self.get_offset(request)
        page = list(queryset[self.offset : self.offset + self.limit])
        if page:
            self.count = page[0][1]
        else:
            self.count = queryset.count() if self.offset else 0
        return [value for value, _ in page]

    def paginate_by_cursor(self, queryset, request) -> list:
        """The keyset page: the first ``limit`` rows after the cursor's (all of them from the start for an empty
        cursor), read with one more row to learn whether a next page exists, in one query and without a count."""
        if self.offset_query_param in request.query_params:
            raise BadQueryParameter(self.cursor_query_param, CURSOR_WITH_OFFSET)
        keyset = ks.keyset_of(queryset) if hasattr(queryset, "query") else None
        if keyset is None:
            raise BadQueryParameter(self.cursor_query_param, CURSOR_ORDER_UNSUPPORTED)
        self.cursor_mode = True
        self.count = None
        self.next_cursor = None
        cursor = request.query_params.get(self.cursor_query_param) or ""
        if cursor.strip():
            try:
                values = ks.decode_cursor(keyset, cursor, aware=settings.USE_TZ)
            except ks.CursorInvalid as exc:
                message = CURSOR_OTHER_ORDER if isinstance(exc, ks.CursorOfAnotherOrder) else CURSOR_INVALID
                raise BadQueryParameter(self.cursor_query_param, message) from exc
            queryset = ks.after(queryset, keyset, values)
        read = ks.rows_and_keys(queryset, keyset, self.limit + 1)
        if read is None:
            raise BadQueryParameter(self.cursor_query_param, CURSOR_ORDER_UNSUPPORTED)
        rows, keys = read
        if len(rows) > self.limit:
            rows = rows[: self.limit]
            self.next_cursor = ks.encode_cursor(keyset, keys[self.limit - 1])
        return rows

    def get_paginated_response(self, data) -> Response:
        if self.cursor_mode:
            return Response(OrderedDict([("total", None), ("rows", detached(data)), ("next_cursor", self.next_cursor)]))
        return Response(OrderedDict([("total", self.count), ("rows", detached(data))]))

    def get_paginated_response_schema(self, schema: dict) -> dict:
        """One of two envelopes: Snipe-IT's ``{total, rows}`` (as before the cursor existed), or a cursor page's
        ``{total: null, rows, next_cursor}``; ``required`` tells them apart."""
        return {"oneOf": [
            {
                "type": "object",
                "required": ["total", "rows"],
                "properties": {"total": {"type": "integer", "example": 123}, "rows": schema},
            },
            {
                "type": "object",
                "description": "A page of ``?cursor=``: nothing is counted.",
                "required": ["total", "rows", "next_cursor"],
                "properties": {
                    "total": {"type": "integer", "nullable": True, "description": "Always null (not counted)."},
                    "rows": copy.deepcopy(schema),
                    "next_cursor": {"type": "string", "nullable": True,
                                    "description": "The ``cursor`` of the next page; null on the last page."},
                },
            },
        ]}

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [*super().get_schema_operation_parameters(view), {
            "name": self.cursor_query_param,
            "required": False,
            "in": "query",
            "description": "Opt-in keyset paging: empty for the first page, then each answer's ``next_cursor``. "
                           "Nothing is counted (``total`` is null); not with ``offset``, and only in the default "
                           "order or a sort by a column of the record that is never empty (else HTTP 400).",
            "schema": {"type": "string"},
        }]
