"""``manage.py backup [--keep N]``: one archive of the database and the uploaded files into ``BACKUP_DIR``, then the
oldest beyond ``BACKUP_KEEP`` deleted (docs/operations.md, "Backups"; run it from cron)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from assetsvc.backups import BackupError, backup_create


class Command(BaseCommand):
    help = "Write a backup archive (database, uploaded files, manifest) into BACKUP_DIR and prune old ones."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--keep", type=int, default=None,
                            help="archives to keep after this one is written (default: BACKUP_KEEP)")

    def handle(self, *args, keep: int | None = None, **options) -> None:
        if keep is not None and keep < 1:
            raise CommandError("--keep must be at least 1")
        try:
            backup = backup_create(keep=keep)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(str(backup.path))
