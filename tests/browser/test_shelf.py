"""At the shelf (issue 28 items 6 and 7): a barcode scanner types the tag into the header's box and presses Enter,
and the asset's page opens; the QR code of a label (the asset's admin address) opens the page after sign-in; the
box, the asset page and its action pages work 390 pixels wide."""

from __future__ import annotations

import re

from django.urls import reverse

from inventory import labels
from tests.browser.helpers import ADMIN_PASSWORD, PHONE, expect, fits_the_width, screenshot
from tests.factories import AssetFactory, UserFactory


def test_a_scanned_tag_opens_the_asset(admin_page):
    asset = AssetFactory(asset_tag="LAPTOP-0777", name="Shelf spare")
    AssetFactory(asset_tag="LAPTOP-0778")
    admin_page.goto(reverse("admin:inventory_asset_changelist"))
    admin_page.fill("#asset-lookup-q", "laptop-0777")
    admin_page.press("#asset-lookup-q", "Enter")  # what a scanner sends after the tag
    expect(admin_page).to_have_url(re.compile(re.escape(reverse("admin:inventory_asset_change", args=[asset.pk]))))
    expect(admin_page.locator("#id_asset_tag")).to_have_value("LAPTOP-0777")


def test_the_box_at_phone_width(admin_page):
    AssetFactory(asset_tag="PHONE-0001", serial="SHARED")
    AssetFactory(asset_tag="PHONE-0002", serial="SHARED")
    admin_page.set_viewport_size(PHONE)
    admin_page.goto("/admin/")
    expect(admin_page.locator("#asset-lookup-q")).to_be_visible()
    assert fits_the_width(admin_page)
    admin_page.fill("#asset-lookup-q", "SHARED")
    admin_page.press("#asset-lookup-q", "Enter")
    expect(admin_page.locator("#lookup-results tbody tr")).to_have_count(2)
    assert fits_the_width(admin_page)
    screenshot(admin_page, "lookup-phone")


def test_a_labels_qr_code_opens_the_asset_after_sign_in(page, live_server, transactional_db):
    asset = AssetFactory(asset_tag="LAPTOP-0900")
    person = UserFactory(username="tech", permissions={"admin": 1})
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + labels.admin_path(asset))  # what the phone's camera opens
    expect(page.locator("#login-form")).to_be_visible()
    page.fill("#id_username", person.username)
    page.fill("#id_password", ADMIN_PASSWORD)
    page.click("#login-form input[type=submit]")
    expect(page).to_have_url(re.compile(re.escape(labels.admin_path(asset)) + "$"))
    expect(page.locator("#id_asset_tag")).to_have_value("LAPTOP-0900")
