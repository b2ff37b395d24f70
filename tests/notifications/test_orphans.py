"""Issue 12: a task worker killed while running a delivery task (SIGKILL, OOM killer, lost host) leaves the task
``RUNNING``, and django-tasks-db never runs a claimed task again. :func:`notifications.delivery.requeue_orphans`
(swept every few seconds by every ``db_worker``) queues it again: posted if the dead worker had not marked the
attempt (so cannot have posted), recorded ``interrupted`` otherwise. Nothing lost, nothing sent twice."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import get_commands
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from notifications.delivery import requeue_orphans
from notifications.models import WebhookDelivery
from tests.notifications.conftest import live_worker_holding, wait_for_idle
from tests.notifications.test_durable import hook, scene, send  # noqa: F401 - fixtures

State = WebhookDelivery.State


def left_running(scene, age: timedelta) -> DBTaskResult:  # noqa: F811 - the fixture's value
    """A queued notification whose worker claimed it ``age`` ago and was killed."""
    send(scene)
    queued = DBTaskResult.objects.get()
    DBTaskResult.objects.filter(pk=queued.pk).update(status=TaskResultStatus.RUNNING, worker_ids=["killed"],
                                                     started_at=timezone.now() - age)
    return queued


def test_killed_before_marking_the_attempt_it_is_run_again_and_posted_once(hook, scene):  # noqa: F811
    queued = left_running(scene, timedelta(minutes=10))
    assert requeue_orphans() == 1
    wait_for_idle()
    wait_for_idle()
    queued.refresh_from_db()
    assert queued.status == TaskResultStatus.SUCCESSFUL and queued.worker_ids[0] == "killed"
    assert len(hook.log) == 1
    assert list(WebhookDelivery.objects.values_list("state", "success")) == [(State.DONE, True)]


def test_killed_after_marking_the_attempt_it_is_recorded_interrupted_and_not_posted(hook, scene):  # noqa: F811
    queued = left_running(scene, timedelta(minutes=10))
    WebhookDelivery.objects.create(event="asset.checked_out", task_id=str(queued.id), state=State.IN_PROGRESS)
    wait_for_idle()  # a worker's catch-up sweeps first
    queued.refresh_from_db()
    assert queued.status == TaskResultStatus.SUCCESSFUL
    assert hook.log == []
    assert list(WebhookDelivery.objects.values_list("state", "error")) == [(State.INTERRUPTED, "Interrupted")]


def test_a_task_claimed_a_moment_ago_is_left_to_its_worker(hook, scene):  # noqa: F811
    queued = left_running(scene, timedelta(seconds=1))
    assert requeue_orphans() == 0
    queued.refresh_from_db()
    assert queued.status == TaskResultStatus.RUNNING
    DBTaskResult.objects.filter(pk=queued.pk).update(status=TaskResultStatus.SUCCESSFUL)  # nothing left at teardown


@pytest.mark.postgres
def test_a_long_delivery_whose_worker_is_alive_is_not_queued_again(hook, scene):  # noqa: F811
    """PostgreSQL: a running task's lock, held by its live worker's session, keeps it out of the sweep however old
    its claim; once the session lets go (the worker died), the sweep takes it."""
    queued = left_running(scene, timedelta(minutes=10))
    with live_worker_holding(str(queued.id)):
        assert requeue_orphans() == 0
    assert requeue_orphans() == 1
    queued.refresh_from_db()
    assert queued.status == TaskResultStatus.READY


def test_the_db_worker_command_is_the_one_that_sweeps():
    assert get_commands()["db_worker"] == "notifications"
