"""Webhook test fixtures: a REAL local receiver (pytest-httpserver, threaded) and the site's webhook settings.

Notifications are queued as django-tasks task rows in the database and delivered by a worker. Tests run that worker
in-process (:func:`wait_for_idle`, the library's batch worker in the test's own thread and connection), so a delivery
happens exactly where the test says, after the commits it needs; tests that deliver use ``transactional_db`` (the
``webhook`` fixture requests it) because only committed tasks are run. ``test_worker_live`` runs the real
``db_worker`` command as a separate process.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from pytest_httpserver import HTTPServer

from assetsvc.models import SiteSettings
from notifications.delivery import run_queued, running_lock
from tests.factories import UserFactory

HOOK_PATH = "/hook"


def wait_for_idle(timeout: float = 10.0) -> bool:
    """Deliver every committed queued notification now, in this thread, as a worker process would; ``True``.

    Inside a transaction nothing of it is committed yet, so a worker would find nothing: nothing runs. (``timeout``
    is kept from the in-process queue's days: a test's deliveries are bounded by ``WEBHOOK_TIMEOUT`` each.)"""
    if not connection.in_atomic_block:
        run_queued()
    return True


@pytest.fixture(scope="session")
def _receiver_server():
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


@pytest.fixture
def receiver(_receiver_server):
    """The local receiver, emptied before and after each test."""
    _receiver_server.clear()
    yield _receiver_server
    _receiver_server.clear()


@pytest.fixture
def slow_receiver():
    """A receiver of its own that answers only after ``WEBHOOK_TIMEOUT`` (1 s here) has passed."""
    release = threading.Event()
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)

    def handler(request):
        from werkzeug import Response

        release.wait(5)
        return Response('{"ok": true}', status=200, content_type="application/json")

    server.expect_request(HOOK_PATH, method="POST").respond_with_handler(handler)
    server.start()
    yield server
    release.set()
    server.stop()


@pytest.fixture
def gated_receiver():
    """``(server, gate)``: a receiver that answers 200 only once ``gate.set()`` was called (or after 30 s)."""
    gate = threading.Event()
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)

    def handler(request):
        from werkzeug import Response

        gate.wait(30)
        return Response('{"ok": true}', status=200, content_type="application/json")

    server.expect_request(HOOK_PATH, method="POST").respond_with_handler(handler)
    server.start()
    yield server, gate
    gate.set()
    server.stop()


@pytest.fixture
def closed_port_url() -> str:
    """An http URL on a local port nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{HOOK_PATH}"


@pytest.fixture
def webhook(transactional_db, settings):
    """``configure(platform, endpoint, channel, botname)`` writes the site settings; the environment overrides are
    cleared and the timeout is 1 s. At teardown it runs what is still queued, so nothing is left for the next test."""
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_ENDPOINT": "", "WEBHOOK_CHANNEL": "", "WEBHOOK_BOTNAME": "",
                         "WEBHOOK_PLATFORM": "", "WEBHOOK_TIMEOUT": 1}

    def configure(platform: str = "slack", endpoint: str = "", channel: str = "#it", botname: str = "AssetBot"):
        site = SiteSettings.load()
        site.webhook_platform = platform
        site.webhook_endpoint = endpoint
        site.webhook_channel = channel
        site.webhook_botname = botname
        site.save()
        return site

    yield configure
    assert wait_for_idle(15)


@pytest.fixture
def admin_user(transactional_db):
    return UserFactory(username="admin", first_name="Ada", last_name="Admin", superuser=True)


def posted_bodies(server) -> list[dict]:
    return [request.get_json() for request, _response in server.log]


def serve_platform(webhook, receiver, platform: str) -> str:
    """Point the site's webhook of ``platform`` at the local receiver (a workflows URL for microsoft, a channel for
    the channel-based kinds), answering 200; returns the endpoint."""
    path = HOOK_PATH + ("/workflows/1" if platform == "microsoft" else "")
    endpoint = receiver.url_for(path)
    webhook(platform, endpoint, channel="#it" if platform in {"slack", "general"} else "")
    receiver.expect_request(path, method="POST").respond_with_json({"ok": True})
    return endpoint


@contextmanager
def live_worker_holding(task_id: str) -> Iterator[None]:
    """A live worker's session holding ``task_id``'s running lock (PostgreSQL) while the block runs; on leaving it,
    the session lets go and closes, as a worker that died."""
    holding, release = threading.Event(), threading.Event()

    def worker() -> None:
        try:
            with running_lock(task_id):
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert holding.wait(10)
        yield
    finally:
        release.set()
        thread.join(10)
