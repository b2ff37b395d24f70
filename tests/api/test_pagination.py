"""limit/offset rules of API-CONTRACT.md §4, on the pagination class every list uses."""

from __future__ import annotations

import pytest
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from assetsvc.api.pagination import QuerySetNotOrdered, TotalRowsPagination
from tests.factories import CompanyFactory

pytestmark = pytest.mark.django_db


def page(query: str, queryset):
    paginator = TotalRowsPagination()
    request = Request(APIRequestFactory().get(f"/x?{query}"))
    rows = paginator.paginate_queryset(queryset, request)
    return paginator, rows


@pytest.mark.parametrize(
    ("query", "limit", "offset"),
    [
        ("", 50, 0),
        ("limit=10", 10, 0),
        ("limit=0", 500, 0),
        ("limit=501", 500, 0),
        ("limit=99999999999999999999999", 500, 0),
        ("limit=-7", 7, 0),
        ("limit=-9000", 500, 0),
        ("limit=abc", 50, 0),
        ("limit=1.9", 1, 0),
        ("limit=nan", 50, 0),
        ("offset=-5", 50, 0),
        ("offset=abc", 50, 0),
        ("offset=3", 50, 3),
    ],
)
def test_limit_and_offset_rules(query, limit, offset):
    from companies.models import Company

    paginator, _ = page(query, Company.objects.order_by("id"))
    assert (paginator.limit, paginator.offset) == (limit, offset)


def test_max_results_setting_caps(settings):
    from companies.models import Company

    settings.ASSETSVC = {**settings.ASSETSVC, "MAX_RESULTS": 20}
    paginator, _ = page("limit=0", Company.objects.order_by("id"))
    assert paginator.limit == 20


def test_total_counts_before_paging_and_offset_beyond_end_is_empty():
    from companies.models import Company

    CompanyFactory.create_batch(7)
    paginator, rows = page("limit=3&offset=5", Company.objects.order_by("id"))
    assert paginator.count == 7 and len(rows) == 2
    paginator, rows = page("offset=100", Company.objects.order_by("id"))
    assert paginator.count == 7 and rows == []
    assert paginator.get_paginated_response([]).data == {"total": 7, "rows": []}


def test_unordered_querysets_are_refused():
    from companies.models import Company

    with pytest.raises(QuerySetNotOrdered):
        page("", Company.objects.order_by())
