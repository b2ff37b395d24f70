"""``manage.py send_test_mail ADDRESS``: send a test mail now through the configured server and report the outcome.

Exit status 0 when the server accepted it; otherwise the reason goes to stderr and the exit status is 1 (also
without ``EMAIL_HOST``: the mail is then only written to the log).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from notifications.mail import send_test_mail


class Command(BaseCommand):
    help = "Send a test mail to ADDRESS through the configured SMTP server and report success or the reason."

    def add_arguments(self, parser) -> None:
        parser.add_argument("address", help="Where the test mail goes.")

    def handle(self, *args, **options) -> None:
        address = options["address"].strip()
        try:
            validate_email(address)
        except ValidationError as exc:
            raise CommandError(f"Not an e-mail address: {address}") from exc
        ok, text = send_test_mail(address)
        if not ok:
            raise CommandError(text)
        self.stdout.write(text)
