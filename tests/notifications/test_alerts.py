"""``manage.py send_alerts`` (issue 29 item 4): the alert digest per ``alert_email`` address and the reminders.

A seeded database holds one item of every alert category in company A, a few in company B, and rows that must never
appear (deleted, archived, beyond the window, not yet overdue). Every date is relative to the real today, so the
reminder interval (which reads the mail log's ``created_at``) behaves as in production.
"""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from inventory.choices import StatusType
from inventory.models import CheckoutAcceptance
from notifications import alerts
from notifications.models import OutboundMail
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    CompanyFactory,
    ComponentFactory,
    ConsumableFactory,
    LicenseFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, checked_out_asset

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()
KEY = "SECRET-PRODUCT-KEY-0042"


def days(n: int):
    return TODAY + timedelta(days=n)


def warranty_ending_in(n: int) -> dict:
    """A purchase date and 12 months of warranty ending about ``n`` days from today (± a day of month clamping)."""
    return {"purchase_date": days(n) - timedelta(days=365), "warranty_months": 12}


def run(*args: str) -> str:
    out = StringIO()
    call_command("send_alerts", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def digests() -> dict[str, OutboundMail]:
    return {mail.to.lower(): mail for mail in OutboundMail.objects.filter(event=alerts.DIGEST_EVENT)}


def body(mail: OutboundMail) -> str:
    return f"{mail.subject}\n{mail.text_body}\n{mail.html_body}"


@pytest.fixture
def seeded(site_settings):
    return seed(site_settings)


def seed(site_settings) -> dict:
    """One item of every alert category in company A, a few in company B, and rows that must never appear."""
    site_settings.full_multiple_companies_support = True
    site_settings.alert_email = "it@example.com, Boss@Example.com"
    site_settings.alerts_enabled = True
    site_settings.alert_interval = 30
    site_settings.audit_warning_days = 14
    site_settings.reminder_interval = 7
    site_settings.save()
    a, b = CompanyFactory(name="Acme Alpha"), CompanyFactory(name="Bravo Beta")
    archived = StatusLabelFactory(name="Archived", type=StatusType.ARCHIVED)
    holder = UserFactory(username="holder", email="holder@example.com", company=a)
    boss = UserFactory(username="boss", email="boss@example.com", company=a)
    # Company A: one of each category.
    AssetFactory(asset_tag="WARR-A", company=a, **warranty_ending_in(10))
    LicenseFactory(name="Office Alpha", company=a, expiration_date=days(20), serial=KEY)
    LicenseFactory(name="Terminating Alpha", company=a, termination_date=days(25), serial=KEY)
    AssetFactory(asset_tag="AUD-OVER", company=a, next_audit_date=days(-3))
    AssetFactory(asset_tag="AUD-DUE", company=a, next_audit_date=days(5))
    checked_out_asset(holder, asset_tag="CHK-OVER", company=a, expected_checkin=days(-2))
    accessory_out(holder, AccessoryFactory(name="Dock Alpha", company=a, qty=5, min_amt=2), qty=3)
    ConsumableFactory(name="Toner Alpha", company=a, qty=1, min_amt=1)
    ComponentFactory(name="RAM Alpha", company=a, qty=4, min_amt=5)
    # Company A: what must not appear.
    AssetFactory(asset_tag="WARR-FAR", company=a, **warranty_ending_in(60))
    AssetFactory(asset_tag="WARR-GONE", company=a, deleted_at=timezone.now(), **warranty_ending_in(10))
    AssetFactory(asset_tag="WARR-ARCH", company=a, status=archived, **warranty_ending_in(10))
    AssetFactory(asset_tag="AUD-LATER", company=a, next_audit_date=days(40))
    checked_out_asset(holder, asset_tag="CHK-LATER", company=a, expected_checkin=days(3))
    LicenseFactory(name="Office Later", company=a, expiration_date=days(90))
    LicenseFactory(name="Office Gone", company=a, expiration_date=days(5), deleted_at=timezone.now())
    AccessoryFactory(name="Dock Plenty", company=a, qty=5, min_amt=1)
    AccessoryFactory(name="Dock Gone", company=a, qty=1, min_amt=5, deleted_at=timezone.now())
    # Company B: one of several categories.
    AssetFactory(asset_tag="WARR-B", company=b, **warranty_ending_in(12))
    LicenseFactory(name="License Bravo", company=b, expiration_date=days(7))
    AssetFactory(asset_tag="AUD-B", company=b, next_audit_date=days(-1))
    AccessoryFactory(name="Cable Bravo", company=b, qty=1, min_amt=1)
    return {"a": a, "b": b, "holder": holder, "boss": boss}


A_ITEMS = ["WARR-A", "Office Alpha", "Terminating Alpha", "AUD-OVER", "AUD-DUE", "CHK-OVER", "Dock Alpha",
           "Toner Alpha", "RAM Alpha"]
B_ITEMS = ["WARR-B", "License Bravo", "AUD-B", "Cable Bravo", "Bravo Beta"]
NEVER = ["WARR-FAR", "WARR-GONE", "WARR-ARCH", "AUD-LATER", "CHK-LATER", "Office Later", "Office Gone",
         "Dock Plenty", "Dock Gone", KEY]


def test_a_digest_per_address_with_every_section(seeded):
    output = run()
    mails = digests()
    assert set(mails) == {"it@example.com", "boss@example.com"}
    outside = mails["it@example.com"]
    assert outside.user is None and outside.company_id is None
    assert outside.dedupe_key == f"digest:{TODAY.isoformat()}:it@example.com"
    for name in A_ITEMS + B_ITEMS[:-1]:
        assert name in outside.text_body and name in outside.html_body, name
    for name in NEVER:
        assert name not in body(outside), name
    for title in ("Warranties expiring within 30 days", "Licenses expiring within 30 days", "Audits overdue",
                  "Audits due within 14 days", "Check-ins overdue", "Accessories at or below their minimum",
                  "Consumables at or below their minimum", "Components at or below their minimum"):
        assert title in outside.text_body and title in outside.html_body, title
    assert outside.subject == ("[Asset management] 2 warranties, 3 licenses, 3 audits, 1 overdue check-in, "
                               "4 low-stock items need attention")
    assert "/admin/inventory/asset/?warranty=ending" in outside.html_body
    assert "Digests queued: 2" in output


def test_a_company_administrators_digest_lists_their_company_only(seeded):
    run()
    mail = digests()["boss@example.com"]
    assert mail.to == "Boss@Example.com"
    assert mail.user == seeded["boss"] and mail.company_id == seeded["a"].pk
    for name in A_ITEMS + ["Acme Alpha"]:
        assert name in mail.text_body, name
    for name in B_ITEMS + NEVER:
        assert name not in body(mail), name
    assert mail.subject == ("[Asset management] 1 warranty, 2 licenses, 2 audits, 1 overdue check-in, "
                            "3 low-stock items need attention")


def test_a_super_users_address_gets_everything(seeded):
    seeded["boss"].permissions = {"superuser": 1}
    seeded["boss"].save()
    run()
    mail = digests()["boss@example.com"]
    assert mail.company_id is None
    assert "WARR-B" in mail.text_body


def test_separation_off_gives_a_company_administrator_everything(seeded, site_settings):
    site_settings.full_multiple_companies_support = False
    site_settings.save()
    run()
    mail = digests()["boss@example.com"]
    assert mail.company_id is None
    assert "WARR-B" in mail.text_body and "Cable Bravo" in mail.text_body


def test_a_second_run_the_same_day_queues_nothing(seeded):
    run()
    count = OutboundMail.objects.count()
    output = run()
    assert OutboundMail.objects.count() == count
    assert "Digests queued: 0; already sent today: 2" in output
    assert "Reminders queued: 0; skipped (reminded within the interval): 1" in output


def test_nothing_to_report_sends_no_digest(site_settings):
    site_settings.alert_email = "it@example.com"
    site_settings.save()
    AssetFactory(asset_tag="FINE", next_audit_date=days(100))
    output = run()
    assert not OutboundMail.objects.exists()
    assert "nothing to report: 1" in output


@pytest.mark.parametrize("change", [{"alerts_enabled": False}, {"alert_email": ""}])
def test_digest_off_or_without_address_still_reminds(seeded, site_settings, change):
    for name, value in change.items():
        setattr(site_settings, name, value)
    site_settings.save()
    output = run()
    assert not digests()
    assert OutboundMail.objects.filter(event=alerts.REMINDER_EVENT).count() == 1
    assert "Digests: none" in output


def test_reminders_list_overdue_checkins_and_pending_acceptances(seeded):
    holder = seeded["holder"]
    laptop = checked_out_asset(holder, asset_tag="ACC-1", name="New laptop", company=seeded["a"])
    acceptance = CheckoutAcceptance.objects.create(item_type="asset", item_id=laptop.pk, user=holder,
                                                   company=seeded["a"])
    licence = LicenseFactory(name="Design Suite", company=seeded["a"], serial=KEY)
    CheckoutAcceptance.objects.create(item_type="license", item_id=licence.pk, assignment_id=1, user=holder)
    # Only someone waiting for an answer: reminded too; an answered acceptance is not listed.
    waiting = UserFactory(username="waiting", email="waiting@example.com")
    CheckoutAcceptance.objects.create(item_type="accessory", item_id=AccessoryFactory(name="Headset").pk,
                                      user=waiting)
    CheckoutAcceptance.objects.create(item_type="asset", item_id=laptop.pk, user=waiting,
                                      state=CheckoutAcceptance.State.ACCEPTED)
    # Nobody to write to: no address, deactivated, deleted.
    for person in (UserFactory(email=""), UserFactory(is_active=False), UserFactory(deleted_at=timezone.now())):
        checked_out_asset(person, expected_checkin=days(-5))
    run()
    reminders = {mail.user: mail for mail in OutboundMail.objects.filter(event=alerts.REMINDER_EVENT)}
    assert set(reminders) == {holder, waiting}
    mail = reminders[holder]
    assert mail.to == "holder@example.com"
    assert mail.dedupe_key == f"reminder:{holder.pk}:{TODAY.isoformat()}"
    assert mail.subject == "[Asset management] Reminder: 1 overdue check-in and 2 items awaiting your acceptance"
    assert "CHK-OVER" in mail.text_body and "CHK-LATER" not in mail.text_body
    assert "ACC-1 – New laptop" in mail.text_body and "Design Suite" in mail.text_body
    acceptance.refresh_from_db()
    assert acceptance.link_nonce
    assert "/accept/" in mail.text_body and 'href="http' in mail.html_body
    assert KEY not in body(mail)
    other = reminders[waiting]
    assert "Headset" in other.text_body and "New laptop" not in other.text_body
    assert "overdue" not in other.subject


def test_reminders_at_most_once_per_interval(seeded):
    holder = seeded["holder"]
    run()
    reminded = OutboundMail.objects.filter(event=alerts.REMINDER_EVENT, user=holder)
    assert reminded.count() == 1

    def sent_days_ago(n: int) -> None:
        reminded.update(created_at=timezone.now() - timedelta(days=n), dedupe_key=f"reminder:{holder.pk}:{days(-n)}")

    sent_days_ago(6)  # interval 7: still too early
    output = run()
    assert reminded.count() == 1
    assert "skipped (reminded within the interval): 1" in output
    sent_days_ago(7)  # the next one goes
    run()
    assert reminded.count() == 2


def test_a_failed_reminder_does_not_count(seeded):
    run()
    OutboundMail.objects.filter(event=alerts.REMINDER_EVENT).update(status="failed")
    run("--date", days(1).isoformat())
    assert OutboundMail.objects.filter(event=alerts.REMINDER_EVENT).count() == 2


def test_date_option_moves_today(seeded):
    run()
    run("--date", days(1).isoformat())
    assert OutboundMail.objects.filter(event=alerts.DIGEST_EVENT).count() == 4
    # Fifty days on: the far warranty is inside the window; the ones of today have ended.
    run("--date", days(50).isoformat())
    late = OutboundMail.objects.get(event=alerts.DIGEST_EVENT, dedupe_key=f"digest:{days(50)}:it@example.com")
    assert "WARR-FAR" in late.text_body and "WARR-A " not in late.text_body


def test_bad_date_is_refused(seeded):
    with pytest.raises(CommandError, match="not a date"):
        run("--date", "2026-13-01")


def test_dry_run_prints_and_queues_nothing(seeded):
    output = run("--dry-run")
    assert not OutboundMail.objects.exists()
    assert "Would send digest to it@example.com: [Asset management] 2 warranties" in output
    assert "Would send digest to Boss@Example.com: [Asset management] 1 warranty" in output
    assert "Would send reminder to holder@example.com" in output
    assert "Digests to queue: 2" in output and "Reminders to queue: 1" in output
    assert not CheckoutAcceptance.objects.exclude(link_nonce="").exists()


def test_each_section_is_capped_with_a_count_of_the_rest(seeded, monkeypatch):
    monkeypatch.setattr(alerts, "SECTION_ROWS", 2)
    for n in range(3):
        AssetFactory(asset_tag=f"AUD-EXTRA-{n}", company=seeded["a"], next_audit_date=days(-10 - n))
    run()
    mail = digests()["boss@example.com"]
    assert "Audits overdue: 4" in mail.text_body
    assert "... and 2 more." in mail.text_body
    assert "AUD-EXTRA-2" in mail.text_body and "AUD-OVER" not in mail.text_body


def test_one_query_per_section_whatever_the_size(seeded):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            board = alerts.digest(alerts.scope_for_address("boss@example.com"), TODAY)
        assert not board.empty
        return len(captured)

    few = queries()
    for n in range(5):
        AssetFactory(asset_tag=f"MORE-{n}", company=seeded["a"], next_audit_date=days(-1), **warranty_ending_in(3))
        AccessoryFactory(company=seeded["a"], qty=1, min_amt=3)
    assert queries() == few


def test_another_companys_holder_and_location_are_not_named(seeded):
    stranger = UserFactory(username="stranger", first_name="Zed", last_name="Stranger", company=seeded["b"])
    elsewhere = LocationFactory(name="Bravo Depot", company=seeded["b"])
    checked_out_asset(stranger, asset_tag="CHK-LENT", company=seeded["a"], expected_checkin=days(-1))
    AssetFactory(asset_tag="AUD-AWAY", company=seeded["a"], location=elsewhere, next_audit_date=days(-1))
    run()
    mail = digests()["boss@example.com"]
    assert "CHK-LENT" in mail.text_body and "AUD-AWAY" in mail.text_body
    assert "Stranger" not in body(mail) and "Bravo Depot" not in body(mail)
    assert "(another company)" in mail.text_body
    assert "Zed Stranger" in digests()["it@example.com"].text_body
