"""``manage.py prune_csv_uploads``: delete the admin's kept import uploads whose preview token has expired (issue 25).

Uploads and confirmations already do this; the command covers an admin nobody uses for a while (cron, e.g. hourly;
docs/import-export.md)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from inventory.admin.transfer import sweep_expired_uploads


class Command(BaseCommand):
    help = "Delete kept CSV import uploads whose preview has expired."

    def handle(self, *args, **options):
        deleted = sweep_expired_uploads()
        self.stdout.write(f"Deleted {deleted} expired import uploads.")
