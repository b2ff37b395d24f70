"""A finance export script, replayed: create a depreciation class (SnipeitPS ``New-SnipeitDepreciation``: name,
months), attach it to a model, read the assets' book values from ``/hardware``, then pull the depreciation report
page by page and as CSV for the spreadsheet."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from tests.factories import AssetFactory, AssetModelFactory

pytestmark = pytest.mark.django_db


def test_finance_export(token_client):
    created = token_client.post("/api/v1/depreciations", {"name": "Laptops (3 years)", "months": 36}, format="json")
    depreciation = created.json()["payload"]
    assert created.json()["status"] == "success" and depreciation["months"] == "36 months"
    found = token_client.get("/api/v1/depreciations", {"search": "laptops"}).json()
    assert [row["id"] for row in found["rows"]] == [depreciation["id"]]

    model = AssetModelFactory(name="Latitude 7440")
    assert token_client.put(f"/api/v1/models/{model.pk}", {"depreciation_id": depreciation["id"]},
                            format="json").json()["status"] == "success"
    bought = date.today() - timedelta(days=10)
    for n in range(3):
        AssetFactory(model=model, asset_tag=f"FIN-{n}", purchase_cost=Decimal("1440.00"), purchase_date=bought)

    listed = token_client.get("/api/v1/hardware", {"model_id": model.pk}).json()["rows"]
    assert {row["book_value"] for row in listed} == {"1440.00"}

    pages, offset = [], 0
    while True:
        page = token_client.get("/api/v1/reports/depreciation", {"limit": 2, "offset": offset}).json()
        pages.extend(page["rows"])
        offset += 2
        if offset >= page["total"]:
            break
    assert sorted(row["asset_tag"] for row in pages) == ["FIN-0", "FIN-1", "FIN-2"]
    assert all(row["monthly_depreciation"] == "40.00" for row in pages)

    text = b"".join(token_client.get("/api/v1/reports/depreciation", {"format": "csv"}).streaming_content)
    assert text.decode().count("\n") == 4

    in_use = token_client.delete(f"/api/v1/depreciations/{depreciation['id']}").json()
    assert in_use["status"] == "error"
