"""The acceptance page (issue 29) in a real browser, at desktop and phone width: the person reads the EULA, writes a
note and accepts; the item's history then has the ``accepted`` row. With ``SCREENSHOTS_DIR`` set it saves the
pictures of docs/acceptance.md."""

from __future__ import annotations

from activity.models import ActionLog
from inventory.acceptance_links import acceptance_token
from inventory.models import CheckoutAcceptance
from tests.browser.helpers import DESKTOP, PHONE, expect, fits_the_width, screenshot
from tests.factories import AssetFactory, AssetModelFactory, CategoryFactory, UserFactory

EULA = ("1. The laptop stays yours to use for work while you are employed.\n"
        "2. Keep it locked when you are away, and report a loss the same day.\n"
        "3. Return it, with its charger, on your last day.")


def handed_out(admin_user) -> CheckoutAcceptance:
    from rest_framework.test import APIClient

    from accounts.services import personal_token_issue

    person = UserFactory(first_name="Grace", last_name="Hopper")
    asset = AssetFactory(asset_tag="LAP-0042", name="Grace's laptop", serial="C02XK1", model=AssetModelFactory(
        name="MacBook Pro 14", category=CategoryFactory(name="Laptops", require_acceptance=True, eula_text=EULA)))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {personal_token_issue(user=admin_user, name='t')[1]}")
    body = client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                       {"checkout_to_type": "user", "assigned_user": person.pk}, format="json").json()
    assert body["status"] == "success", body
    return CheckoutAcceptance.objects.get()


def test_accept_on_a_phone(page, admin_user):
    acceptance = handed_out(admin_user)
    url = f"/accept/{acceptance_token(acceptance)}/"
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    expect(page.locator("#eula")).to_contain_text("report a loss the same day")
    expect(page.locator("body")).to_contain_text("Ada Admin")
    screenshot(page, "acceptance-page")
    page.set_viewport_size(PHONE)
    page.goto(url)
    assert fits_the_width(page)
    screenshot(page, "acceptance-page-phone")
    page.fill("#note", "Received with its charger.")
    page.click("button[value=accept]")
    expect(page.locator("h1")).to_have_text("Accepted")
    assert fits_the_width(page)
    screenshot(page, "acceptance-done-phone")
    assert ActionLog.objects.filter(action_type="accepted", item_id=acceptance.item_id,
                                    note="Received with its charger.").exists()
    page.goto(url)
    expect(page.locator("h1")).to_have_text("This link cannot be used")
