"""``manage.py prune_deliveries [--older-than DAYS]``: retention of the delivery log and of finished tasks.

Deletes delivery-log rows (``WebhookDelivery``) created more than DAYS days ago and finished task rows
(django-tasks-db's ``DBTaskResult``, successful or failed) that finished more than DAYS days ago. Queued and running
tasks are never deleted. DAYS defaults to ``WEBHOOK_LOG_RETENTION_DAYS`` (90). Before pruning, ``in_progress`` rows
whose worker stopped are recorded ``interrupted``. Meant for cron, e.g. daily (README, Operations).
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from assetsvc.conf import app_settings
from notifications.delivery import mark_interrupted
from notifications.models import WebhookDelivery


def prune(days: int) -> tuple[int, int]:
    """Delete log rows and finished task rows older than ``days`` days; ``(log rows, task rows)`` deleted."""
    cutoff = timezone.now() - timedelta(days=days)
    mark_interrupted()
    with transaction.atomic():
        log_rows, _ = WebhookDelivery.objects.filter(created_at__lt=cutoff).delete()
        task_rows, _ = DBTaskResult.objects.finished().filter(finished_at__lt=cutoff).delete()
    return log_rows, task_rows


class Command(BaseCommand):
    help = "Delete webhook delivery-log rows and finished notification tasks older than --older-than days."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--older-than", type=int, default=None, metavar="DAYS",
                            help="Age in days (default: the WEBHOOK_LOG_RETENTION_DAYS setting, "
                                 f"now {app_settings.WEBHOOK_LOG_RETENTION_DAYS}).")

    def handle(self, *args, older_than: int | None, **options) -> None:
        days = app_settings.WEBHOOK_LOG_RETENTION_DAYS if older_than is None else older_than
        if days < 1:
            raise CommandError("--older-than must be at least 1 (day).")
        log_rows, task_rows = prune(days)
        self.stdout.write(f"Deleted {log_rows} delivery-log row(s) and {task_rows} finished task(s) older than "
                          f"{days} day(s).")
