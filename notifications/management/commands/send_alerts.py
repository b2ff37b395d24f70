"""``manage.py send_alerts [--date YYYY-MM-DD] [--dry-run]``: queue today's alert digests and reminders (issue 29).

Run it daily from cron or a systemd timer (docs/mail.md "Alerts and reminders"); running it more often is safe: a
second run the same day queues nothing new. The mails go out through the mail queue (the task worker sends them).
Exit status 1 when a mail could not be queued (the others are queued all the same).
"""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications.alerts import send_alerts


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"--date: {value!r} is not a date (YYYY-MM-DD).") from exc


class Command(BaseCommand):
    help = ("Queue the daily alert digest to the site's alert_email addresses and the reminders of overdue check-ins "
            "and unaccepted items to their holders.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--date", dest="day", metavar="YYYY-MM-DD",
                            help="Treat this day as today (catching up a missed day; tests).")
        parser.add_argument("--dry-run", action="store_true", help="Print what would be sent; queue nothing.")

    def handle(self, *args, **options) -> None:
        today = _day(options["day"]) if options["day"] else None
        dry_run = options["dry_run"]
        summary = send_alerts(today=today, dry_run=dry_run)
        for kind, address, subject in summary.planned:
            self.stdout.write(f"Would send {kind} to {address}: {subject}")
        verb = "to queue" if dry_run else "queued"
        if summary.digests_off:
            self.stdout.write(f"Digests: none ({summary.digests_off}).")
        else:
            planned = sum(1 for kind, _a, _s in summary.planned if kind == "digest")
            self.stdout.write(f"Digests {verb}: {planned if dry_run else summary.digests_queued}; already sent "
                              f"today: {summary.digests_already_sent}; nothing to report: {summary.digests_empty}.")
        planned = sum(1 for kind, _a, _s in summary.planned if kind == "reminder")
        self.stdout.write(f"Reminders {verb}: {planned if dry_run else summary.reminders_queued}; skipped (reminded "
                          f"within the interval): {summary.reminders_recent}; already sent today: "
                          f"{summary.reminders_already_sent}.")
        if summary.failures:
            for failure in summary.failures:
                self.stderr.write(f"Not queued: {failure}")
            raise CommandError(f"{len(summary.failures)} mail(s) could not be queued.")
