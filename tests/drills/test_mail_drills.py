"""Mail crash drills (issue 29), on PostgreSQL: a real ``manage.py db_worker`` sends 20 queued checkout mails through
the real SMTP server and is killed with SIGKILL in the middle of one, at either side of the moment the content is
handed over; a new worker then sends the rest. Every mail arrives exactly once, and the mail log says what happened:
the mail the kill hit before its content went out is sent again (the server kept nothing of it); the one whose content
the server had received is marked ``uncertain`` and never sent twice."""

from __future__ import annotations

import os
import signal
from collections import Counter

import pytest
from django_tasks_db.models import DBTaskResult

from notifications.models import OutboundMail
from tests.factories import AssetFactory, UserFactory
from tests.live import DbWorker, live_env, wait_until

pytestmark = [pytest.mark.live, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def queue_twenty_checkout_mails(make_client) -> list[str]:
    client = make_client(UserFactory(superuser=True))
    addresses = []
    for n in range(20):
        person = UserFactory(email=f"person{n}@example.com")
        asset = AssetFactory(asset_tag=f"DRILL-{n:02d}")
        answer = client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                             {"checkout_to_type": "user", "assigned_user": person.pk}, format="json").json()
        assert answer["status"] == "success", answer
        addresses.append(person.email)
    assert OutboundMail.objects.filter(status="queued").count() == 20
    return addresses


@pytest.mark.parametrize("stage", ["rcpt", "data"])
def test_a_worker_killed_mid_send_loses_no_mail_and_sends_none_twice(make_client, smtp_server, stage):
    addresses = queue_twenty_checkout_mails(make_client)
    env = live_env(**smtp_server.env(), MAIL_RETRY_SECONDS="0")
    smtp_server.hold(stage)
    first = DbWorker(env).start()
    try:
        assert smtp_server.holding.wait(30), "the worker sent nothing within 30 s"
        os.kill(first.process.pid, signal.SIGKILL)
    finally:
        first.kill()
    smtp_server.release()
    hit = OutboundMail.objects.get(status="sending")
    assert (hit.handed_over_at is not None) == (stage == "data")

    second = DbWorker(env).start()
    try:
        def settled() -> bool:
            return (not OutboundMail.objects.filter(status__in=["queued", "sending", "retrying"]).exists()
                    and not DBTaskResult.objects.exclude(status="SUCCESSFUL").exists())

        assert wait_until(settled, 60, interval=0.2), (
            Counter(OutboundMail.objects.values_list("status", flat=True)),
            Counter(DBTaskResult.objects.values_list("status", flat=True)))
    finally:
        stderr = second.stop()

    received = Counter(mail.rcpt_tos[0] for mail in smtp_server.wait_for(20))
    assert received == Counter(addresses), stderr  # every mail exactly once
    statuses = Counter(OutboundMail.objects.values_list("status", flat=True))
    hit.refresh_from_db()
    if stage == "rcpt":  # killed before the content went out: sent again by the second worker
        assert statuses == {"sent": 20} and hit.attempts == 2
    else:  # the server had the content: recorded uncertain, never sent twice
        assert statuses == {"sent": 19, "uncertain": 1} and hit.status == "uncertain"
