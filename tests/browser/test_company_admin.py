"""An administrator of one company (the ``admin`` key, not a super user) in the browser, with company separation on:
they sign in through the login form, the asset list holds their company's assets only, and the checkout page's user
picker (select2 over the admin's autocomplete) suggests their company's people only."""

from __future__ import annotations

import re

from django.urls import reverse

from assetsvc.models import SiteSettings
from tests.browser.helpers import ADMIN_PASSWORD, expect, login, pick_autocomplete, result_column
from tests.factories import AssetFactory, CompanyFactory, UserFactory

ASSETS = reverse("admin:inventory_asset_changelist")


def test_a_company_administrator_works_within_their_company(page, transactional_db):
    settings = SiteSettings.load()
    settings.full_multiple_companies_support = True
    settings.save()
    mine, theirs = CompanyFactory(name="Acme"), CompanyFactory(name="Globex")
    boss = UserFactory(username="boss", first_name="Bea", company=mine, permissions={"admin": 1})
    asset = AssetFactory(asset_tag="ACME-1", company=mine)
    AssetFactory(asset_tag="GLOBEX-1", company=theirs)
    UserFactory(username="grace", company=mine)
    UserFactory(username="gregory", company=theirs)

    login(page, boss.username, ADMIN_PASSWORD)
    expect(page).to_have_url(re.compile(r"/admin/$"))
    expect(page.locator("#content-main")).not_to_contain_text("Companies")
    expect(page.locator("#content-main")).not_to_contain_text("Site settings")

    page.goto(ASSETS)
    assert result_column(page, "asset_tag") == ["ACME-1"]
    expect(page.locator(".paginator")).to_contain_text("1 asset")

    page.goto(reverse("admin:inventory_asset_checkout", args=[asset.pk]))
    page.click("[aria-labelledby='select2-id_assigned_user-container']")
    page.fill(".select2-container--open .select2-search__field", "gr")
    options = page.locator(".select2-results__option")
    expect(options).to_have_count(1, timeout=20_000)  # the search answer is slow on a loaded CI machine
    expect(options.first).to_contain_text("(grace, grace@example.com)")  # "First Last (grace, e-mail)", issue 28
    page.keyboard.press("Escape")
    pick_autocomplete(page, "id_assigned_user", "grace", "grace")
    page.click("input[type=submit][value='Check out']")
    expect(page.locator("ul.messagelist")).to_contain_text("checked out to")
    asset.refresh_from_db()
    assert asset.assigned_user.username == "grace"
