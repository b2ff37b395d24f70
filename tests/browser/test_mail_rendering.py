"""What people see of a mail (issue 29): the HTML part of the checkout mail (with its acceptance button and EULA),
the inventory mail and the alert digest, as received by the real SMTP server, opened in a real browser at desktop and
phone width. With ``SCREENSHOTS_DIR`` set it saves the pictures of docs/mail.md."""

from __future__ import annotations

from django.core.management import call_command
from django.db import transaction

from assetsvc.models import SiteSettings
from notifications.mail_receivers import queue_inventory_mail
from tests.browser.helpers import DESKTOP, PHONE, expect, fits_the_width, screenshot
from tests.conftest import TokenClient, run_mail_queue
from tests.factories import AssetFactory, AssetModelFactory, CategoryFactory, UserFactory
from tests.factories.inventory import AccessoryFactory, accessory_out

EULA = "1. Keep the laptop locked when you are away.\n2. Return it, with its charger, on your last day."


def show(page, html: str, name: str) -> None:
    for size, suffix in ((DESKTOP, ""), (PHONE, "-phone")):
        page.set_viewport_size(size)
        page.set_content(html)
        assert fits_the_width(page), f"{name}{suffix} needs sideways scrolling"
        screenshot(page, f"{name}{suffix}")


def test_the_mails_read_well_on_a_desktop_and_a_phone(page, admin_user, smtp_server):
    grace = UserFactory(first_name="Grace", last_name="Hopper", email="grace@example.com")
    laptop = AssetFactory(asset_tag="LAP-0042", name="Grace's laptop", serial="C02XK1", model=AssetModelFactory(
        name="MacBook Pro 14", category=CategoryFactory(name="Laptops", require_acceptance=True, eula_text=EULA)))
    body = TokenClient(admin_user).post(f"/api/v1/hardware/{laptop.pk}/checkout",
                                        {"checkout_to_type": "user", "assigned_user": grace.pk,
                                         "note": "With its charger"}, format="json").json()
    assert body["status"] == "success", body
    accessory_out(grace, AccessoryFactory(name="USB-C dock"), qty=1)
    with transaction.atomic():
        queue_inventory_mail(grace, actor=admin_user)
    settings = SiteSettings.load()
    settings.alert_email = "it@example.com"
    settings.save()
    AssetFactory(asset_tag="OLD-1", name="Old desktop", next_audit_date="2020-01-01")
    call_command("send_alerts")
    run_mail_queue()
    mails = {m.subject.split("] ", 1)[1].split(" ", 1)[0]: m for m in smtp_server.wait_for(3)}
    checkout = next(m for m in smtp_server.received if "Please accept" in m.subject)
    show(page, checkout.html, "mail-checkout")
    expect(page.locator("a", has_text="Review and accept")).to_be_visible()
    expect(page.locator("body")).to_contain_text("Return it, with its charger")
    inventory = next(m for m in smtp_server.received if "inventory" in m.subject)
    show(page, inventory.html, "mail-inventory")
    expect(page.locator("body")).to_contain_text("LAP-0042")
    digest = next(m for m in smtp_server.received if m.rcpt_tos == ["it@example.com"])
    show(page, digest.html, "mail-digest")
    expect(page.locator("body")).to_contain_text("OLD-1")
    assert len(mails) >= 3
