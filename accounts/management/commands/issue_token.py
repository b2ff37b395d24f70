"""``manage.py issue_token USERNAME [--name NAME]``: prints only the new token."""

from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from accounts.services import DEFAULT_TOKEN_NAME, personal_token_issue


class Command(BaseCommand):
    help = "Issue a personal access token for a user and print only the token."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default=DEFAULT_TOKEN_NAME)

    def handle(self, *args, username: str, name: str, **options):
        if len(name) > 255:
            raise CommandError("The token name may not be greater than 255 characters.")
        user = User.objects.filter(username__iexact=username, deleted_at__isnull=True).first()
        if user is None:
            raise CommandError(f"No user named {username!r}.")
        if not user.is_active:
            raise CommandError(f"User {username!r} is deactivated.")
        _record, raw = personal_token_issue(user=user, name=name)
        self.stdout.write(raw)
