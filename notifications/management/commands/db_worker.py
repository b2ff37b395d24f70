"""``manage.py db_worker``: django-tasks-db's task worker, plus a sweeper thread that every few seconds puts the
delivery tasks of stopped workers back in the queue and turns stale attempts ``interrupted``
(:func:`notifications.delivery.sweep`). The library's worker never runs a claimed task again, so without the sweep a
worker killed with SIGKILL (OOM killer, a crashed host, ``kill -9``) would leave its task ``RUNNING`` for ever.

It also survives its database going away (issue 25): the library's worker stops for good on any database error
outside a "database is locked", so a PostgreSQL restart or a dropped connection during a delivery used to leave
notifications queued with nobody to post them. Here the worker closes the broken connection, waits (1 s, doubling up
to :data:`RECONNECT_MAX_DELAY`) and goes on; a task whose end could not be written stays ``RUNNING`` until a sweep
puts it back in the queue, and its run again posts nothing twice (:func:`notifications.delivery.deliver_queued`).

It replaces the library's command of the same name because ``notifications`` is listed before ``django_tasks_db``
in ``INSTALLED_APPS``; options and behaviour are otherwise the library's.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from django.core.management.base import CommandError
from django.db import DatabaseError, connection, connections
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker as library

from notifications.delivery import sweep

logger = logging.getLogger("notifications.delivery")

#: Seconds between two sweeps of a worker.
SWEEP_INTERVAL = 2.0
#: Longest wait, in seconds, between two attempts to reach a database that went away.
RECONNECT_MAX_DELAY = 30.0


def sweep_forever(interval: float = SWEEP_INTERVAL) -> None:
    while True:
        try:
            sweep()
        except Exception:  # the database is away: try again next time; the worker itself goes on
            logger.warning("Could not sweep the notification tasks of stopped workers", exc_info=True)
        finally:
            connections.close_all()  # this thread's connections only
        time.sleep(interval)


class ResilientWorker(library.Worker):
    """The library's worker, which reconnects instead of exiting when the database goes away."""

    def run(self) -> None:
        delay = 1.0
        while self.running:
            started = time.monotonic()
            try:
                super().run()
                return  # --batch or --max-tasks: done
            except DatabaseError:
                if time.monotonic() - started > RECONNECT_MAX_DELAY:
                    delay = 1.0  # it worked for a while: a new outage starts with a short wait
                logger.warning("The task worker lost its database connection; trying again in %.0f s", delay,
                               exc_info=True)
            try:
                connection.close()  # the broken one: the next query opens a fresh connection
            except DatabaseError:
                pass
            self.startup_delay = False
            time.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX_DELAY)


class Command(library.Command):
    help = library.Command.help + " (webhook notifications; tasks of stopped workers are queued again)"

    def handle(self, *args: Any, verbosity: int, queue_name: str, interval: float, batch: bool, backend_name: str,
               startup_delay: bool, reload: bool, max_tasks: int | None, worker_id: str, exclude_queues: str,
               **options: Any) -> None:
        """The library's ``handle()`` with :class:`ResilientWorker` and the sweeper thread."""
        self.configure_logging(verbosity)
        if reload and batch:
            library.logger.warning("Warning: --reload and --batch cannot be specified together. Disabling autoreload.")
            reload = False
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = ResilientWorker(queue_names=queue_names, interval=interval, batch=batch, backend_name=backend_name,
                                 startup_delay=startup_delay, max_tasks=max_tasks, worker_id=worker_id,
                                 excluded_queue_names=excluded_queue_names)
        if batch:
            sweep()
        else:
            threading.Thread(target=sweep_forever, name="notification-sweeper", daemon=True).start()
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # only the child process
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
