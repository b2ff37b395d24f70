"""``{total, rows}`` pagination with Snipe-IT's forgiving limit/offset rules (API-CONTRACT.md §4)."""

from __future__ import annotations

from collections import OrderedDict

from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from assetsvc.conf import app_settings


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
    still capped. Offset: absent or negative → 0; beyond the end → no rows. ``total`` counts before paging."""

    default_limit = 50

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

    def paginate_queryset(self, queryset, request, view=None):
        if hasattr(queryset, "ordered") and not queryset.ordered:
            raise QuerySetNotOrdered(f"{queryset.model.__name__} list is not ordered")
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        self.count = self.get_count(queryset)
        if self.count == 0 or self.offset >= self.count:
            return []
        return list(queryset[self.offset : self.offset + self.limit])

    def paginate_counted(self, queryset, request, count_field: str = "rows_total"):
        """The page and the ``total`` in one query, for lists whose filter costs more than the page (a search):
        ``queryset`` is annotated with ``count_field`` = ``COUNT(*) OVER ()`` (the whole filtered set, counted
        before ``LIMIT``) and yields ``(value, total)`` pairs. Only a page past the end asks for the count alone."""
        if hasattr(queryset, "ordered") and not queryset.ordered:
            raise QuerySetNotOrdered(f"{queryset.model.__name__} list is not ordered")
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        page = list(queryset[self.offset : self.offset + self.limit])
        if page:
            self.count = page[0][1]
        else:
            self.count = queryset.count() if self.offset else 0
        return [value for value, _ in page]

    def get_paginated_response(self, data) -> Response:
        return Response(OrderedDict([("total", self.count), ("rows", detached(data))]))

    def get_paginated_response_schema(self, schema: dict) -> dict:
        return {
            "type": "object",
            "required": ["total", "rows"],
            "properties": {"total": {"type": "integer", "example": 123}, "rows": schema},
        }
