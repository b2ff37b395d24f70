"""The start page's numbers (issue 28, ``inventory/selectors/dashboard.py``) equal what the API answers for the same
data, are company-scoped, and cost a fixed number of queries."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from assetsvc.site import close_request_scope, open_request_scope
from inventory.choices import StatusType
from inventory.selectors.dashboard import dashboard
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CompanyFactory,
    ConsumableFactory,
    LicenseFactory,
    StatusLabelFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def total(client, url, **params) -> int:
    body = client.get(url, params).json()
    assert "total" in body, body
    return body["total"]


@pytest.fixture
def inventory(superuser, company):
    today = timezone.localdate()
    ready, pending = StatusLabelFactory(name="Ready"), StatusLabelFactory(name="Pending", type=StatusType.PENDING)
    broken = StatusLabelFactory(name="Broken", type=StatusType.UNDEPLOYABLE)
    laptops = AssetModelFactory(category=CategoryFactory(name="Laptops"))
    phones = AssetModelFactory(category=CategoryFactory(name="Phones"))
    holder = UserFactory(company=company)
    for n in range(4):
        AssetFactory(model=laptops, status=ready, company=company, next_audit_date=today + timedelta(days=n * 10))
    AssetFactory(model=laptops, status=pending, next_audit_date=today - timedelta(days=3))
    AssetFactory(model=phones, status=broken, purchase_date=today - timedelta(days=340), warranty_months=12)
    AssetFactory(model=phones, status=ready, purchase_date=today - timedelta(days=200), warranty_months=12)
    out = AssetFactory(model=phones, status=ready, company=company, assigned_user=holder,
                       expected_checkin=today - timedelta(days=1))
    AssetFactory(model=phones, status=ready, assigned_user=holder, expected_checkin=today + timedelta(days=2))
    AssetFactory(model=phones, status=ready, deleted_at=timezone.now())  # never counted
    LicenseFactory(expiration_date=today + timedelta(days=5), company=company)
    LicenseFactory(expiration_date=today + timedelta(days=90))
    full = LicenseFactory(seats=1)
    full.seat_rows.update(assigned_user=holder)
    AccessoryFactory(name="Mice", qty=5, min_amt=5, company=company)
    AccessoryFactory(name="Keyboards", qty=5, min_amt=2)
    ConsumableFactory(name="Toner", qty=1, min_amt=3)
    return {"out": out, "holder": holder}


def test_numbers_equal_the_apis(token_client, superuser, inventory):
    board = dashboard(superuser)
    statuses = {key: count for key, _label, count in board.statuses}
    assert statuses == {
        "rtd": total(token_client, "/api/v1/hardware", status="RTD"),
        "deployed": total(token_client, "/api/v1/hardware", status="Deployed"),
        "pending": total(token_client, "/api/v1/hardware", status="Pending"),
        "undeployable": total(token_client, "/api/v1/hardware", status="Undeployable"),
        "archived": total(token_client, "/api/v1/hardware", status="Archived"),
    } == {"rtd": 5, "deployed": 2, "pending": 1, "undeployable": 1, "archived": 0}
    assert board.assets_total == total(token_client, "/api/v1/hardware") == 9
    assert board.audits_due == total(token_client, "/api/v1/hardware/audits/due") == 2
    assert board.audits_overdue == total(token_client, "/api/v1/hardware/audits/overdue") == 1
    assert board.checkins_due == total(token_client, "/api/v1/hardware/checkins/due") == 1
    assert board.checkins_overdue == total(token_client, "/api/v1/hardware/checkins/overdue") == 1
    by_category = {name: count for _pk, name, count in board.categories}
    for pk, name, count in board.categories:
        assert count == total(token_client, "/api/v1/hardware", category_id=pk), name
    assert by_category == {"Laptops": 5, "Phones": 4}
    assert board.warranties_ending == 1  # bought 340 days ago with 12 months: ends within 30 days
    assert (board.licenses_expiring, board.licenses_full) == (1, 1)
    assert board.low_stock_counts == {"accessories": 1, "consumables": 1, "components": 0}
    assert [(row.name, row.remaining, row.min_amt) for row in board.low_stock] == [("Toner", 1, 3), ("Mice", 5, 5)]
    accessories = token_client.get("/api/v1/accessories").json()["rows"]
    assert {row["name"] for row in accessories if row["min_amt"] is not None
            and row["remaining_qty"] <= row["min_amt"]} == {"Mice"}


def test_a_company_sees_only_its_own(make_client, fmcs_on, company, inventory):
    viewer = UserFactory(company=company, permissions={"assets.view": 1, "licenses.view": 1,
                                                       "accessories.view": 1})
    board = dashboard(viewer)
    client = make_client(viewer)
    assert board.assets_total == total(client, "/api/v1/hardware") == 5
    assert board.audits_due == total(client, "/api/v1/hardware/audits/due")
    assert board.checkins_overdue == 1
    assert board.licenses_expiring == 1 and board.licenses_full == 0
    assert board.low_stock_counts["accessories"] == 1 and board.low_stock_counts["consumables"] == 0
    other = CompanyFactory()
    assert dashboard(UserFactory(company=other, permissions={"assets.view": 1})).assets_total == 0


def test_checkouts_per_week_and_activity(token_client, superuser, inventory):
    asset = AssetFactory()
    assert token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                             {"checkout_to_type": "user", "assigned_user": inventory["holder"].pk},
                             format="json").json()["status"] == "success"
    board = dashboard(superuser)
    assert len(board.checkouts_per_week) == 12
    assert board.checkouts_per_week[-1][1] == 1
    assert board.checkouts_per_week[-1][0] == board.today - timedelta(days=board.today.weekday())
    assert board.activity[0].action_type == "checkout"


@pytest.fixture
def request_scope():
    """The site settings read once, as inside a request (the middleware opens this scope)."""
    token = open_request_scope()
    yield
    close_request_scope(token)


def test_a_fixed_number_of_queries(superuser, inventory, request_scope, django_assert_max_num_queries):
    """Issue 28: a fixed number of queries; issue 29 added the acceptance count, issue 30 the leavers count."""
    dashboard(superuser)  # warm the status label cache
    with django_assert_max_num_queries(11) as small:
        dashboard(superuser)
    for n in range(30):
        AssetFactory(purchase_date=date(2024, 1, 1), warranty_months=n)
        AccessoryFactory(min_amt=10)
    with django_assert_max_num_queries(len(small.captured_queries)):
        dashboard(superuser)


@pytest.mark.parametrize(("url", "attribute"), [
    ("/admin/inventory/asset/?audit=due", "audits_due"),
    ("/admin/inventory/asset/?audit=overdue", "audits_overdue"),
    ("/admin/inventory/asset/?checkin=due", "checkins_due"),
    ("/admin/inventory/asset/?checkin=overdue", "checkins_overdue"),
    ("/admin/inventory/asset/?warranty=ending", "warranties_ending"),
    ("/admin/inventory/asset/?status_type=deployed", "deployed"),
    ("/admin/inventory/asset/?status_type=rtd", "rtd"),
    ("/admin/inventory/license/?attention=expiring", "licenses_expiring"),
    ("/admin/inventory/license/?attention=full", "licenses_full"),
    ("/admin/inventory/accessory/?stock=low", "accessories"),
    ("/admin/inventory/consumable/?stock=low", "consumables"),
])
def test_each_number_has_a_list_filter_that_shows_what_was_counted(client, superuser, inventory, url, attribute):
    board = dashboard(superuser)
    statuses = {key: count for key, _label, count in board.statuses}
    expected = (statuses.get(attribute) if attribute in statuses
                else board.low_stock_counts.get(attribute, getattr(board, attribute, None)))
    client.force_login(superuser)
    response = client.get(url)
    assert response.status_code == 200
    assert response.context["cl"].result_count == expected, url


@pytest.mark.parametrize(("bought", "months", "today", "counted"), [
    (date(2026, 1, 31), 1, date(2026, 1, 29), True),  # ends 28 February (clamped), within 30 days of 29 January
    (date(2024, 1, 31), 1, date(2024, 1, 30), True),  # ends 29 February in a leap year
    (date(2025, 8, 31), 6, date(2026, 1, 29), True),  # ends 28 February 2026
    (date(2026, 1, 31), 1, date(2026, 3, 1), False),  # ended the day before
    (date(2026, 1, 15), 12, date(2026, 12, 20), True),  # ends 15 January 2027, no clamping
])
def test_the_warranty_end_is_the_records(superuser, bought, months, today, counted):
    from inventory.services.assets import add_months

    AssetFactory(purchase_date=bought, warranty_months=months)
    end = add_months(bought, months)
    assert (today <= end <= today + timedelta(days=30)) is counted
    assert dashboard(superuser, today=today).warranties_ending == int(counted)
