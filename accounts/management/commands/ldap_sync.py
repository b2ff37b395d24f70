"""``manage.py ldap_sync [--dry-run] [--json]``: create, update and deactivate users from the directory
(accounts.ldap.services.ldap_sync; docs/directory.md has the cron line)."""

import json as _json

from django.core.management.base import BaseCommand, CommandError

from accounts.ldap.directory import LDAPException
from accounts.ldap.services import DirectoryNotConfiguredError, ldap_sync


class Command(BaseCommand):
    help = "Create, update and deactivate users from LDAP / Active Directory (LDAP_* settings)."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Report what would change; write nothing.")
        parser.add_argument("--json", action="store_true", help="Print the whole report as JSON.")

    def handle(self, *args, dry_run: bool, json: bool, **options):
        try:
            report = ldap_sync(dry_run=dry_run)
        except DirectoryNotConfiguredError as exc:
            raise CommandError(f"{exc.message} Set LDAP_SERVER_URI (docs/directory.md).") from exc
        except LDAPException as exc:
            raise CommandError(f"The directory refused or could not be reached: {type(exc).__name__}") from exc
        if json:
            self.stdout.write(_json.dumps(report.as_dict(), indent=2))
            return
        counts = report.counts()
        prefix = "Dry run, nothing written: " if dry_run else ""
        self.stdout.write(prefix + ", ".join(f"{name} {count}" for name, count in counts.items()))
        for entry in report.skipped:
            self.stdout.write(f"  skipped {entry['username']}: {entry['reason']}")
        for entry in report.unmatched:
            self.stdout.write(f"  {entry['username']}: {entry['field']} {entry['value']!r} left empty "
                              f"({entry['reason']})")

