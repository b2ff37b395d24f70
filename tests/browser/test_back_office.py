"""Issue 28 in the browser: typing "Jane" in an asset's checkout user picker finds Jane Doe, shown as "Jane Doe (jdoe,
jane@example.com)", and checks the asset out to her; the index page groups the library tables under "Internals" for a
super user only; and the asset list hides a deleted asset until its "deleted" filter asks for it."""

from __future__ import annotations

import re

from django.urls import reverse
from django.utils import timezone

from tests.browser.helpers import ADMIN_PASSWORD, expect, login, result_column
from tests.factories import AssetFactory, UserFactory

ASSETS = reverse("admin:inventory_asset_changelist")
JANE = "Jane Doe (jdoe, jane@example.com)"


def test_typing_jane_in_the_checkout_user_picker_finds_jane_doe(admin_page):
    asset = AssetFactory(asset_tag="LAP-0042", name="ThinkPad", serial="SN-1")
    jane = UserFactory(username="jdoe", first_name="Jane", last_name="Doe", email="jane@example.com")
    UserFactory(username="jsmith", first_name="John", last_name="Smith", email="john@example.com")

    admin_page.goto(reverse("admin:inventory_asset_checkout", args=[asset.pk]))
    admin_page.click("[aria-labelledby='select2-id_assigned_user-container']")
    admin_page.fill(".select2-container--open .select2-search__field", "Jane")
    options = admin_page.locator(".select2-results__option")
    expect(options).to_have_count(1, timeout=20_000)  # the search answer is slow on a loaded CI machine
    expect(options.first).to_have_text(JANE)
    options.first.click()
    expect(admin_page.locator("#select2-id_assigned_user-container")).to_contain_text(JANE)
    admin_page.click("input[type=submit][value='Check out']")

    expect(admin_page.locator("ul.messagelist")).to_contain_text("checked out to")
    asset.refresh_from_db()
    assert asset.assigned_user == jane


def test_the_internals_heading_is_a_super_users_only(admin_page, company):
    expect(admin_page.locator("#content-main caption").last).to_have_text("Internals")
    internals = admin_page.locator("#content-main .module", has=admin_page.locator("caption", has_text="Internals"))
    internals.locator("a", has_text=re.compile("task result", re.IGNORECASE)).first.click()
    expect(admin_page).to_have_url(re.compile(r"/admin/django_tasks_database/dbtaskresult/$"))
    admin_page.wait_for_load_state("load")  # its scripts, before the next sign-in leaves the page

    boss = UserFactory(username="boss", company=company, permissions={"admin": 1})
    admin_page.context.clear_cookies()
    login(admin_page, boss.username, ADMIN_PASSWORD)
    expect(admin_page).to_have_url(re.compile(r"/admin/$"))
    expect(admin_page.locator("#content-main")).to_contain_text("Assets")
    expect(admin_page.locator("#content-main")).not_to_contain_text("Internals")


def test_a_deleted_asset_is_listed_only_when_asked(admin_page):
    AssetFactory(asset_tag="LIVE-1")
    AssetFactory(asset_tag="GONE-1", deleted_at=timezone.now())

    admin_page.goto(ASSETS)
    assert result_column(admin_page, "asset_tag") == ["LIVE-1"]
    admin_page.locator("#changelist-filter a", has_text=re.compile(r"^\s*Yes\s*$")).last.click()
    expect(admin_page).to_have_url(re.compile(r"deleted=yes"))
    # the address changes when the new page starts loading: wait for its rows, not just the address
    expect(admin_page.locator("#result_list tbody .field-asset_tag")).to_have_text(["GONE-1"])
