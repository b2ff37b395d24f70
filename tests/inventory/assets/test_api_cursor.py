"""``GET /hardware?cursor=``: keyset pages (issue 13; docs/decisions.md "Keyset pagination"), through the HTTP API.

A cursor walk must give exactly what an offset walk gives (same rows, same order, each once), also with filters, for
a company user, across ties on ``created_at`` and across writes between pages; anything it cannot follow is a 400
envelope, never a 500 and never a wrong page."""

from __future__ import annotations

import base64
import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.choices import StatusType
from inventory.models import Asset
from tests.api_mixins import ERROR_KEYS, http_errors
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
URL = "/api/v1/hardware"
T0 = dt.datetime(2026, 3, 1, 14, 5, 0, tzinfo=dt.UTC)


def walk(client, params: dict | None = None, *, limit: int = 3) -> list[int]:
    """Every id a cursor walk gives, page after page, checking each page's envelope."""
    ids: list[int] = []
    cursor = ""
    for _ in range(1000):
        response = client.get(URL, {**(params or {}), "cursor": cursor, "limit": limit})
        assert response.status_code == 200, response.content
        body = response.json()
        assert list(body) == ["total", "rows", "next_cursor"] and body["total"] is None, body
        assert len(body["rows"]) <= limit
        ids += [row["id"] for row in body["rows"]]
        cursor = body["next_cursor"]
        if cursor is None:
            return ids
        assert len(body["rows"]) == limit  # a next page is announced only after a full one
    raise AssertionError("the walk does not end")


def offset_walk(client, params: dict | None = None, *, limit: int = 3) -> list[int]:
    ids: list[int] = []
    while True:
        body = client.get(URL, {**(params or {}), "offset": len(ids), "limit": limit}).json()
        ids += [row["id"] for row in body["rows"]]
        if not body["rows"]:
            assert len(ids) == body["total"]
            return ids


def stamp(asset: Asset, when: dt.datetime) -> None:
    Asset.objects.filter(pk=asset.pk).update(created_at=when)


