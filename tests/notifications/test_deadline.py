"""Issue 25, item 11: ``WEBHOOK_TIMEOUT`` is a total deadline per attempt, not a bound on each socket read. A real
receiver (a local socket server) that trickles its answer one byte at a time is cut off at the deadline and the
attempt is recorded as failed, so no delivery outlives the sweeper's age limit while it is still posting; and a
delivery whose task is still running is never marked interrupted, however old its mark.
(The trickling receiver was written by the i25-worker branch.)"""

from __future__ import annotations

import socket
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from notifications.delivery import stale_after, sweep
from notifications.models import WebhookDelivery
from tests.notifications.conftest import HOOK_PATH, live_worker_holding, wait_for_idle
from tests.notifications.test_durable import hook, scene, send  # noqa: F401 - fixtures

ANSWER = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok": true}'


class TricklingReceiver:
    """Accepts connections, reads the request, then sends a 200 answer one byte every ``pause`` seconds (a whole
    answer takes ``len(ANSWER) * pause`` seconds: 20 s at 0.25 s). Each socket read of the client gets a byte well
    within any per-read timeout."""

    def __init__(self, pause: float = 0.25):
        self.pause = pause
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.requests = 0
        self.hung_up = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{HOOK_PATH}"

    def _serve(self) -> None:
        self.server.settimeout(0.2)
        while not self._stop.is_set():
            try:
                client, _ = self.server.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._answer, args=(client,), daemon=True).start()

    def _answer(self, client: socket.socket) -> None:
        with client:
            client.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = client.recv(65536)
                if not chunk:
                    return
                data += chunk
            self.requests += 1
            try:
                for byte in ANSWER:
                    if self._stop.wait(self.pause):
                        return
                    client.sendall(bytes([byte]))
            except OSError:  # the client hung up
                self.hung_up.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.server.close()


@pytest.fixture
def trickler():
    receiver = TricklingReceiver()
    yield receiver
    receiver.close()


def test_a_trickling_receiver_is_cut_off_at_the_total_deadline_and_recorded_failed(webhook, trickler, scene,  # noqa: F811
                                                                                   make_client):
    webhook("slack", trickler.url)  # WEBHOOK_TIMEOUT is 1 s here
    asset, admin, target = scene
    response = make_client(admin).post(f"/api/v1/hardware/{asset.pk}/checkout",
                                       {"checkout_to_type": "user", "assigned_user": target.pk}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "success", response.json()
    started = time.monotonic()
    wait_for_idle()
    elapsed = time.monotonic() - started
    assert trickler.requests == 1
    row = WebhookDelivery.objects.get()
    assert (row.state, row.success, row.status_code, row.error) == ("done", False, None, "ReadTimeout"), row.error
    assert 900 <= row.latency_ms < 2500, row.latency_ms
    assert elapsed < 5, f"the attempt held the worker {elapsed:.1f} s"
    assert DBTaskResult.objects.get().status == TaskResultStatus.SUCCESSFUL
    assert stale_after().total_seconds() > 5  # the sweeper never takes such an attempt for an interrupted one


def test_the_admin_test_message_is_bounded_by_the_same_deadline(webhook, trickler, admin_client):
    from tests.notifications.test_admin import send_test

    webhook("slack", trickler.url)
    started = time.monotonic()
    assert send_test(admin_client) == ["The test message to the Slack endpoint failed: ReadTimeout"]
    assert time.monotonic() - started < 5
    assert list(WebhookDelivery.objects.values_list("success", "error")) == [(False, "ReadTimeout")]


@pytest.mark.postgres
def test_a_delivery_still_running_is_never_marked_interrupted_however_old_its_mark(hook, scene):  # noqa: F811
    """A task claimed by a live worker (its session holds the task's lock) whose attempt was marked long ago: a sweep
    leaves the mark ``in_progress``; once the worker is gone, the next sweep records it. (PostgreSQL: SQLite tells a
    live worker only by the attempt's age, which the total deadline above keeps short; i25-worker's test.)"""
    send(scene)
    queued = DBTaskResult.objects.get()
    long_ago = timezone.now() - timedelta(hours=1)
    DBTaskResult.objects.filter(pk=queued.pk).update(status=TaskResultStatus.RUNNING, worker_ids=["alive"],
                                                     started_at=long_ago)
    mark = WebhookDelivery.objects.create(event="asset.checked_out", task_id=str(queued.id), state="in_progress")
    WebhookDelivery.objects.filter(pk=mark.pk).update(created_at=long_ago)
    with live_worker_holding(str(queued.id)):
        sweep()
        mark.refresh_from_db()
        assert (mark.state, mark.error) == ("in_progress", "")
    sweep()  # the worker's session is gone: its task and attempt are orphans
    mark.refresh_from_db()
    assert (mark.state, mark.error) == ("interrupted", "Interrupted")
    DBTaskResult.objects.filter(pk=queued.pk).update(status=TaskResultStatus.SUCCESSFUL)  # nothing left at teardown
