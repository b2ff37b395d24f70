"""The real worker command: a notification queued (and committed) by one process into a file SQLite database is
delivered by a separate ``manage.py db_worker`` process to a real local receiver, once, and logged ``done``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.notifications.conftest import HOOK_PATH

ROOT = Path(__file__).resolve().parents[2]

ENQUEUE = """
import django
django.setup()
from django.db import transaction
from notifications import delivery
from notifications.config import get_webhook_config
with transaction.atomic():
    delivery.schedule("asset.checked_out", get_webhook_config(), "Asset LIVE-1 was checked out")
"""


def manage(env, *args, **kwargs):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, timeout=120,
                          capture_output=True, **kwargs)


@pytest.mark.live
def test_the_db_worker_command_delivers_a_queued_notification_once(receiver, tmp_path):
    database = tmp_path / "live.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "DJANGO_SETTINGS_MODULE": "assetsvc.settings",
           "SECRET_KEY": "live-test-only", "WEBHOOK_PLATFORM": "slack", "WEBHOOK_CHANNEL": "#it",
           "WEBHOOK_ENDPOINT": receiver.url_for(HOOK_PATH), "WEBHOOK_TIMEOUT": "5"}
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    manage(env, "migrate", "--noinput")
    subprocess.run([sys.executable, "-c", ENQUEUE], cwd=ROOT, env=env, check=True, timeout=60, capture_output=True)
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT status FROM django_tasks_database_dbtaskresult").fetchall() == [("READY",)]
    assert receiver.log == []  # queued, durable, nobody has posted it

    worker = subprocess.Popen([sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2",
                               "--no-startup-delay"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not receiver.log:
            time.sleep(0.1)
        time.sleep(1)  # a second poll or more: still exactly one POST
    finally:
        worker.terminate()
        _, stderr = worker.communicate(timeout=15)
    assert len(receiver.log) == 1, stderr.decode()[-2000:]
    assert receiver.log[0][0].get_json()["text"] == "Asset LIVE-1 was checked out"
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT status FROM django_tasks_database_dbtaskresult").fetchall() == [("SUCCESSFUL",)]
        assert db.execute("SELECT state, success, status_code FROM notifications_webhookdelivery").fetchall() == [
            ("done", 1, 200)]
    assert worker.returncode == 0  # SIGTERM: a graceful stop between tasks
