"""Catalogue record counts come from one registry (``inventory.selectors.counts``): a kind registers where its rows
point
at a catalogue entry, and every record (lists and single reads) counts it, scoped to the caller."""

from __future__ import annotations

import pytest

from assetsvc.registry import entries
from inventory.selectors.counts import CatalogueCount, register_catalogue_count
from tests.factories import AssetFactory, SupplierFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def extra_count():
    """Pretend a new kind counted on suppliers (assets stand in for its rows), then put back what was registered
    before: accessories register this very key, and popping it left later tests in the same worker counting no
    accessories on suppliers (a PostgreSQL run failed that way once the tests moved, issue 26)."""
    key = "inventory.Supplier.accessories_count"
    before = entries("catalogue_counts").get(key)
    register_catalogue_count(CatalogueCount("inventory.Supplier", "accessories_count", "inventory.Asset", "supplier"))
    yield
    if before is None:
        entries("catalogue_counts").pop(key)
    else:
        entries("catalogue_counts")[key] = before


def test_a_registered_count_fills_its_key_on_lists_and_reads(token_client, extra_count):
    supplier = SupplierFactory()
    AssetFactory.create_batch(2, supplier=supplier)
    row = token_client.get("/api/v1/suppliers").json()["rows"][0]
    assert row["assets_count"] == 2 and row["accessories_count"] == 2
    assert token_client.get(f"/api/v1/suppliers/{supplier.pk}").json()["accessories_count"] == 2


def test_an_unregistered_key_is_zero(token_client):
    supplier = SupplierFactory()
    AssetFactory(supplier=supplier)
    row = token_client.get(f"/api/v1/suppliers/{supplier.pk}").json()
    assert row["assets_count"] == 1 and row["accessories_count"] == 0 and row["licenses_count"] == 0


def test_registered_counts_are_scoped_to_the_caller(fmcs_on, make_client, company, other_company, extra_count):
    supplier = SupplierFactory()
    AssetFactory(supplier=supplier, company=company)
    AssetFactory(supplier=supplier, company=other_company)
    client = make_client(UserFactory(company=company, permissions={"suppliers.view": 1}))
    row = client.get(f"/api/v1/suppliers/{supplier.pk}").json()
    assert row["assets_count"] == 1 and row["accessories_count"] == 1


def test_only_the_records_own_keys_can_be_registered():
    with pytest.raises(ValueError):
        register_catalogue_count(CatalogueCount("inventory.StatusLabel", "licenses_count", "inventory.Asset",
                                                "status"))
