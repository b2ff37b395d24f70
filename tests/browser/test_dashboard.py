"""The start page in a real browser (issue 28 item 1): the dashboard's numbers equal the API's counts for the same
data, a number's link opens the list it counts, the page works at phone width, and a company administrator sees
only their company's numbers. With ``SCREENSHOTS_DIR`` set (``make screenshots``) it saves the pictures of
docs/back-office.md."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import personal_token_issue
from assetsvc.models import SiteSettings
from inventory.choices import StatusType
from tests.browser.helpers import ADMIN_PASSWORD, DESKTOP, PHONE, expect, fits_the_width, login, screenshot
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CompanyFactory,
    StatusLabelFactory,
    UserFactory,
)


def card(page, label: str):
    return page.locator(f'a.dashboard-card[data-card="{label}"]')


def card_value(page, label: str) -> int:
    return int(card(page, label).locator(".value").inner_text())


def seed(company=None, prefix: str = ""):
    today = timezone.localdate()
    ready = StatusLabelFactory(name=f"{prefix}Ready")
    broken = StatusLabelFactory(name=f"{prefix}Broken", type=StatusType.UNDEPLOYABLE)
    laptops, phones = CategoryFactory(name=f"{prefix}Laptops"), CategoryFactory(name=f"{prefix}Phones")
    holder = UserFactory(first_name="Jane", last_name="Doe", company=company)
    for n in range(6):
        AssetFactory(model=AssetModelFactory(category=laptops), status=ready, company=company,
                     next_audit_date=today - timedelta(days=n))
    for n in range(3):
        AssetFactory(model=AssetModelFactory(category=phones), status=ready if n else broken, company=company,
                     assigned_user=holder, expected_checkin=today - timedelta(days=1 + n))
    AccessoryFactory(name="USB-C chargers", qty=2, min_amt=3, company=company)
    return holder


def api(user) -> APIClient:
    client = APIClient()
    _token, raw = personal_token_issue(user=user, name="dashboard check")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def api_total(user, url: str, **params) -> int:
    return api(user).get(url, params).json()["total"]


def test_the_numbers_are_the_apis_and_each_opens_its_list(admin_page, admin_user):
    holder = seed()
    client = api(admin_user)
    monitors = AssetModelFactory(category=CategoryFactory(name="Monitors"))
    for asset in AssetFactory.create_batch(2, model=monitors):
        body = client.post(f"/api/v1/hardware/{asset.pk}/checkout", {"checkout_to_type": "user",
                                                                     "assigned_user": holder.pk}, format="json")
        assert body.json()["status"] == "success"
    admin_page.goto("/admin/")
    expect(admin_page.locator("#dashboard")).to_be_visible()
    assert card_value(admin_page, "Assets") == api_total(admin_user, "/api/v1/hardware") == 11
    assert card_value(admin_page, "Deployed") == api_total(admin_user, "/api/v1/hardware", status="Deployed") == 5
    assert card_value(admin_page, "Audits overdue") == api_total(admin_user, "/api/v1/hardware/audits/overdue") == 5
    assert card_value(admin_page, "Check-ins overdue") == api_total(admin_user,
                                                                    "/api/v1/hardware/checkins/overdue") == 3
    assert card_value(admin_page, "Accessories at their minimum") == 1
    expect(admin_page.locator("#chart-checkouts svg")).to_have_attribute("aria-label", re.compile(r": 2 in all"))
    expect(admin_page.locator(".dashboard-activity")).to_contain_text("checkout")
    screenshot(admin_page, "dashboard-desktop")

    card(admin_page, "Audits overdue").click()
    expect(admin_page).to_have_url(re.compile(r"audit=overdue"))
    expect(admin_page.locator(".paginator")).to_contain_text("5 assets")
    admin_page.goto("/admin/")
    admin_page.locator("#chart-category a", has_text="Phones").locator("rect").click()
    expect(admin_page.locator(".paginator")).to_contain_text("3 assets")


def test_the_start_page_at_phone_width(admin_page):
    seed()
    admin_page.set_viewport_size(PHONE)
    admin_page.goto("/admin/")
    expect(card(admin_page, "Check-ins overdue")).to_be_visible()
    assert fits_the_width(admin_page)
    screenshot(admin_page, "dashboard-phone")
    admin_page.set_viewport_size(DESKTOP)


def test_a_company_administrator_sees_their_company_only(page, transactional_db):
    settings = SiteSettings.load()
    settings.full_multiple_companies_support = True
    settings.save()
    mine, theirs = CompanyFactory(name="Acme"), CompanyFactory(name="Globex")
    seed(mine)
    seed(theirs, prefix="Globex ")
    boss = UserFactory(username="boss", company=mine, permissions={"admin": 1})
    login(page, boss.username, ADMIN_PASSWORD)
    assert card_value(page, "Assets") == 9
    assert card_value(page, "Check-ins overdue") == 3
    assert card_value(page, "Accessories at their minimum") == 1
    expect(page.locator("#dashboard")).not_to_contain_text("Globex")
