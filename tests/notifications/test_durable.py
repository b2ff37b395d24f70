"""Issue 12: durable delivery. A notification is a django-tasks task row written in the transaction of the change;
a worker posts it once and completes its delivery-log row; an interrupted attempt is never posted again; bursts are
never dropped; ``prune_deliveries`` keeps the log and the task table bounded."""

from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from inventory.models import Asset
from inventory.services.assets import asset_checkout
from inventory.signals import asset_checked_out
from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, wait_for_idle

State = WebhookDelivery.State


class Boom(Exception):
    pass


@pytest.fixture
def scene(admin_user):
    return AssetFactory(asset_tag="TAG-1", name="Laptop"), admin_user, UserFactory(first_name="G", last_name="H")


@pytest.fixture
def hook(webhook, receiver):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    return receiver


def send(scene) -> None:
    asset, admin, target = scene
    asset_checked_out.send(sender=Asset, item=asset, actor=admin, target=target, note="", log=None)


def test_a_rolled_back_change_enqueues_nothing(hook, scene):
    asset, admin, target = scene
    with pytest.raises(Boom), transaction.atomic():
        asset_checkout(asset=asset, target=target, actor=admin)
        assert DBTaskResult.objects.count() == 1  # written in the change's own transaction...
        raise Boom
    assert DBTaskResult.objects.count() == 0  # ...and gone with it
    wait_for_idle()
    assert hook.log == [] and WebhookDelivery.objects.count() == 0


def test_a_committed_checkout_stays_queued_until_a_worker_runs_it_once(hook, scene):
    asset, admin, target = scene
    asset_checkout(asset=asset, target=target, actor=admin)
    queued = DBTaskResult.objects.get()
    assert queued.status == TaskResultStatus.READY
    assert queued.task_path == "notifications.delivery.deliver_notification"
    body = json.loads(queued.args_kwargs["kwargs"]["job"]["body"])  # JSON text: jsonb would reorder its keys
    assert body["text"].startswith("Asset TAG-1 (Laptop) was checked out")
    assert hook.log == [] and WebhookDelivery.objects.count() == 0  # nothing is sent by the web process

    wait_for_idle()  # the worker
    queued.refresh_from_db()
    assert queued.status == TaskResultStatus.SUCCESSFUL
    row = WebhookDelivery.objects.get()
    assert (row.state, row.success, row.status_code, row.task_id) == (State.DONE, True, 200, str(queued.id))
    assert len(hook.log) == 1

    wait_for_idle()  # a second worker pass finds nothing to do
    assert len(hook.log) == 1 and WebhookDelivery.objects.count() == 1


def test_an_attempt_already_started_is_recorded_interrupted_and_not_posted(hook, scene, caplog):
    send(scene)
    queued = DBTaskResult.objects.get()
    # A worker marked the attempt and died before completing it; the task runs again.
    WebhookDelivery.objects.create(event="asset.checked_out", task_id=str(queued.id), state=State.IN_PROGRESS)
    wait_for_idle()
    row = WebhookDelivery.objects.get()
    assert (row.state, row.success, row.error) == (State.INTERRUPTED, False, "Interrupted")
    assert hook.log == []  # never sent twice
    assert "interrupted before; not sent again" in caplog.text


def test_a_finished_attempt_is_not_posted_again(hook, scene):
    send(scene)
    wait_for_idle()
    queued = DBTaskResult.objects.get()
    DBTaskResult.objects.filter(pk=queued.pk).update(status=TaskResultStatus.READY)  # run again by mistake
    wait_for_idle()
    assert len(hook.log) == 1
    assert WebhookDelivery.objects.get().state == State.DONE


