"""``manage.py reencrypt_custom_values``: after a key rotation (a new key put first in ``FIELD_ENCRYPTION_KEY``,
the old ones kept after it), encrypt every encrypted custom value, the site settings' webhook secret (issue 25) and
the authenticator seeds of two-factor sign-in (issue 30) with the new key; then the old keys can go."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.twofactor.services import totp_keys_reencrypt
from assetsvc.site import site_settings_reencrypt_secret
from inventory.custom_values import reencrypt_all


class Command(BaseCommand):
    help = ("Encrypt every encrypted custom field value, the webhook secret and the authenticator seeds again with the "
            "first key of FIELD_ENCRYPTION_KEY.")

    def handle(self, *args, **options):
        with transaction.atomic():
            rewritten, unreadable = reencrypt_all()
            secret_rewritten, secret_unreadable = site_settings_reencrypt_secret()
            seeds_rewritten, seeds_unreadable = totp_keys_reencrypt()
        self.stdout.write(f"{rewritten} value(s) encrypted with the current key.")
        if unreadable:
            self.stderr.write(f"{unreadable} value(s) could not be decrypted with any configured key and were left "
                              "unchanged: add the key they were written with to FIELD_ENCRYPTION_KEY and run again.")
        if secret_rewritten:
            self.stdout.write("The webhook secret was encrypted with the current key.")
        if secret_unreadable:
            self.stderr.write("The webhook secret could not be decrypted with any configured key and was left "
                              "unchanged: add the key it was written with to FIELD_ENCRYPTION_KEY and run again, or "
                              "set the secret again (manage.py site_settings set webhook_secret).")
        self.stdout.write(f"{seeds_rewritten} authenticator seed(s) encrypted with the current key.")
        if seeds_unreadable:
            self.stderr.write(f"{seeds_unreadable} authenticator seed(s) could not be decrypted with any configured "
                              "key and were left unchanged: add the key they were written with to FIELD_ENCRYPTION_KEY "
                              "and run again, or reset those people's two-factor sign-in so they enrol again.")
