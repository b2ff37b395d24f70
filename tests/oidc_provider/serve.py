"""Run the test OpenID provider: ``python -m tests.oidc_provider.serve CONFIG.json``.

Creates its SQLite database in the config's ``dir``, one confidential client (``client_id``, ``client_secret``,
``redirect_uris``, RS256 ID tokens, no consent screen) and the config's users with their passwords, then serves on
127.0.0.1:``port`` with Django's development server (threaded, no reloader) until it is terminated. The RSA key is
in the config (the starter generates it with cryptography)."""

from __future__ import annotations

import os
import sys


def main(config_path: str) -> None:
    os.environ["OIDC_PROVIDER_CONFIG"] = config_path
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import Application

    config = settings.CONFIG
    call_command("migrate", verbosity=0, interactive=False)
    Application.objects.create(
        name="asset service", client_id=config["client_id"], client_secret=config["client_secret"],
        client_type=Application.CLIENT_CONFIDENTIAL, authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(config["redirect_uris"]),
        post_logout_redirect_uris=" ".join(config.get("post_logout_redirect_uris", [])),
        algorithm=Application.RS256_ALGORITHM, skip_authorization=True)
    for user in config["users"]:
        get_user_model().objects.create_user(user["username"], password=user["password"])
    call_command("runserver", f"127.0.0.1:{config['port']}", use_reloader=False, use_threading=True,
                 skip_checks=True)


if __name__ == "__main__":
    main(sys.argv[1])
