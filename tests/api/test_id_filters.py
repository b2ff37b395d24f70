"""Id filters on every list take anything a client sends: a value that cannot be an id matches nothing, never a
500 (schemathesis found ``created_by=3.402823466e+38`` overflowing the driver)."""

from __future__ import annotations

import pytest

from tests.factories import AssetFactory, CompanyFactory, LocationFactory

pytestmark = pytest.mark.django_db

LISTS = {
    "/api/v1/companies": ["created_by"],
    "/api/v1/users": ["company_id", "location_id", "group_id", "created_by"],
    "/api/v1/categories": ["created_by"],
    "/api/v1/locations": ["parent_id", "manager_id", "company_id"],
    "/api/v1/models": ["category_id", "manufacturer_id"],
    "/api/v1/hardware": ["model_id", "status_id", "company_id", "location_id", "category_id", "manufacturer_id"],
}
BAD = ["3.402823466e+38", "-1.7976931348623157e+308", "99999999999999999999999", "abc", "1.5", "[1]", "\u00e9"]


@pytest.fixture
def one_of_each(db):
    """A row in every list, so a filter that were ignored would show it (the lists are not empty by accident)."""
    AssetFactory(company=CompanyFactory(), rtd_location=LocationFactory())  # also a model, category, manufacturer


@pytest.mark.parametrize("path", list(LISTS))
def test_impossible_ids_match_nothing(token_client, one_of_each, path):
    assert token_client.get(path).json()["total"] >= 1
    for param in LISTS[path]:
        for value in BAD:
            response = token_client.get(path, {param: value})
            assert response.status_code == 200, (path, param, value)
            body = response.json()
            assert body.get("total") == 0 or body.get("status") == "error", (path, param, value, body)
