"""Assets in the admin: find one by its tag with the search box, check it out to a user and back in with the list
actions (the checkout's intermediate form), and see both in its history.

History today is the action log's admin list filtered to the asset (``/admin/activity/actionlog/?item_type=asset&
item_id=<pk>``): the asset page's own "History" link shows Django's admin log, which the services do not write.
"""

from __future__ import annotations

import re

from django.urls import reverse

from activity.models import ActionLog
from tests.browser.helpers import expect, messages, result_column, run_action, search
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


def test_check_out_to_a_user_and_back_in_then_see_it_in_the_history(admin_page, admin_user):
    asset = AssetFactory(asset_tag="LAPTOP-0001")
    holder = UserFactory(username="grace", first_name="Grace", last_name="Hopper")
    admin_page.goto(ASSETS)

    run_action(admin_page, "checkout_selected", [asset.pk])
    expect(admin_page.locator("#content")).to_contain_text("Check out these assets to one user, asset or location:")
    admin_page.select_option("#id_user", str(holder.pk))
    admin_page.fill("#id_note", "for the conference")
    admin_page.click("input[name=apply]")

    expect(admin_page.locator("ul.messagelist")).to_contain_text("1 assets checked out.")
    assert result_column(admin_page, "assigned_target") == ["user: grace"]
    asset.refresh_from_db()
    assert asset.assigned_user == holder

    run_action(admin_page, "checkin_selected", [asset.pk])

    expect(admin_page.locator("ul.messagelist")).to_contain_text("1 assets checked in.")
    assert messages(admin_page) == ["1 assets checked in."]
    assert result_column(admin_page, "assigned_target") == ["-"]
    asset.refresh_from_db()
    assert asset.assigned_user is None

    # The history: the action log's list filtered to the asset (the module docstring says why).
    admin_page.goto(f"{reverse('admin:activity_actionlog_changelist')}?item_type=asset&item_id={asset.pk}")
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(2)
    assert result_column(admin_page, "action_type") == ["checkin from", "checkout"]
    assert result_column(admin_page, "target_id") == [str(holder.pk), str(holder.pk)]
    assert result_column(admin_page, "created_by") == ["browser-admin", "browser-admin"]
    logged = ActionLog.objects.for_item("asset", asset.pk).values_list("action_type", "note")
    assert list(logged) == [("checkin from", ""), ("checkout", "for the conference")]
    assert (asset.checkout_counter, asset.checkin_counter) == (1, 1)
