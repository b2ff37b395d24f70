"""Lists run a constant number of SQL queries whatever the page size (API-CONTRACT.md §4)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.services import assets as services
from tests.factories import AssetFactory, CompanyFactory, LocationFactory, SupplierFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db


def make_assets(count: int) -> None:
    company = CompanyFactory()
    place = LocationFactory(company=company)
    supplier = SupplierFactory()
    parent = AssetFactory(company=company)
    for index in range(count - 1):
        kind = index % 3
        if kind == 0:
            checked_out_asset(UserFactory(company=company, location=place), company=company, supplier=supplier,
                              rtd_location=place, created_by=UserFactory())
        elif kind == 1:
            checked_out_asset(LocationFactory(), company=CompanyFactory(), rtd_location=place)
        else:
            checked_out_asset(parent, company=company)


def count_queries(client, path: str, params: dict | None = None) -> tuple[int, dict]:
    with CaptureQueriesContext(connection) as ctx:
        body = client.get(path, params or {}).json()
    return len(ctx.captured_queries), body


@pytest.mark.parametrize("path", ["/api/v1/hardware", "/api/v1/hardware/audits/due-or-overdue",
                                  "/api/v1/hardware/checkins/due-or-overdue"])
def test_asset_list_queries_constant(token_client, path, django_assert_max_num_queries):
    make_assets(5)
    small, body = count_queries(token_client, path, {"limit": 500})
    make_assets(60)
    with django_assert_max_num_queries(small):
        body = token_client.get(path, {"limit": 500}).json()
    if path == "/api/v1/hardware":
        assert body["total"] == 65 and len(body["rows"]) == 65


def test_asset_list_queries_constant_for_a_company_user(make_client, fmcs_on, django_assert_max_num_queries):
    company = CompanyFactory()
    client = make_client(UserFactory(company=company, permissions={"assets.view": 1}))
    AssetFactory.create_batch(5, company=company)
    small, body = count_queries(client, "/api/v1/hardware", {"search": "Asset", "sort": "model"})
    assert body["total"] == 5
    for _ in range(60):
        checked_out_asset(UserFactory(company=company), company=company)
    with django_assert_max_num_queries(small):
        body = client.get("/api/v1/hardware", {"search": "Asset", "sort": "model", "limit": 500}).json()
    assert body["total"] == 65


def test_activity_and_history_queries_constant(token_client, superuser, django_assert_max_num_queries):
    place = LocationFactory()

    def activity(count: int):
        for _ in range(count):
            asset = AssetFactory()
            services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser)
            services.asset_checkin(asset=asset, actor=superuser)
            other = AssetFactory()
            services.asset_checkout(asset=other, target=place, actor=superuser)
            services.asset_checkout(asset=AssetFactory(), target=other, actor=superuser)

    activity(2)
    small, _ = count_queries(token_client, "/api/v1/reports/activity", {"limit": 500})
    activity(20)
    with django_assert_max_num_queries(small):
        body = token_client.get("/api/v1/reports/activity", {"limit": 500}).json()
    assert body["total"] == 88


def test_an_asset_checkout_and_checkin_run_a_fixed_small_number_of_queries(token_client, site_settings,
                                                                         django_assert_max_num_queries):
    """Issue 13: the verbs read the URL's asset without its relations, resolve the target in one query and take the
    status label with the lock (a checkout was 13 queries, now 11). Issue 29: the checkout mail to the person adds
    4 (the model's name it shows, the mail-log row in its savepoint); a checkin reads the category's checkin_email."""
    asset, target = AssetFactory(), UserFactory()
    with django_assert_max_num_queries(15):
        body = token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                                 {"checkout_to_type": "user", "assigned_user": target.pk}, format="json").json()
    assert body["status"] == "success", body
    with django_assert_max_num_queries(12):
        body = token_client.post(f"/api/v1/hardware/{asset.pk}/checkin", {}, format="json").json()
    assert body["status"] == "success", body
