"""``manage.py import_snipeit --url URL [--token-file FILE] [--dry-run] [--resume] [--merge] [--verify]
[--rate N] [--timezone ZONE]``: read a running Snipe-IT through its API v1 and write everything here (issue 31;
docs/switching-from-snipe-it.md).

The token comes from ``--token-file`` or the ``SNIPEIT_TOKEN`` environment variable, never from the command line
(where ``ps`` and shell histories would show it), and is never printed or logged.
"""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assetsvc.progress import progress_stream
from inventory.snipeit import importer, verify
from inventory.snipeit.client import SnipeitClient, SnipeitError
from inventory.snipeit.kinds import KINDS, ReadContext
from inventory.snipeit.lock import ImportLocked, import_lock
from inventory.snipeit.reading import dry_run
from inventory.snipeit.report import ImportReport


class Command(BaseCommand):
    help = ("Import everything from a running Snipe-IT through its API v1 (a super user's token in --token-file or "
            "SNIPEIT_TOKEN); --dry-run reads and reports what it would write.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", required=True, help="Snipe-IT's address, e.g. https://snipe.example.com")
        parser.add_argument("--token-file", help="a file holding a super user's API token (else SNIPEIT_TOKEN)")
        parser.add_argument("--rate", type=float, default=None,
                            help="at most this many requests per second (default: as fast as Snipe-IT allows)")
        parser.add_argument("--timezone", default="UTC",
                            help="Snipe-IT's APP_TIMEZONE: the zone its dates are in (default UTC)")
        parser.add_argument("--encrypted-fields", default="", metavar="COLUMN,...",
                            help="custom fields (db columns, e.g. _snipeit_bitlocker_2) that are encrypted in Snipe-IT "
                                 "(its API does not say; --dry-run lists the fields)")
        parser.add_argument("--unique-fields", default="", metavar="COLUMN,...",
                            help="custom fields (db columns) whose values are unique in Snipe-IT")
        parser.add_argument("--dry-run", action="store_true", help="read everything, write nothing, report")
        parser.add_argument("--resume", action="store_true", help="continue a run that stopped")
        parser.add_argument("--merge", action="store_true",
                            help="import into a database that holds data, matching by natural keys")
        parser.add_argument("--verify", action="store_true", help="compare Snipe-IT with this service, field by field")

    def handle(self, *args: object, **options: object) -> None:
        token = self._token(options.get("token_file"))  # type: ignore[arg-type]
        timezone = str(options["timezone"])
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise CommandError(f"Unknown time zone {timezone!r} (use an IANA name such as Europe/Berlin).") from None
        rate = options.get("rate")
        if rate is not None and float(rate) <= 0:  # type: ignore[arg-type]
            raise CommandError("--rate must be a positive number of requests per second.")
        try:
            client = SnipeitClient(str(options["url"]), token, rate=rate)  # type: ignore[arg-type]
        except SnipeitError as error:
            raise CommandError(str(error)) from None
        if options["verify"] and (options["dry_run"] or options["resume"] or options["merge"]):
            raise CommandError("--verify compares only: give it without --dry-run, --resume and --merge.")
        encrypted = _columns(options.get("encrypted_fields"))
        unique = _columns(options.get("unique_fields"))
        ctx = ReadContext(timezone=timezone, encrypted=encrypted, unique=unique)
        try:
            if options["verify"]:
                try:
                    checked = verify.verify(client=client, context=ctx, stdout=self.stdout,
                                            stderr=progress_stream(self))
                except KeyboardInterrupt:
                    raise CommandError("Interrupted: nothing was compared to the end.") from None
                if checked.failed:
                    raise CommandError("Snipe-IT and this service differ (listed above).")
                return
            if options["dry_run"]:
                report = ImportReport(dry_run=True)
                try:
                    dry_run(client, ctx, KINDS, report=report, stream=progress_stream(self))
                except KeyboardInterrupt:
                    self.stdout.write(report.render(), ending="")
                    raise CommandError("Interrupted: the counts above are what was read until then.") from None
                self.stdout.write(report.render(), ending="")
                self.stdout.write(f"{client.requests_sent} requests to Snipe-IT.")
                return
            try:
                with import_lock():
                    importer.run(client=client, context=ctx, resume=bool(options["resume"]),
                                 merge=bool(options["merge"]), stdout=self.stdout, stderr=progress_stream(self),
                                 options={"rate": rate, "timezone": timezone, "encrypted_fields": sorted(encrypted),
                                          "unique_fields": sorted(unique)})
            except ImportLocked as error:
                raise CommandError(str(error)) from None
            except KeyboardInterrupt:
                raise CommandError("Interrupted: run the same command with --resume to continue.") from None
            except importer.ImportRefused as error:
                raise CommandError(str(error)) from None
        except SnipeitError as error:
            raise CommandError(str(error)) from None
        finally:
            client.close()

    def _token(self, token_file: str | None) -> str:
        if token_file:
            try:
                token = Path(token_file).read_text(encoding="utf-8").strip()
            except OSError as error:
                raise CommandError(f"Cannot read --token-file {token_file}: {error.strerror}.") from None
            if not token:
                raise CommandError(f"--token-file {token_file} is empty.")
            return token
        token = os.environ.get("SNIPEIT_TOKEN", "").strip()
        if not token:
            raise CommandError("Give a Snipe-IT API token: --token-file FILE or the SNIPEIT_TOKEN variable.")
        return token


def _columns(value: object) -> frozenset[str]:
    """``--encrypted-fields _snipeit_a_1, _snipeit_b_2`` as a set of column names."""
    return frozenset(part.strip() for part in str(value or "").split(",") if part.strip())
