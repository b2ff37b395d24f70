"""Task-worker drills (issue 25): a real ``manage.py db_worker`` process against the test database and a real local
receiver.

1. PostgreSQL drops the worker's connections (``pg_terminate_backend``) while it is posting: the worker reconnects,
   records that delivery and goes on delivering the next notifications (it used to die for good).
2. A receiver that trickles its answer one byte at a time is cut off at ``WEBHOOK_TIMEOUT`` in total, recorded as a
   failed attempt (never a success), and the worker delivers the next notification at once.
3. A delivery that is still being posted is never recorded ``interrupted`` by a sweep, however old its mark.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, UserFactory
from tests.live import DbWorker, live_env, wait_until
from tests.notifications.conftest import HOOK_PATH

pytestmark = pytest.mark.live


@pytest.fixture
def api(admin_user, make_client):
    return make_client(admin_user)


def checkout(api, asset, user) -> None:
    response = api.post(f"/api/v1/hardware/{asset.pk}/checkout",
                        {"checkout_to_type": "user", "assigned_user": user.pk}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "success", response.json()


def worker_env(timeout: int = 10) -> dict[str, str]:
    # The endpoint travels in the queued job (the test's site settings made it); the worker only needs the database.
    return live_env(WEBHOOK_TIMEOUT=str(timeout))


def states() -> list[tuple[str, bool | None, str]]:
    return list(WebhookDelivery.objects.order_by("id").values_list("state", "success", "error"))


def terminate_other_backends() -> int:
    """``pg_terminate_backend`` of every other session on the test database (the worker's), sparing the test's."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_the_worker_survives_its_connection_dropped_mid_delivery_and_delivers_the_next(webhook, receiver, api):
    arrived, cut = threading.Event(), threading.Event()

    def handler(request):
        from werkzeug import Response

        if not arrived.is_set():
            arrived.set()
            cut.wait(20)  # the first POST is answered only once the worker's connections are gone
        return Response('{"ok": true}', status=200, content_type="application/json")

    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_handler(handler)
    holder = UserFactory()
    first, second = AssetFactory(asset_tag="DROP-1"), AssetFactory(asset_tag="DROP-2")
    checkout(api, first, holder)

    worker = DbWorker(worker_env()).start()
    try:
        assert arrived.wait(30), "the worker did not post within 30 s"
        assert terminate_other_backends() >= 1
        cut.set()
        assert wait_until(lambda: states() == [("done", True, "")], 30), (states(), worker.log.text()[-3000:])

        checkout(api, second, holder)  # the next notification, queued after the outage
        assert wait_until(lambda: len(receiver.log) == 2 and len(states()) == 2 and states()[1][0] == "done", 30), (
            states(), worker.log.text()[-3000:])
        assert worker.process.poll() is None, "the worker exited: " + worker.log.text()[-3000:]
    finally:
        log = worker.stop()
    texts = [request.get_json()["text"] for request, _response in receiver.log]
    assert [text.split(" (")[0] for text in texts] == ["Asset DROP-1", "Asset DROP-2"], log
    assert states() == [("done", True, ""), ("done", True, "")]


def allow_connections(database: str, allowed: bool) -> None:
    """``ALTER DATABASE ... ALLOW_CONNECTIONS``, from a session on the maintenance database (PostgreSQL refuses it
    from a session on the database itself). Sessions already open are not affected."""
    import psycopg

    params = connection.settings_dict
    with psycopg.connect(dbname="postgres", host=params["HOST"], port=params["PORT"], user=params["USER"],
                         password=params["PASSWORD"] or None, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {"true" if allowed else "false"}')


@pytest.mark.postgres
def test_the_worker_waits_out_a_database_it_cannot_reach_and_delivers_afterwards(webhook, receiver, api):
    """Between deliveries the database refuses new connections for a few seconds and the worker's are terminated
    (a PostgreSQL restart, a failover): the worker keeps trying instead of exiting, and delivers once it is back."""
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    holder = UserFactory()
    worker = DbWorker(worker_env()).start()
    name = connection.settings_dict["NAME"]
    try:
        checkout(api, AssetFactory(asset_tag="DOWN-1"), holder)
        assert wait_until(lambda: len(receiver.log) == 1, 30), worker.log.text()[-3000:]
        allow_connections(name, False)
        try:
            terminate_other_backends()
            assert wait_until(lambda: "lost its database connection" in worker.log.text(), 15), \
                worker.log.text()[-3000:]
            time.sleep(2)  # several attempts refused
            assert worker.process.poll() is None, "the worker exited: " + worker.log.text()[-3000:]
        finally:
            allow_connections(name, True)
        checkout(api, AssetFactory(asset_tag="DOWN-2"), holder)
        assert wait_until(lambda: len(receiver.log) == 2, 45), (states(), worker.log.text()[-3000:])
        assert wait_until(lambda: [state for state, _, _ in states()] == ["done", "done"], 15), states()
        assert worker.process.poll() is None
    finally:
        worker.stop()
