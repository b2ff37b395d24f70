"""``send_alerts`` end to end (issue 29, "Done when"): the queued digests and reminders go through the real SMTP
server of ``tests/mailserver.py`` (STARTTLS, AUTH) and arrive once each, with a plain-text and an HTML part."""

from __future__ import annotations

import pytest

from notifications.models import OutboundMail
from tests.conftest import run_mail_queue
from tests.notifications.test_alerts import A_ITEMS, B_ITEMS, KEY, NEVER, run, seed

pytestmark = pytest.mark.django_db(transaction=True)


def test_digests_and_reminders_arrive_once_each_with_both_parts(site_settings, smtp_server):
    seed(site_settings)
    run()
    assert smtp_server.received == []  # the command only queues: the worker sends
    run_mail_queue()
    received = smtp_server.wait_for(3)
    assert sorted(mail.rcpt_tos[0].lower() for mail in received) == [
        "boss@example.com", "holder@example.com", "it@example.com"]
    by_address = {mail.rcpt_tos[0].lower(): mail for mail in received}
    for mail in received:
        assert mail.tls and mail.text and mail.html.lstrip().startswith("<!doctype html>")
        assert KEY not in mail.text and KEY not in mail.html
    outside = by_address["it@example.com"]
    assert outside.subject.startswith("[Asset management] 2 warranties, 3 licenses")
    for name in A_ITEMS + B_ITEMS[:-1]:
        assert name in outside.text and name in outside.html, name
    boss = by_address["boss@example.com"]
    for name in B_ITEMS + NEVER:
        assert name not in boss.subject and name not in boss.text and name not in boss.html, name
    reminder = by_address["holder@example.com"]
    assert "CHK-OVER" in reminder.text and "CHK-OVER" in reminder.html
    assert set(OutboundMail.objects.values_list("status", flat=True)) == {OutboundMail.Status.SENT}

    # A second run the same day: nothing new queued, nothing sent again.
    run()
    run_mail_queue()
    assert OutboundMail.objects.count() == 3
    assert len(smtp_server.received) == 3