def cursor_of(order: list[str], keys: list) -> str:
    raw = json.dumps({"o": order, "k": keys}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def assert_400(response, text: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert set(body) == ERROR_KEYS and body["status"] == "error" and body["payload"] is None
    assert body["message"] == text and body["messages"] == {"cursor": [text]}


def test_walk_gives_every_visible_asset_once_in_the_default_order(token_client):
    assets = AssetFactory.create_batch(10)
    for index, asset in enumerate(assets):
        stamp(asset, T0 + dt.timedelta(minutes=index % 4))  # ties on created_at, broken by id
    AssetFactory().delete()  # soft delete: hidden from lists
    Asset.objects.filter(pk=AssetFactory().pk).update(deleted_at=T0)
    AssetFactory(status=StatusLabelFactory(type=StatusType.ARCHIVED))  # archived: hidden by default

    expected = [a.pk for _, a in sorted(enumerate(assets), key=lambda pair: (pair[0] % 4, pair[1].pk), reverse=True)]
    ids = walk(token_client)
    assert ids == expected == offset_walk(token_client)
    for limit in (1, 2, 10, 11, 500):
        assert walk(token_client, limit=limit) == expected


def test_ties_on_created_at_are_broken_by_id_across_pages(token_client):
    assets = AssetFactory.create_batch(7)
    Asset.objects.update(created_at=T0)
    assert walk(token_client, limit=2) == sorted((a.pk for a in assets), reverse=True)


def test_timestamps_round_trip_to_the_microsecond(token_client):
    """Neighbours one microsecond apart, one on a whole second (no fraction: the cursor still carries six digits)."""
    assets = AssetFactory.create_batch(5)
    for offset, asset in zip((0, 1, 2, 999_999, 1_000_000), assets, strict=True):
        stamp(asset, T0 + dt.timedelta(microseconds=offset))
    expected = [a.pk for a in reversed(assets)]
    assert walk(token_client, limit=1) == expected
    first = token_client.get(URL, {"cursor": "", "limit": 1}).json()["next_cursor"]
    keys = json.loads(base64.urlsafe_b64decode(first + "=" * (-len(first) % 4)))["k"]
    assert keys == ["2026-03-01T14:05:01.000000+00:00", assets[-1].pk]


def test_writes_between_pages_neither_repeat_nor_skip_the_other_assets(token_client):
    assets = AssetFactory.create_batch(9)
    for index, asset in enumerate(assets):
        stamp(asset, T0 + dt.timedelta(seconds=index))
    newest_first = [a.pk for a in reversed(assets)]
    page = token_client.get(URL, {"cursor": "", "limit": 3}).json()
    seen = [row["id"] for row in page["rows"]]
    assert seen == newest_first[:3]

    AssetFactory()  # newer than every page read so far: belongs before the cursor, not after it
    late = AssetFactory()
    stamp(late, T0 + dt.timedelta(seconds=4, microseconds=500))  # lands among the pages still to come
    Asset.objects.get(pk=seen[0]).delete()  # a row already read goes away
    gone = newest_first[5]
    Asset.objects.get(pk=gone).delete()  # a row not read yet goes away

    cursor = page["next_cursor"]
    while cursor:
        page = token_client.get(URL, {"cursor": cursor, "limit": 3}).json()
        seen += [row["id"] for row in page["rows"]]
        cursor = page["next_cursor"]
    assert len(seen) == len(set(seen))
    expected_rest = [pk for pk in newest_first[3:] if pk != gone]
    expected_rest.insert(expected_rest.index(assets[4].pk), late.pk)
    assert seen[3:] == expected_rest


@pytest.mark.parametrize("param", ["status_id", "model_id", "company_id", "location_id", "search", "status"])
def test_filters_compose_with_the_cursor(token_client, param):
    status, model, company, place = StatusLabelFactory(), AssetModelFactory(), CompanyFactory(), LocationFactory()
    AssetFactory.create_batch(4)
    picked = [AssetFactory(status=status, model=model, company=company, location=place, name=f"Needle {n}",
                           requestable=True) for n in range(5)]
    AssetFactory.create_batch(3, status=status)
    AssetFactory.create_batch(3, model=model)
    AssetFactory.create_batch(3, company=company)
    AssetFactory.create_batch(3, location=place)
    values = {"status_id": status.pk, "model_id": model.pk, "company_id": company.pk, "location_id": place.pk,
              "search": "needle", "status": "Requestable"}
    params = {param: values[param]}
    ids = walk(token_client, params, limit=2)
    assert ids == offset_walk(token_client, params, limit=2)
    assert set(ids) >= {a.pk for a in picked} and len(ids) == len(set(ids))
    if param in ("search", "status"):
        assert ids == [a.pk for a in reversed(picked)]


def test_other_sort_columns_work_when_never_empty(token_client):
    for name in ("b", "a", "c", "a", "b"):
        AssetFactory(name=name)
    for params in ({"sort": "name", "order": "asc"}, {"sort": "name"}, {"sort": "id", "order": "asc"},
                   {"sort": "asset_tag"}, {"sort": "created_at", "order": "asc"}, {"sort": "not-a-column"}):
        assert walk(token_client, params, limit=2) == offset_walk(token_client, params, limit=2), params


def test_a_company_user_walks_only_their_company(make_client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    own = [AssetFactory(company=mine) for _ in range(5)]
    others = [AssetFactory(company=theirs) for _ in range(5)]
    for index, asset in enumerate(own + others):
        stamp(asset, T0 + dt.timedelta(seconds=index % 5))  # interleaved: each company's rows between the other's
    client = make_client(UserFactory(company=mine, permissions={"assets.view": 1}))
    assert walk(client, limit=2) == [a.pk for a in reversed(own)]
    assert walk(client, {"company_id": theirs.pk}) == []
    # A cursor placed on another company's row (forged) moves the start, never the visible set: the own rows after
    # that position (own[3] shares its second and has a smaller id).
    forged = cursor_of(["-created_at", "-id"], [(T0 + dt.timedelta(seconds=3)).isoformat(), others[3].pk])
    body = client.get(URL, {"cursor": forged, "limit": 500}).json()
    assert [row["id"] for row in body["rows"]] == [a.pk for a in reversed(own[:4])]


def test_without_a_cursor_the_answer_is_unchanged(token_client):
    AssetFactory.create_batch(3)
    body = token_client.get(URL, {"limit": 2}).json()
    assert list(body) == ["total", "rows"] and body["total"] == 3 and len(body["rows"]) == 2
    assert token_client.get(URL, {"offset": 1}).content.startswith(b'{"total":3,"rows":[')


def test_cursor_with_offset_is_refused(token_client, settings):
    AssetFactory()
    text = "The cursor parameter cannot be combined with offset."
    assert_400(token_client.get(URL, {"cursor": "", "offset": 0}), text)
    http_errors(settings)  # a real 400 in both error modes
    assert_400(token_client.get(URL, {"cursor": "", "offset": 10}), text)


@pytest.mark.parametrize("sort", ["model", "purchase_date", "assigned_to", "last_checkout", "company"])
def test_a_sort_the_cursor_cannot_follow_is_refused(token_client, sort):
    AssetFactory()
    response = token_client.get(URL, {"cursor": "", "sort": sort})
    assert_400(response, response.json()["message"])
    assert "cannot be paged by cursor" in response.json()["message"]
    assert token_client.get(URL, {"sort": sort}).json()["total"] == 1  # offset paging still takes it


BAD_CURSORS = [
    "!!!", "a", "e30", base64.urlsafe_b64encode(b"\xff\xfe").decode(), base64.urlsafe_b64encode(b"[1]").decode(),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00+00:00"]),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00+00:00", "12"]),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00+00:00", 12.5]),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00+00:00", True]),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00+00:00", 2**63]),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00", 12]),  # no time zone
    cursor_of(["-created_at", "-id"], ["yesterday", 12]),
    cursor_of(["-created_at", "-id"], ["2026-03-01T14:05:00\u0000+00:00", 12]),
    cursor_of(["-created_at", "-id"], [None, 12]),
    base64.urlsafe_b64encode(json.dumps({"o": ["-created_at", "-id"], "k": ["x", 1], "z": 1}).encode()).decode(),
    "e" * 5000,
]


