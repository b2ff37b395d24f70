"""``manage.py prune_deliveries [--older-than DAYS]``: retention of the delivery log and of finished tasks.

Deletes delivery-log rows (``WebhookDelivery``) created more than DAYS days ago and finished task rows
(django-tasks-db's ``DBTaskResult``, successful or failed) that finished more than DAYS days ago. Queued and running
tasks are never deleted. DAYS defaults to ``WEBHOOK_LOG_RETENTION_DAYS`` (90). Before pruning, ``in_progress`` rows
whose worker stopped are recorded ``interrupted``. Meant for cron, e.g. daily (README, Operations).

Rows go in batches of ``BATCH`` (each its own short transaction, so a large first pruning never holds one long lock
on the tables the worker writes), with a progress bar on a terminal and a line per 5,000 rows in logs
(:mod:`assetsvc.progress`; ``--no-progress`` silences both).
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from assetsvc.conf import app_settings
from assetsvc.progress import Progress, progress_stream
from notifications.delivery import mark_interrupted
from notifications.models import WebhookDelivery

#: Rows deleted per transaction.
BATCH = 2000


def _delete_in_batches(queryset, progress: Progress) -> int:
    deleted = 0
    while True:
        with transaction.atomic():
            ids = list(queryset.order_by().values_list("pk", flat=True)[:BATCH])
            if not ids:
                return deleted
            queryset.model._default_manager.filter(pk__in=ids).delete()
        deleted += len(ids)
        progress.advance(len(ids))


def prune(days: int, progress_to=None) -> tuple[int, int]:
    """Delete log rows and finished task rows older than ``days`` days; ``(log rows, task rows)`` deleted.
    ``progress_to``: the stream of the progress bar or lines (None: silent)."""
    cutoff = timezone.now() - timedelta(days=days)
    mark_interrupted()
    log_rows = WebhookDelivery.objects.filter(created_at__lt=cutoff)
    task_rows = DBTaskResult.objects.finished().filter(finished_at__lt=cutoff)
    progress = Progress(log_rows.count() + task_rows.count(), verb="deleted", stream=progress_to)
    try:
        return _delete_in_batches(log_rows, progress), _delete_in_batches(task_rows, progress)
    finally:
        progress.close()


class Command(BaseCommand):
    help = "Delete webhook delivery-log rows and finished notification tasks older than --older-than days."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--older-than", type=int, default=None, metavar="DAYS",
                            help="Age in days (default: the WEBHOOK_LOG_RETENTION_DAYS setting, "
                                 f"now {app_settings.WEBHOOK_LOG_RETENTION_DAYS}).")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")

    def handle(self, *args, older_than: int | None, no_progress: bool = False, **options) -> None:
        days = app_settings.WEBHOOK_LOG_RETENTION_DAYS if older_than is None else older_than
        if days < 1:
            raise CommandError("--older-than must be at least 1 (day).")
        log_rows, task_rows = prune(days, None if no_progress else progress_stream(self))
        self.stdout.write(f"Deleted {log_rows} delivery-log row(s) and {task_rows} finished task(s) older than "
                          f"{days} day(s).")
