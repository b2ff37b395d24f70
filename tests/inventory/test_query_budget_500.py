"""The issue's own figure: a list of 5 rows and a list of 500 rows run the same number of SQL queries, with rows
that use every relation the record shows (assignments to users, assets and locations, companies, suppliers).
Accessories and consumables too (issue 10): their units out come from one subquery, not one query per row."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.models import Accessory, AccessoryCheckout, Asset, Consumable, ConsumableAssignment
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

pytestmark = pytest.mark.django_db


def bulk_assets(count: int, start: int) -> None:
    """Rows built in bulk (500 factory saves would be slow), each pointing at distinct related rows."""
    models = [AssetModelFactory() for _ in range(5)]
    status = StatusLabelFactory()
    companies = [CompanyFactory() for _ in range(3)]
    places = [LocationFactory() for _ in range(5)]
    supplier = SupplierFactory()
    people = UserFactory.create_batch(5)
    parent = AssetFactory()
    rows = []
    for index in range(count):
        row = Asset(asset_tag=f"BULK-{start + index}", name=f"Bulk {index}", model=models[index % 5], status=status,
                    company=companies[index % 3], supplier=supplier, rtd_location=places[index % 5],
                    location=places[(index + 1) % 5], created_by=people[index % 5])
        kind = index % 3
        if kind == 0:
            row.assigned_user = people[index % 5]
        elif kind == 1:
            row.assigned_location = places[index % 5]
        else:
            row.assigned_asset = parent
        rows.append(row)
    Asset.objects.bulk_create(rows)


def queries_for(client, params: dict) -> tuple[int, dict]:
    with CaptureQueriesContext(connection) as ctx:
        body = client.get("/api/v1/hardware", params).json()
    return len(ctx.captured_queries), body


@pytest.mark.parametrize("params", [{}, {"search": "Bulk"}, {"sort": "model", "order": "asc"}])
def test_5_and_500_rows_run_the_same_number_of_queries(token_client, params):
    bulk_assets(5, 0)
    token_client.get("/api/v1/hardware")  # first request of the test creates the settings row: not a list cost
    small, body = queries_for(token_client, {**params, "limit": 5})
    assert len(body["rows"]) == 5
    bulk_assets(500, 1000)
    large, body = queries_for(token_client, {**params, "limit": 500})
    assert len(body["rows"]) == 500
    assert large == small


def bulk_stock(model, count: int, start: int) -> list:
    """``count`` accessories or consumables in bulk, each pointing at distinct related rows and holding units out in
    two rows (accessories: to a user, an asset or a location in turn; consumables: to users)."""
    kind = "accessory" if model is Accessory else "consumable"
    categories = [CategoryFactory(category_type=kind) for _ in range(3)]
    companies = [CompanyFactory() for _ in range(3)]
    makers = [ManufacturerFactory() for _ in range(3)]
    suppliers = [SupplierFactory() for _ in range(2)]
    places = [LocationFactory() for _ in range(5)]
    people = UserFactory.create_batch(5)
    assets = [AssetFactory() for _ in range(3)]
    items = model.objects.bulk_create([
        model(name=f"Bulk {kind} {start + index}", qty=5, category=categories[index % 3],
              company=companies[index % 3], manufacturer=makers[index % 3], supplier=suppliers[index % 2],
              location=places[index % 5], created_by=people[index % 5])
        for index in range(count)
    ])
    if model is Accessory:
        targets = [{"assigned_user": people[i % 5]} for i in range(5)] + [{"assigned_asset": a} for a in assets] + \
            [{"assigned_location": p} for p in places]
        AccessoryCheckout.objects.bulk_create([
            AccessoryCheckout(accessory=item, assigned_qty=1 + copy, created_by=people[index % 5],
                              **targets[(index + copy) % len(targets)])
            for index, item in enumerate(items) for copy in range(2)
        ])
    else:
        ConsumableAssignment.objects.bulk_create([
            ConsumableAssignment(consumable=item, assigned_user=people[(index + copy) % 5], assigned_qty=1 + copy,
                                 created_by=people[index % 5])
            for index, item in enumerate(items) for copy in range(2)
        ])
    return items


def list_queries(client, url: str, params: dict, budget: int | None = None, *, assert_max) -> tuple[int, dict]:
    """The queries of one list request; with ``budget``, also asserted with ``django_assert_max_num_queries``."""
    if budget is None:
        with CaptureQueriesContext(connection) as ctx:
            body = client.get(url, params).json()
        return len(ctx.captured_queries), body
    with assert_max(budget), CaptureQueriesContext(connection) as ctx:
        body = client.get(url, params).json()
    return len(ctx.captured_queries), body


@pytest.mark.parametrize("model", [Accessory, Consumable], ids=["accessories", "consumables"])
@pytest.mark.parametrize("params", [{}, {"sort": "remaining"}, {"sort": "manufacturer", "order": "asc"},
                                    {"search": "Bulk"}])
def test_stock_lists_of_5_and_500_rows_with_units_out_run_the_same_queries(token_client, model, params,
                                                                          django_assert_max_num_queries):
    """``remaining`` of every row comes from the ``units_out`` subquery of the page query, also when the list is
    sorted by it."""
    url = "/api/v1/accessories" if model is Accessory else "/api/v1/consumables"
    bulk_stock(model, 5, 0)
    token_client.get(url)  # first request of the test creates the settings row: not a list cost
    small, body = list_queries(token_client, url, {**params, "limit": 5}, assert_max=django_assert_max_num_queries)
    assert len(body["rows"]) == 5 and {row["remaining"] for row in body["rows"]} == {2}
    bulk_stock(model, 500, 1000)
    large, body = list_queries(token_client, url, {**params, "limit": 500}, small,
                               assert_max=django_assert_max_num_queries)
    assert len(body["rows"]) == 500 and {row["remaining"] for row in body["rows"]} == {2}
    assert large == small


def test_checkedout_of_5_and_500_rows_runs_the_same_queries(token_client, django_assert_max_num_queries):
    """``GET accessories/{id}/checkedout``: each row names its user, asset or location and who checked it out, all
    joined in the page query."""
    accessory = bulk_stock(Accessory, 1, 0)[0]
    url = f"/api/v1/accessories/{accessory.pk}/checkedout"
    token_client.get(url)
    small, body = list_queries(token_client, url, {"limit": 5}, assert_max=django_assert_max_num_queries)
    assert len(body["rows"]) == 2
    people, places, assets = UserFactory.create_batch(3), [LocationFactory() for _ in range(3)], [
        AssetFactory() for _ in range(3)]
    targets = [{"assigned_user": p} for p in people] + [{"assigned_location": p} for p in places] + \
        [{"assigned_asset": a} for a in assets]
    AccessoryCheckout.objects.bulk_create([
        AccessoryCheckout(accessory=accessory, created_by=people[index % 3], **targets[index % len(targets)])
        for index in range(498)
    ])
    large, body = list_queries(token_client, url, {"limit": 500}, small, assert_max=django_assert_max_num_queries)
    assert len(body["rows"]) == 500
    assert {row["assigned_to"]["type"] for row in body["rows"]} == {"user", "asset", "location"}
    assert large == small