@pytest.mark.parametrize("cursor", BAD_CURSORS)
def test_a_malformed_or_tampered_cursor_is_a_400(token_client, cursor):
    AssetFactory()
    assert_400(token_client.get(URL, {"cursor": cursor}), "The cursor is invalid.")


def test_a_cursor_of_another_order_is_refused(token_client):
    AssetFactory.create_batch(3)
    by_name = token_client.get(URL, {"cursor": "", "sort": "name", "limit": 1}).json()["next_cursor"]
    assert_400(token_client.get(URL, {"cursor": by_name}), "The cursor belongs to another sort order.")
    newest = token_client.get(URL, {"cursor": "", "limit": 1}).json()["next_cursor"]
    assert_400(token_client.get(URL, {"cursor": newest, "order": "asc"}), "The cursor belongs to another sort order.")


def test_a_cursor_page_runs_a_constant_number_of_queries(token_client, django_assert_max_num_queries):
    for _ in range(3):
        AssetFactory(assigned_user=UserFactory(), company=CompanyFactory(), location=LocationFactory())
    token_client.get(URL)  # the first request of a token also records its first use
    with CaptureQueriesContext(connection) as ctx:
        token_client.get(URL, {"cursor": "", "limit": 500})
    small = len(ctx.captured_queries)
    for _ in range(60):
        AssetFactory(assigned_user=UserFactory(), company=CompanyFactory(), location=LocationFactory())
    with CaptureQueriesContext(connection) as ctx:
        offset_body = token_client.get(URL, {"limit": 500}).json()
    assert small == len(ctx.captured_queries) - 1  # no count
    with django_assert_max_num_queries(small):
        body = token_client.get(URL, {"cursor": "", "limit": 20}).json()
    with django_assert_max_num_queries(small):
        body = token_client.get(URL, {"cursor": body["next_cursor"], "limit": 500}).json()
    assert len(body["rows"]) == 43 and body["rows"] == offset_body["rows"][20:]


def test_the_other_hardware_lists_take_the_cursor(token_client, superuser):
    serial = AssetFactory.create_batch(3, serial="SAME")
    body = token_client.get(f"{URL}/byserial/SAME", {"cursor": "", "limit": 2}).json()
    assert [row["id"] for row in body["rows"]] == [serial[2].pk, serial[1].pk] and body["next_cursor"]
    held = AssetFactory.create_batch(3, assigned_user=superuser)
    body = token_client.get(f"/api/v1/users/{superuser.pk}/assets", {"cursor": "", "limit": 5}).json()
    assert [row["id"] for row in body["rows"]] == [a.pk for a in reversed(held)] and body["next_cursor"] is None
