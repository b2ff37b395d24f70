"""``GET /hardware?search=`` matches the same columns and related names as the generic ``SearchFilter`` over the
original ``search_fields`` list did, now that the hardware view matches related names in their own tables first
(``inventory.selectors.assets.search_assets``, docs/performance.md)."""

from __future__ import annotations

import pytest

from assetsvc.api.viewsets import search_q
from inventory.choices import StatusType
from inventory.models import Asset
from inventory.selectors import assets as selectors
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CompanyFactory,
    LocationFactory,
    ManufacturerFactory,
    StatusLabelFactory,
    SupplierFactory,
    UserFactory,
)
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"

#: The list the view searched with before (the behaviour to keep).
REFERENCE_FIELDS = [
    "name", "asset_tag", "serial", "order_number", "notes", "status__name", "supplier__name", "company__name",
    "rtd_location__name", "location__name", "model__name", "model__model_number", "model__category__name",
    "model__manufacturer__name", "assigned_user__first_name", "assigned_user__last_name",
    "assigned_user__username", "assigned_user__employee_num", "assigned_location__name", "assigned_asset__name",
    "assigned_asset__asset_tag",
]


@pytest.fixture
def world():
    """One asset per searchable column, each holding a token no other row contains."""
    made = {
        "name": AssetFactory(name="xqname"),
        "asset_tag": AssetFactory(asset_tag="XQTAG-1"),
        "serial": AssetFactory(serial="xqserial"),
        "order_number": AssetFactory(order_number="xqorder"),
        "notes": AssetFactory(notes="a xqnote here"),
        "status": AssetFactory(status=StatusLabelFactory(name="xqstatus", type=StatusType.PENDING)),
        "supplier": AssetFactory(supplier=SupplierFactory(name="xqsupplier")),
        "company": AssetFactory(company=CompanyFactory(name="xqcompany")),
        "rtd_location": AssetFactory(rtd_location=LocationFactory(name="xqrtd")),
        "location": AssetFactory(location=LocationFactory(name="xqplace")),
        "model": AssetFactory(model=AssetModelFactory(name="xqmodel")),
        "model_number": AssetFactory(model=AssetModelFactory(model_number="xqnumber")),
        "category": AssetFactory(model=AssetModelFactory(category=CategoryFactory(name="xqcategory"))),
        "manufacturer": AssetFactory(model=AssetModelFactory(manufacturer=ManufacturerFactory(name="xqmaker"))),
        "first_name": checked_out_asset(UserFactory(first_name="xqfirst")),
        "last_name": checked_out_asset(UserFactory(last_name="xqlast")),
        "username": checked_out_asset(UserFactory(username="xquser")),
        "employee_num": checked_out_asset(UserFactory(employee_num="xqemp")),
        "assigned_location": checked_out_asset(LocationFactory(name="xqtarget")),
        "assigned_asset_name": checked_out_asset(AssetFactory(name="xqparent")),
        "assigned_asset_tag": checked_out_asset(AssetFactory(asset_tag="XQPTAG")),
    }
    AssetFactory.create_batch(3)
    return made


@pytest.mark.parametrize("key, term", [
    ("name", "QNAM"), ("asset_tag", "xqtag"), ("serial", "XQSERIAL"), ("order_number", "qorde"), ("notes", "xqNOTE"),
    ("status", "xqstat"), ("supplier", "XQSUPP"), ("company", "qcompan"), ("rtd_location", "xqrtd"),
    ("model", "xqmod"), ("model_number", "XQNUM"), ("category", "xqcat"), ("manufacturer", "xqmak"),
    ("first_name", "XQFIRST"), ("last_name", "xqlas"), ("username", "xqus"), ("employee_num", "xqemp"),
    ("assigned_location", "xqtarg"),
])
def test_each_column_matches_case_insensitively(token_client, world, key, term):
    body = token_client.get(URL, {"search": term}).json()
    assert [row["id"] for row in body["rows"]] == [world[key].pk]
    assert body["total"] == 1


def test_location_and_parent_asset_match_every_asset_that_shows_them(token_client, world):
    rows = token_client.get(URL, {"search": "xqplace", "sort": "id", "order": "asc"}).json()["rows"]
    assert [row["id"] for row in rows] == [world["location"].pk]
    parent = world["assigned_asset_name"].assigned_asset
    rows = token_client.get(URL, {"search": "XQPAR", "sort": "id", "order": "asc"}).json()["rows"]
    assert [row["id"] for row in rows] == [parent.pk, world["assigned_asset_name"].pk]  # its own name, its child's
    parent = world["assigned_asset_tag"].assigned_asset
    rows = token_client.get(URL, {"search": "xqptag", "sort": "id", "order": "asc"}).json()["rows"]
    assert [row["id"] for row in rows] == [parent.pk, world["assigned_asset_tag"].pk]  # its own tag, its child's


def test_or_terms_and_blank_search(token_client, world):
    body = token_client.get(URL, {"search": "xqserial OR xqmaker OR  OR nothing-matches"}).json()
    assert {row["id"] for row in body["rows"]} == {world["serial"].pk, world["manufacturer"].pk}
    assert token_client.get(URL, {"search": " OR "}).json()["total"] == Asset.objects.count()
    assert token_client.get(URL, {"search": "   "}).json()["total"] == Asset.objects.count()


@pytest.mark.parametrize("text", ["xq", "XQ OR 1", "e", "xqtag-1", "%", "_", "nothing"])
def test_same_rows_as_the_reference_field_list(world, text):
    queryset = Asset.objects.all()
    expected = set(queryset.filter(search_q(text, REFERENCE_FIELDS)).values_list("pk", flat=True))
    assert set(selectors.search_assets(queryset, text).values_list("pk", flat=True)) == expected


def test_search_pages_keep_the_total_on_every_page_and_past_the_end(token_client):
    """The indexed search counts and pages in one query (PostgreSQL); ``total`` is the same on every page, also
    past the end, and the pages together hold every match once, in the default order."""
    matches = [AssetFactory(name=f"xqpaged {index}") for index in range(7)]
    AssetFactory(name="unrelated")
    seen = []
    for offset in (0, 3, 6):
        body = token_client.get(URL, {"search": "xqpaged", "limit": 3, "offset": offset}).json()
        assert body["total"] == 7
        seen += [row["id"] for row in body["rows"]]
    assert seen == [asset.pk for asset in reversed(matches)]
    assert token_client.get(URL, {"search": "xqpaged", "offset": 50}).json() == {"total": 7, "rows": []}
    assert token_client.get(URL, {"search": "xqnothing"}).json() == {"total": 0, "rows": []}


def test_a_search_can_be_walked_with_the_cursor(token_client):
    """``?cursor=`` pages a search too (uncounted), with the same matches in the same order as the offset pages."""
    matches = [AssetFactory(name=f"xqwalk {index}") for index in range(5)]
    AssetFactory(name="unrelated")
    seen, cursor = [], ""
    while cursor is not None:
        body = token_client.get(URL, {"search": "xqwalk", "limit": 2, "cursor": cursor}).json()
        assert body["total"] is None
        seen += [row["id"] for row in body["rows"]]
        cursor = body["next_cursor"]
    assert seen == [asset.pk for asset in reversed(matches)]
