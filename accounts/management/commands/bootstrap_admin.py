"""``manage.py bootstrap_admin``: what ``make run`` needs on a fresh machine.

Creates the super user ``admin`` when no user exists (password from ``ADMIN_PASSWORD``, else generated and
printed once). It prints an API token for ``admin`` only when the admin has no live token named "make run" (the first
start, or after that token was revoked or expired); later starts say how to get another instead of minting a new
long-lived token every time.
"""

from __future__ import annotations

import os
import secrets

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User
from accounts.services import personal_token_issue, personal_tokens_active

TOKEN_NAME = "make run"


class Command(BaseCommand):
    help = ("Create the first super user 'admin' if there is no user; print an API token for it the first time "
            "(when it has no live 'make run' token).")

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    @transaction.atomic
    def handle(self, *args, username: str, **options):
        if not User.objects.exists():
            password = os.environ.get("ADMIN_PASSWORD") or secrets.token_urlsafe(12)
            User.objects.create_superuser(username, f"{username}@example.com", password, first_name="Admin")
            if os.environ.get("ADMIN_PASSWORD"):
                self.stdout.write(f"Created super user '{username}' with the password from ADMIN_PASSWORD.")
            else:
                self.stdout.write(f"Created super user '{username}' with password: {password}")
                self.stdout.write("(shown once; change it in the admin or with manage.py changepassword)")
        user = User.objects.filter(username__iexact=username, deleted_at__isnull=True).first()
        if user is None:
            self.stdout.write(f"No user '{username}': create one with manage.py createsuperuser, then "
                              "manage.py issue_token USERNAME.")
            return
        host, port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
        if personal_tokens_active(user=user).filter(name=TOKEN_NAME).exists():
            self.stdout.write(f"API token for {user.username}: the one printed by the first start (not shown again). "
                              f"Another: .venv/bin/python manage.py issue_token {user.username}, or the admin's "
                              f"Personal access tokens page (http://{host}:{port}/admin/).")
            return
        _record, raw = personal_token_issue(user=user, name=TOKEN_NAME)
        self.stdout.write("")
        self.stdout.write(f"API token for {user.username} (shown once):")
        self.stdout.write(raw)
        self.stdout.write("")
        self.stdout.write(f'Try: curl -H "Authorization: Bearer {raw}" http://{host}:{port}/api/v1/users/me')
        self.stdout.write(f"API docs (Authorize with the token): http://{host}:{port}/api/docs")
