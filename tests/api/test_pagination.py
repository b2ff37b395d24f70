"""limit/offset rules of API-CONTRACT.md §4, on the pagination class every list uses."""

from __future__ import annotations

import pytest
from django.db.models import F
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


# --- keyset pages (``?cursor=``) in the shared machinery ---------------------------------------------------------


def test_keyset_of_accepts_plain_orders_ending_in_a_unique_key():
    from assetsvc.api.keyset import keyset_of
    from companies.models import Company
    from inventory.models import Accessory, Asset

    keyset = keyset_of(Asset.objects.order_by("-created_at", "-id"))
    assert keyset.terms == ("-created_at", "-id") and keyset.descending
    assert keyset_of(Asset.objects.all()).terms == ("-created_at", "-id")  # Meta.ordering
    assert keyset_of(Company.objects.order_by("name", "pk")).terms == ("name", "id")
    assert keyset_of(Company.objects.order_by("-id", "-id")).terms == ("-id",)
    for refused in (
        Asset.objects.order_by("-created_at"),  # not unique
        Asset.objects.order_by("created_at", "-id"),  # mixed directions
        Asset.objects.order_by("-purchase_date", "-id"),  # may be null
        Asset.objects.order_by("-model__name", "-id"),  # a relation's column
        Asset.objects.order_by("-model", "-id"),  # a relation
        Asset.objects.order_by("?"),
        Accessory.objects.order_by(F("name").desc(), "-id"),  # an expression
        Company.objects.with_counts().order_by("-assets_count", "-id"),  # an annotation
    ):
        assert keyset_of(refused) is None, refused.query.order_by


@pytest.mark.parametrize("cursor_values", [
    ("2026-03-01T14:05:00.000001+00:00", 7),
    ("2026-03-01T14:05:00+02:00", 2**63 - 1),
])
def test_cursor_round_trip(cursor_values):
    import datetime as dt

    from assetsvc.api.keyset import decode_cursor, encode_cursor, keyset_of
    from inventory.models import Asset

    keyset = keyset_of(Asset.objects.order_by("-created_at", "-id"))
    when = dt.datetime.fromisoformat(cursor_values[0])
    cursor = encode_cursor(keyset, (when, cursor_values[1]))
    assert "=" not in cursor and decode_cursor(keyset, cursor, aware=True) == (when, cursor_values[1])


def test_a_model_instance_list_walks_by_cursor(token_client):
    """``/companies`` pages model instances (with counts), not ids: the same walk as offset's, ties included."""
    from companies.models import Company

    CompanyFactory.create_batch(7)
    first_four = list(Company.objects.order_by("id").values_list("pk", flat=True)[:4])
    Company.objects.filter(pk__in=first_four).update(created_at=Company.objects.get(pk=first_four[0]).created_at)
    for params in ({}, {"sort": "name", "order": "asc"}, {"search": "o"}):
        ids, cursor = [], ""
        while cursor is not None:
            body = token_client.get("/api/v1/companies", {**params, "cursor": cursor, "limit": 2}).json()
            ids += [row["id"] for row in body["rows"]]
            cursor = body["next_cursor"]
        offset = token_client.get("/api/v1/companies", {**params, "limit": 500}).json()
        assert ids == [row["id"] for row in offset["rows"]] and len(ids) == offset["total"], params


def test_a_list_sorted_by_a_computed_value_refuses_the_cursor(token_client):
    from tests.factories import AccessoryFactory

    AccessoryFactory()
    response = token_client.get("/api/v1/accessories", {"cursor": "", "sort": "remaining"})
    assert response.status_code == 400 and response.json()["messages"]["cursor"][0].startswith("This list cannot")
    body = token_client.get("/api/v1/accessories", {"cursor": ""}).json()
    assert body["total"] is None and len(body["rows"]) == 1 and body["next_cursor"] is None


def test_a_python_list_is_not_paged_by_cursor():
    from assetsvc.api.exceptions import BadQueryParameter

    with pytest.raises(BadQueryParameter):
        page("cursor=", [1, 2, 3])
