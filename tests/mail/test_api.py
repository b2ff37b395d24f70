"""Mail through the API (issue 29), received by the real SMTP server: the checkout and checkin mails of every kind
handed to a person, ``POST /settings/mailtest`` and ``POST /users/{id}/email``."""

from __future__ import annotations

import pytest

from accounts.services import USER_NOT_FOUND
from notifications.models import OutboundMail
from tests.api_mixins import error_of, http_errors
from tests.conftest import run_mail_queue
from tests.factories import UserFactory
from tests.factories.inventory import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    ConsumableFactory,
    LicenseFactory,
    LocationFactory,
    accessory_out,
    checked_out_asset,
    seat_out,
)

pytestmark = pytest.mark.django_db(transaction=True)


def ok(response) -> dict:
    body = response.json()
    assert response.status_code == 200 and body.get("status") == "success", body
    return body


@pytest.fixture
def grace(db):
    return UserFactory(first_name="Grace", last_name="Hopper", email="grace@example.com")


def test_an_asset_checkout_to_a_user_sends_one_mail_naming_the_item(token_client, smtp_server, grace):
    asset = AssetFactory(asset_tag="LAP-0042", name="Grace's laptop", serial="SN-XYZ")
    ok(token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                         {"checkout_to_type": "user", "assigned_user": grace.pk, "note": "welcome"}, format="json"))
    assert smtp_server.received == []  # never in the request
    run_mail_queue()
    [mail] = smtp_server.wait_for(1)
    assert mail.rcpt_tos == ["grace@example.com"]
    assert mail.subject == "[Asset management] Checked out to you: asset Grace's laptop"
    for text in (mail.text, mail.html):
        assert "LAP-0042" in text and "SN-XYZ" in text and "welcome" in text
    assert "accept" not in mail.text.lower()  # the category does not ask for acceptance
    row = OutboundMail.objects.get()
    assert (row.event, row.user_id, row.status) == ("asset.checked_out", grace.pk, "sent")


def test_no_mail_without_an_address_or_to_a_location_or_an_asset(token_client, smtp_server):
    nobody = UserFactory(email="")
    for body in ({"checkout_to_type": "user", "assigned_user": nobody.pk},
                 {"checkout_to_type": "location", "assigned_location": LocationFactory().pk},
                 {"checkout_to_type": "asset", "assigned_asset": AssetFactory().pk}):
        ok(token_client.post(f"/api/v1/hardware/{AssetFactory().pk}/checkout", body, format="json"))
    run_mail_queue()
    assert OutboundMail.objects.count() == 0 and smtp_server.received == []


def test_accessory_consumable_and_license_checkouts_mail_the_person_never_the_key(token_client, smtp_server, grace):
    dock = AccessoryFactory(name="USB-C dock", qty=5)
    toner = ConsumableFactory(name="Toner black", qty=10)
    office = LicenseFactory(name="Office 365", serial="SECRET-KEY-12345")
    ok(token_client.post(f"/api/v1/accessories/{dock.pk}/checkout", {"assigned_user": grace.pk, "checkout_qty": 2},
                         format="json"))
    ok(token_client.post(f"/api/v1/consumables/{toner.pk}/checkout", {"assigned_to": grace.pk, "checkout_qty": 3},
                         format="json"))
    seat = office.seat_rows.first()
    ok(token_client.patch(f"/api/v1/licenses/{office.pk}/seats/{seat.pk}", {"assigned_to": grace.pk},
                          format="json"))
    run_mail_queue()
    mails = {m.subject: m for m in smtp_server.wait_for(3)}
    assert set(mails) == {"[Asset management] Checked out to you: accessory USB-C dock",
                          "[Asset management] Checked out to you: consumable Toner black",
                          "[Asset management] Checked out to you: license Office 365"}
    assert "Quantity: 2" in mails["[Asset management] Checked out to you: accessory USB-C dock"].text
    for mail in mails.values():
        assert "SECRET-KEY-12345" not in mail.text and "SECRET-KEY-12345" not in mail.html


