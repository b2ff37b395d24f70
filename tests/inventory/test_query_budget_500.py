"""The issue's own figure: a list of 5 rows and a list of 500 rows run the same number of SQL queries, with rows
that use every relation the record shows (assignments to users, assets and locations, companies, suppliers)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.models import Asset
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
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
