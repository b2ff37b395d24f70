"""The mail queue through a real SMTP server (issue 29): STARTTLS and AUTH, retries, the mail log, the test mail."""

from __future__ import annotations

import time

import pytest
from django.core.management import call_command
from django.db import transaction

from notifications.mail import queue_mail, send_test_mail
from notifications.models import OutboundMail
from tests.conftest import run_mail_queue
from tests.factories import AssetFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def queue(to: str = "ada@example.com", **more) -> OutboundMail:
    with transaction.atomic():
        return queue_mail(to=to, subject="Hello", template="test", context={}, event="test", **more)


def test_a_queued_mail_is_sent_over_starttls_with_auth_once(smtp_server):
    row = queue()
    assert row.status == "queued"
    assert smtp_server.received == []  # never in the request: the worker sends it
    run_mail_queue()
    [mail] = smtp_server.wait_for(1)
    assert mail.tls and mail.login == "mailer"
    assert mail.rcpt_tos == ["ada@example.com"] and mail.subject == "Hello"
    assert "test mail from Asset management" in mail.text
    assert "<html" in mail.html
    assert mail.message_id == row.message_id
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_error) == ("sent", 1, "")
    run_mail_queue()
    assert len(smtp_server.received) == 1


def test_a_rolled_back_change_queues_no_mail(smtp_server):
    with pytest.raises(RuntimeError), transaction.atomic():
        queue_mail(to="ada@example.com", subject="Hello", template="test", context={}, event="test")
        raise RuntimeError
    run_mail_queue()
    assert OutboundMail.objects.count() == 0 and smtp_server.received == []


def test_a_dedupe_key_queues_one_mail(smtp_server):
    assert queue(dedupe_key="digest:x") is not None
    assert queue(dedupe_key="digest:x") is None
    run_mail_queue()
    assert len(smtp_server.wait_for(1)) == 1 and OutboundMail.objects.count() == 1


def test_smtp_down_during_20_checkouts_then_up_every_mail_arrives_exactly_once(smtp_server, settings, token_client):
    settings.MAIL_RETRY_SECONDS = 1
    smtp_server.stop()
    people = [UserFactory(email=f"user{n}@example.com") for n in range(20)]
    for person in people:
        asset = AssetFactory()
        answer = token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                                   {"checkout_to_type": "user", "assigned_user": person.pk}, format="json").json()
        assert answer["status"] == "success", answer  # the mail server being down never fails a checkout
    run_mail_queue()
    assert set(OutboundMail.objects.values_list("status", flat=True)) == {"retrying"}
    assert all("Connection" in error for error in OutboundMail.objects.values_list("last_error", flat=True))
    smtp_server.start()
    time.sleep(1.1)
    run_mail_queue()
    received = smtp_server.wait_for(20)
    assert sorted(m.rcpt_tos[0] for m in received) == sorted(person.email for person in people)
    assert set(OutboundMail.objects.values_list("status", "attempts")) == {("sent", 2)}
    run_mail_queue()
    assert len(smtp_server.received) == 20


def test_a_temporary_refusal_is_tried_again_and_a_permanent_one_is_not(smtp_server, settings):
    smtp_server.refuse_code = 451
    temporary = queue("later@example.com")
    settings.MAIL_MAX_ATTEMPTS = 3
    run_mail_queue()  # no wait between attempts here: three attempts, then given up
    temporary.refresh_from_db()
    assert (temporary.status, temporary.attempts) == ("failed", 3)
    assert temporary.last_error.startswith("451 ")
    smtp_server.refuse_code = 550
    permanent = queue("nobody@example.com")
    run_mail_queue()
    permanent.refresh_from_db()
    assert (permanent.status, permanent.attempts) == ("failed", 1)
    assert permanent.last_error.startswith("550 ")
    assert smtp_server.received == []


def test_a_wrong_password_is_retried_and_never_logged(smtp_server, settings, caplog):
    settings.EMAIL_HOST_PASSWORD = "wrong-password-xyz"
    settings.MAIL_MAX_ATTEMPTS = 2
    row = queue()
    run_mail_queue()
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("failed", 2)
    assert row.last_error.startswith("535")
    assert "wrong-password-xyz" not in caplog.text and "wrong-password-xyz" not in row.last_error


def test_an_untrusted_certificate_is_refused(smtp_server, settings):
    settings.EMAIL_SSL_CAFILE = ""
    settings.MAIL_MAX_ATTEMPTS = 1
    row = queue()
    run_mail_queue()
    row.refresh_from_db()
    assert row.status == "failed" and "SSLCertVerificationError" in row.last_error
    assert smtp_server.received == []


def test_without_email_host_the_mail_is_logged_not_sent(settings, caplog):
    settings.EMAIL_HOST = ""
    with caplog.at_level("INFO", logger="notifications.mail"):
        row = queue()
    assert row.status == "logged"
    assert "ada@example.com" in caplog.text and "test mail from" in caplog.text
    run_mail_queue()
    row.refresh_from_db()
    assert row.status == "logged"


def test_send_test_mail_reports_success_and_failure(smtp_server):
    assert send_test_mail("ops@example.com") == (True, "Mail sent to ops@example.com.")
    assert [m.rcpt_tos for m in smtp_server.wait_for(1)] == [["ops@example.com"]]
    smtp_server.stop()
    ok, text = send_test_mail("ops@example.com")
    assert not ok and text.startswith("The test mail to ops@example.com failed: ConnectionRefusedError")
    assert list(OutboundMail.objects.order_by("id").values_list("event", "status")) == [
        ("test", "sent"), ("test", "failed")]


def test_send_test_mail_command(smtp_server, capsys):
    call_command("send_test_mail", "ops@example.com")
    assert "Mail sent to ops@example.com." in capsys.readouterr().out
    assert len(smtp_server.wait_for(1)) == 1
    UserFactory()  # the command needs no user


def test_message_ids_stay_unique_when_the_random_module_is_seeded(settings):
    """A seeded ``random`` (hypothesis does it for every example) made ``make_msgid`` repeat an id: the second mail's
    insert then broke the unique column (found by the API fuzz test on PostgreSQL)."""
    import random

    settings.EMAIL_HOST = ""
    ids = set()
    for _ in range(3):
        random.seed(7)
        ids.add(queue().message_id)
    assert len(ids) == 3