def test_a_stale_in_progress_row_is_marked_interrupted(hook, scene):
    stale = WebhookDelivery.objects.create(event="asset.checked_out", task_id="a", state=State.IN_PROGRESS)
    fresh = WebhookDelivery.objects.create(event="asset.checked_out", task_id="b", state=State.IN_PROGRESS)
    WebhookDelivery.objects.filter(pk=stale.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    send(scene)
    wait_for_idle()  # every task run sweeps first
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert (stale.state, stale.error) == (State.INTERRUPTED, "Interrupted")
    assert fresh.state == State.IN_PROGRESS  # its worker may still be posting


def test_a_burst_of_2000_is_queued_and_delivered_without_loss(hook, scene, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_TIMEOUT": 30}  # a loaded test machine answers slowly at times
    for _ in range(2000):
        with transaction.atomic():
            send(scene)
    assert DBTaskResult.objects.filter(status=TaskResultStatus.READY).count() == 2000  # no QueueFull any more
    wait_for_idle()
    assert WebhookDelivery.objects.filter(state=State.DONE).count() == 2000
    assert WebhookDelivery.objects.filter(success=True).count() == 2000
    assert len(hook.log) == 2000
    assert not DBTaskResult.objects.exclude(status=TaskResultStatus.SUCCESSFUL).exists()


@contextmanager
def task_table_refused():
    """The database itself refuses every insert into the task table (a real trigger)."""
    table = DBTaskResult._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CREATE FUNCTION refuse_task() RETURNS trigger AS $$ "
                           "BEGIN RAISE EXCEPTION 'queue unavailable'; END $$ LANGUAGE plpgsql")
            cursor.execute(f"CREATE TRIGGER refuse_task BEFORE INSERT ON {table} "
                           "FOR EACH ROW EXECUTE FUNCTION refuse_task()")
        else:
            cursor.execute(f"CREATE TRIGGER refuse_task BEFORE INSERT ON {table} "
                           "BEGIN SELECT RAISE(ABORT, 'queue unavailable'); END")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(f"DROP TRIGGER refuse_task ON {table}")
                cursor.execute("DROP FUNCTION refuse_task()")
            else:
                cursor.execute("DROP TRIGGER refuse_task")


def test_a_queue_that_cannot_be_written_fails_the_notification_not_the_change(hook, scene, caplog):
    asset, admin, target = scene
    with task_table_refused():
        asset_checkout(asset=asset, target=target, actor=admin)  # the notification's savepoint rolls back alone
    asset.refresh_from_db()
    assert asset.assigned_user_id == target.pk  # the checkout committed
    assert "Could not queue the asset.checked_out notification" in caplog.text
    assert DBTaskResult.objects.count() == 0


def age(queryset, days: int, field: str) -> None:
    queryset.update(**{field: timezone.now() - timedelta(days=days)})


def test_prune_deletes_old_log_rows_and_finished_tasks_and_keeps_newer_ones(hook, scene, settings):
    for _ in range(3):
        send(scene)
    wait_for_idle()
    send(scene)  # still queued: never pruned, however old
    tasks = DBTaskResult.objects.order_by("enqueued_at")
    old_task, new_task, _, queued = list(tasks)
    rows = WebhookDelivery.objects.order_by("id")
    old_row, new_row, _ = list(rows)
    age(DBTaskResult.objects.filter(pk__in=[old_task.pk, queued.pk]), 40, "finished_at")
    DBTaskResult.objects.filter(pk=queued.pk).update(enqueued_at=timezone.now() - timedelta(days=40))
    age(DBTaskResult.objects.filter(pk=new_task.pk), 20, "finished_at")
    age(WebhookDelivery.objects.filter(pk=old_row.pk), 40, "created_at")
    age(WebhookDelivery.objects.filter(pk=new_row.pk), 20, "created_at")

    call_command("prune_deliveries", "--older-than", "30")

    assert not DBTaskResult.objects.filter(pk=old_task.pk).exists()
    assert DBTaskResult.objects.filter(pk__in=[new_task.pk, queued.pk]).count() == 2
    assert DBTaskResult.objects.count() == 3
    assert not WebhookDelivery.objects.filter(pk=old_row.pk).exists()
    assert WebhookDelivery.objects.count() == 2

    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_LOG_RETENTION_DAYS": 10}
    call_command("prune_deliveries")  # the setting's default
    assert WebhookDelivery.objects.count() == 1 and DBTaskResult.objects.count() == 2


@pytest.mark.django_db
def test_prune_deletes_in_batches_and_reports_its_progress(monkeypatch):
    """A large first pruning goes in short transactions (``BATCH`` rows each), with a line per 5,000 rows and a last
    one in logs (a bar on a terminal); ``--no-progress`` is silent."""
    from io import StringIO

    from notifications.management.commands import prune_deliveries

    monkeypatch.setattr(prune_deliveries, "BATCH", 2)
    WebhookDelivery.objects.bulk_create([WebhookDelivery(event="test") for _ in range(5)])
    age(WebhookDelivery.objects.all(), 40, "created_at")
    WebhookDelivery.objects.create(event="test")  # new: kept
    err, out = StringIO(), StringIO()

    call_command("prune_deliveries", "--older-than", "30", stdout=out, stderr=err)

    assert err.getvalue().splitlines() == ["deleted 5/5 rows"]
    assert "Deleted 5 delivery-log row(s) and 0 finished task(s)" in out.getvalue()
    assert WebhookDelivery.objects.count() == 1
    WebhookDelivery.objects.bulk_create([WebhookDelivery(event="test") for _ in range(3)])
    age(WebhookDelivery.objects.all(), 40, "created_at")
    err = StringIO()
    call_command("prune_deliveries", "--older-than", "30", "--no-progress", stdout=StringIO(), stderr=err)
    assert err.getvalue() == "" and not WebhookDelivery.objects.exists()
