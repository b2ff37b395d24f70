"""Assets in the admin, as an administrator does the daily work without the API: find one by its tag with the search
box; check it out to a user (picked by autocomplete), check it in and audit it with the buttons of its page, and see
all three in its HISTORY page; print the labels of three assets from the list.
"""
from __future__ import annotations

import re

from django.urls import reverse

from activity.models import ActionLog
from tests.browser.helpers import expect, messages, pick_autocomplete, result_column, run_action, search
from tests.factories import AssetFactory, UserFactory

ASSETS = reverse("admin:inventory_asset_changelist")


def test_find_an_asset_by_its_tag(admin_page):
    wanted = AssetFactory(asset_tag="LAPTOP-0042", name="Ada's laptop")
    AssetFactory(asset_tag="LAPTOP-0043", name="Spare laptop")
    AssetFactory(asset_tag="PHONE-0042", name="Desk phone")

    search(admin_page, ASSETS, "LAPTOP-0042")

    expect(admin_page.locator("#result_list tbody tr")).to_have_count(1)
    assert result_column(admin_page, "asset_tag") == ["LAPTOP-0042"]
    assert result_column(admin_page, "name") == ["Ada's laptop"]
    admin_page.click("#result_list tbody .field-asset_tag a")
    expect(admin_page).to_have_url(re.compile(re.escape(reverse("admin:inventory_asset_change", args=[wanted.pk]))))
    expect(admin_page.locator("#id_asset_tag")).to_have_value("LAPTOP-0042")


def test_check_out_check_in_and_audit_from_the_asset_page_then_see_the_history(admin_page, admin_user):
    asset = AssetFactory(asset_tag="LAPTOP-0001")
    holder = UserFactory(username="grace", first_name="Grace", last_name="Hopper")
    UserFactory(username="gregory")  # a second match for the autocomplete's search
    page_url = reverse("admin:inventory_asset_change", args=[asset.pk])
    admin_page.goto(page_url)

    admin_page.click(".object-tools a:text-is('Check out')")
    pick_autocomplete(admin_page, "id_assigned_user", "grace", "grace")
    admin_page.fill("#id_note", "for the conference")
    admin_page.click("input[type=submit][value='Check out']")

    expect(admin_page).to_have_url(re.compile(re.escape(page_url) + "$"))
    expect(admin_page.locator("ul.messagelist")).to_contain_text("LAPTOP-0001")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("checked out to")
    asset.refresh_from_db()
    assert asset.assigned_user == holder

    admin_page.click(".object-tools a:text-is('Check in')")
    admin_page.fill("#id_note", "back from the conference")
    admin_page.click("input[type=submit][value='Check in']")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("checked in.")
    asset.refresh_from_db()
    assert asset.assigned_user is None

    admin_page.click(".object-tools a:text-is('Audit')")
    admin_page.click("input[type=submit][value='Audit']")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("audited; next audit on")
    asset.refresh_from_db()
    assert asset.last_audit_date is not None

    admin_page.click(".object-tools a.historylink")
    rows = admin_page.locator("#change-history tbody tr.log-row")
    expect(rows).to_have_count(3)
    actions = [text.strip() for text in rows.locator("td:nth-child(3)").all_inner_texts()]
    assert actions == ["audit", "checkin from", "checkout"]
    assert [text.strip() for text in rows.locator("td:nth-child(2)").all_inner_texts()] == [admin_user.full_name] * 3
    notes = [text.strip() for text in rows.locator("td:nth-child(6)").all_inner_texts()]
    assert notes[1:] == ["back from the conference", "for the conference"]
    assert "grace" in rows.nth(2).locator("td:nth-child(5)").inner_text().lower()
    logged = ActionLog.objects.for_item("asset", asset.pk).values_list("action_type", flat=True)
    assert list(logged) == ["audit", "checkin from", "checkout"]
    assert messages(admin_page) == []


def test_print_labels_for_three_assets(admin_page):
    chosen = [AssetFactory(asset_tag=f"LBL-{n:03}", name=f"Label laptop {n}") for n in range(3)]
    AssetFactory(asset_tag="LBL-999")  # listed, not chosen
    admin_page.goto(ASSETS)

    run_action(admin_page, "print_labels", [asset.pk for asset in chosen])

    labels = admin_page.locator(".sheet .label")
    expect(labels).to_have_count(3)
    assert sorted(labels.evaluate_all("nodes => nodes.map(n => n.dataset.tag)")) == ["LBL-000", "LBL-001", "LBL-002"]
    expect(labels.locator("svg")).to_have_count(3)
    expect(admin_page.locator(".sheet")).to_contain_text("Label laptop 1")
