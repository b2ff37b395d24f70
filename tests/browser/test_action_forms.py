"""The action pages in a real browser (issue 28 item 3): they carry the admin's form styles and widgets (the calendar
of the expected check-in date), check-out shows only the picker of the chosen target type, check-in sets the status
and the location as the API does, a refused check-out shows its error on the form with nothing written, and the
pages work at phone width. With ``SCREENSHOTS_DIR`` set they save the pictures of docs/back-office.md."""

from __future__ import annotations

import re

from django.urls import reverse

from activity.models import ActionLog
from inventory.choices import StatusType
from tests.browser.helpers import DESKTOP, PHONE, expect, fits_the_width, pick_autocomplete, screenshot
from tests.factories import AssetFactory, LocationFactory, StatusLabelFactory, UserFactory


def test_checkout_to_a_location_shows_only_the_location_picker(admin_page):
    asset = AssetFactory(asset_tag="LAPTOP-0100", name="Loaner laptop")
    LocationFactory(name="Front desk")
    admin_page.goto(reverse("admin:inventory_asset_checkout", args=[asset.pk]))
    user_row, location_row = admin_page.locator(".field-assigned_user"), admin_page.locator(".field-assigned_location")
    expect(user_row).to_be_visible()
    expect(location_row).to_be_hidden()
    expect(admin_page.locator(".field-expected_checkin .datetimeshortcuts")).to_be_visible()  # the calendar
    screenshot(admin_page, "checkout-desktop")

    admin_page.check("input[name=checkout_to_type][value=location]")
    expect(user_row).to_be_hidden()
    expect(admin_page.locator(".field-assigned_asset")).to_be_hidden()
    expect(location_row).to_be_visible()
    pick_autocomplete(admin_page, "id_assigned_location", "front", "Front desk")
    admin_page.click("input[type=submit][value='Check out']")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("checked out to")
    asset.refresh_from_db()
    assert asset.assigned_location.name == "Front desk" and asset.assigned_user is None


def test_checkin_sets_status_and_location(admin_page):
    holder = UserFactory(first_name="Jane", last_name="Doe")
    asset = AssetFactory(asset_tag="LAPTOP-0101", assigned_user=holder)
    broken = StatusLabelFactory(name="Needs repair", type=StatusType.UNDEPLOYABLE)
    LocationFactory(name="Repair shelf")
    admin_page.goto(reverse("admin:inventory_asset_checkin", args=[asset.pk]))
    admin_page.select_option("#id_status", label="Needs repair")
    pick_autocomplete(admin_page, "id_location", "repair", "Repair shelf")
    admin_page.fill("#id_note", "screen cracked")
    admin_page.click("input[type=submit][value='Check in']")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("checked in.")
    asset.refresh_from_db()
    assert (asset.status_id, asset.location.name, asset.assigned_user_id) == (broken.pk, "Repair shelf", None)


def test_a_refused_checkout_shows_on_the_form_and_writes_nothing(admin_page):
    asset = AssetFactory(asset_tag="LAPTOP-0102", assigned_user=UserFactory())
    UserFactory(username="grace", first_name="Grace", last_name="Hopper")
    admin_page.goto(reverse("admin:inventory_asset_checkout", args=[asset.pk]))
    admin_page.click("input[type=submit][value='Check out']")
    expect(admin_page.locator(".field-assigned_user .errorlist")).to_contain_text("Choose the user it goes to.")
    pick_autocomplete(admin_page, "id_assigned_user", "grace", "Grace Hopper")
    admin_page.click("input[type=submit][value='Check out']")
    expect(admin_page.locator("p.errornote")).to_contain_text("That asset is not available for checkout!")
    assert not ActionLog.objects.filter(action_type="checkout").exists()


def test_the_asset_page_and_its_forms_at_phone_width(admin_page):
    asset = AssetFactory(asset_tag="LAPTOP-0103", name="Shelf laptop")
    admin_page.set_viewport_size(PHONE)
    admin_page.goto(reverse("admin:inventory_asset_change", args=[asset.pk]))
    expect(admin_page.locator("#id_asset_tag")).to_have_value("LAPTOP-0103")
    screenshot(admin_page, "asset-phone")
    for view in ("checkout", "checkin", "audit"):
        admin_page.goto(reverse(f"admin:inventory_asset_{view}", args=[asset.pk]))
        expect(admin_page.locator("input[type=submit]")).to_be_visible()
        assert fits_the_width(admin_page), view
        if view == "checkout":
            screenshot(admin_page, "checkout-phone")
    admin_page.set_viewport_size(DESKTOP)
    admin_page.goto(reverse("admin:inventory_asset_change", args=[asset.pk]))
    screenshot(admin_page, "asset-desktop")
    expect(admin_page).to_have_url(re.compile(r"/change/$"))
