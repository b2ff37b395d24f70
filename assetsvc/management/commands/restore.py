"""``manage.py restore FILE [--force]``: bring a backup archive back into an empty database (docs/operations.md,
"Restore"). The archive is checked in full first (manifest, checksums, vendor, migrations); a database with any table
is refused unless ``--force``, which drops every table first and overwrites existing uploaded files."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from assetsvc.backups import BackupError, backup_restore, find_backup


class Command(BaseCommand):
    help = "Restore a backup archive (a path, or a name in BACKUP_DIR) into an empty database."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="the archive: a path, or the name of one in BACKUP_DIR")
        parser.add_argument("--force", action="store_true",
                            help="drop every table of a non-empty database first and overwrite existing files")

    def handle(self, *args, file: str, force: bool = False, **options) -> None:
        path = Path(file)
        if not path.exists() and (listed := find_backup(file)) is not None:
            path = listed.path
        if not path.is_file():
            raise CommandError(f"no such backup: {file}")
        try:
            manifest = backup_restore(path, force=force)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"restored {path.name}: backup of {manifest['created_at']} (version "
                          f"{manifest['app_version']}, {len(manifest['files'])} members). Run `manage.py migrate` "
                          "if this version of the service has newer migrations.")