def test_a_checkin_mails_only_when_the_category_asks(token_client, smtp_server, grace):
    asks = CategoryFactory(checkin_email=True)
    quiet = CategoryFactory(checkin_email=False)
    told = checked_out_asset(grace, model=AssetModelFactory(category=asks), asset_tag="BACK-1")
    untold = checked_out_asset(grace, model=AssetModelFactory(category=quiet), asset_tag="BACK-2")
    for asset in (told, untold):
        ok(token_client.post(f"/api/v1/hardware/{asset.pk}/checkin", {"note": "returned"}, format="json"))
    dock = AccessoryFactory(category=CategoryFactory(checkin_email=True, category_type="accessory"))
    row = accessory_out(grace, dock)
    ok(token_client.post(f"/api/v1/accessories/{row.pk}/checkin", {}, format="json"))
    run_mail_queue()
    subjects = sorted(m.subject for m in smtp_server.wait_for(2))
    assert subjects == [f"[Asset management] Checked in: accessory {dock.name}",
                        f"[Asset management] Checked in: asset {told.name}"]
    assert "BACK-1" in next(m.text for m in smtp_server.received if "asset" in m.subject)


def test_a_failed_change_sends_nothing(token_client, smtp_server, grace):
    asset = checked_out_asset(UserFactory())
    response = token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                                 {"checkout_to_type": "user", "assigned_user": grace.pk}, format="json")
    assert response.json()["status"] == "error"
    run_mail_queue()
    assert OutboundMail.objects.count() == 0


def test_mailtest_sends_to_the_caller_and_reports_failures(make_client, smtp_server, settings):
    boss = UserFactory(superuser=True, email="boss@example.com")
    client = make_client(boss)
    body = ok(client.post("/api/v1/settings/mailtest"))
    assert body["messages"] == "Mail sent successfully!" and body["payload"] == {"to": "boss@example.com"}
    assert [m.rcpt_tos for m in smtp_server.wait_for(1)] == [["boss@example.com"]]
    smtp_server.stop()
    message = error_of(client.post("/api/v1/settings/mailtest/"))
    assert message.startswith("The test mail to boss@example.com failed: ConnectionRefusedError")
    settings.EMAIL_HOST = ""
    assert "EMAIL_HOST is empty" in error_of(client.post("/api/v1/settings/mailtest"))
    http_errors(settings)
    assert client.post("/api/v1/settings/mailtest").status_code == 409
    for permissions in ({}, {"admin": 1}):
        assert make_client(UserFactory(permissions=permissions)).post(
            "/api/v1/settings/mailtest").status_code == 403


def test_users_email_mails_their_inventory(token_client, smtp_server, grace):
    checked_out_asset(grace, asset_tag="INV-1")
    accessory_out(grace, AccessoryFactory(name="Headset"), qty=2)
    seat_out(grace, LicenseFactory(name="IDE", serial="KEY-NEVER-SHOWN"))
    body = ok(token_client.post(f"/api/v1/users/{grace.pk}/email"))
    assert body["messages"] == "The user has been notified about their current inventory."
    run_mail_queue()
    [mail] = smtp_server.wait_for(1)
    assert mail.subject == "[Asset management] Your current inventory" and mail.rcpt_tos == ["grace@example.com"]
    assert "INV-1" in mail.text and "Headset × 2" in mail.text and "IDE" in mail.text
    assert "KEY-NEVER-SHOWN" not in mail.text + mail.html


def test_users_email_refusals(make_client, token_client, company, other_company, fmcs_on, settings):
    assert error_of(token_client.post(f"/api/v1/users/{UserFactory(email='').pk}/email")) == \
        "This user has no email set."
    assert error_of(token_client.post("/api/v1/users/999999/email")) == USER_NOT_FOUND
    caller = UserFactory(company=company, permissions={"users.edit": 1})
    stranger = UserFactory(company=other_company, email="s@example.com")
    assert error_of(make_client(caller).post(f"/api/v1/users/{stranger.pk}/email")) == USER_NOT_FOUND
    assert make_client(UserFactory(permissions={"users.view": 1})).post(
        f"/api/v1/users/{stranger.pk}/email").status_code == 403
    boss = UserFactory(superuser=True, company=company, email="b@example.com")
    assert make_client(caller).post(f"/api/v1/users/{boss.pk}/email").status_code == 403
    assert OutboundMail.objects.count() == 0
