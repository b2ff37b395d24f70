"""``manage.py db_worker``: django-tasks-db's task worker, plus a sweeper thread that every few seconds puts the
delivery tasks of stopped workers back in the queue and turns stale attempts ``interrupted``
(:func:`notifications.delivery.sweep`). The library's worker never runs a claimed task again, so without the sweep a
worker killed with SIGKILL (OOM killer, a crashed host, ``kill -9``) would leave its task ``RUNNING`` for ever.

It replaces the library's command of the same name because ``notifications`` is listed before ``django_tasks_db``
in ``INSTALLED_APPS``; options and behaviour are otherwise the library's.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.db import connections
from django_tasks_db.management.commands.db_worker import Command as LibraryCommand

from notifications.delivery import sweep

logger = logging.getLogger("notifications.delivery")

#: Seconds between two sweeps of a worker.
SWEEP_INTERVAL = 2.0


def sweep_forever(interval: float = SWEEP_INTERVAL) -> None:
    while True:
        try:
            sweep()
        except Exception:  # the database is away: try again next time; the worker itself goes on
            logger.warning("Could not sweep the notification tasks of stopped workers", exc_info=True)
        finally:
            connections.close_all()  # this thread's connections only
        time.sleep(interval)


class Command(LibraryCommand):
    help = LibraryCommand.help + " (webhook notifications; tasks of stopped workers are queued again)"

    def handle(self, *args: Any, **options: Any) -> None:
        if options.get("batch"):
            sweep()
        else:
            threading.Thread(target=sweep_forever, name="notification-sweeper", daemon=True).start()
        super().handle(*args, **options)
