"""What the import and export commands share: the acting user, the progress stream, the summary (issue 14)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from assetsvc.progress import Progress, progress_stream
from assetsvc.request_meta import reset_request_meta, set_request_meta
from inventory.transfer.columns import CsvFileError
from inventory.transfer.export import FORMATS, export_queryset, write_export
from inventory.transfer.import_assets import import_csv

#: The ``action_source`` of the action-log rows an import writes.
IMPORT_SOURCE = "importer"


def acting_user(username: str | None) -> User:
    """The user the command acts as (created by, the log's actor, company separation): ``--user``, else the first
    active super user (as Snipe-IT's ``snipeit:import`` defaults to user 1)."""
    people = User.objects.filter(deleted_at__isnull=True, is_active=True)
    if username:
        user = people.filter(username__iexact=username).first()
    else:  # the super user flag lives in the permissions map
        user = next((person for person in people.order_by("pk").iterator() if person.is_superuser), None)
    if user is None:
        raise CommandError(f"No active user {username!r}." if username
                           else "No active super user exists: name the acting user with --user.")
    return user


class ImportCommand(BaseCommand):
    """``import_<kind>s FILE.csv [--update] [--dry-run] [--user NAME]``."""

    kind: str

    def add_arguments(self, parser):
        parser.add_argument("file", help="CSV file with Snipe-IT's importer column names (docs/import-export.md)")
        parser.add_argument("--update", action="store_true", help="update existing items instead of skipping them")
        parser.add_argument("--dry-run", action="store_true", help="report what would happen; write nothing")
        parser.add_argument("--user", help="act as this username (default: the first super user)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")

    def handle(self, *args, **options):
        actor = acting_user(options["user"])
        token = set_request_meta(action_source=IMPORT_SOURCE, user_agent="manage.py")
        try:
            with open(options["file"], "rb") as stream:
                result = import_csv(self.kind, stream, actor=actor, update=options["update"],
                                    dry_run=options["dry_run"],
                                    progress_stream=None if options["no_progress"] else progress_stream(self))
        except OSError as exc:
            raise CommandError(f"Cannot read {options['file']}: {exc.strerror}.") from None
        except CsvFileError as exc:
            raise CommandError(str(exc)) from None
        finally:
            reset_request_meta(token)
        if result.ignored_columns:
            self.stdout.write("Ignored columns: " + ", ".join(result.ignored_columns))
        for note in result.notes:
            self.stdout.write(note)
        for error in result.errors:
            self.stderr.write(error)
        self.stdout.write(("Dry run, nothing written. " if result.dry_run else "") + result.summary())


class ExportCommand(BaseCommand):
    """``export_<kind>s [--format csv|xlsx] [--output FILE] [--company ID] [--user NAME]``."""

    kind: str

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=FORMATS, default="csv")
        parser.add_argument("--output", help="file to write (default: standard output, CSV only)")
        parser.add_argument("--company", type=int, help="only this company's items (its id)")
        parser.add_argument("--user", help="only what this user may see (company separation)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")

    def handle(self, *args, **options):
        fmt, path = options["format"], options["output"]
        if fmt == "xlsx" and not path:
            raise CommandError("XLSX needs --output FILE.")
        user = acting_user(options["user"]) if options["user"] else None
        queryset = export_queryset(self.kind, user=user, company_id=options["company"])
        progress = Progress(queryset.count(), verb="exported",
                            stream=None if options["no_progress"] else progress_stream(self))
        try:
            if path is None:
                count = write_export(self.kind, queryset, self.stdout, fmt=fmt, progress=progress, user=user)
            else:
                with open(path, "w" if fmt == "csv" else "wb", **({"newline": "", "encoding": "utf-8"}
                                                               if fmt == "csv" else {})) as output:
                    count = write_export(self.kind, queryset, output, fmt=fmt, progress=progress, user=user)
        except OSError as exc:
            raise CommandError(f"Cannot write {path}: {exc.strerror}.") from None
        finally:
            progress.close()
        if path is not None:
            self.stderr.write(f"Exported {count} rows to {path}.")
