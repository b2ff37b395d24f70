"""Settings of the test OpenID provider (tests/oidc_provider/serve.py): a tiny Django project in its own process whose
django-oauth-toolkit serves OpenID Connect (discovery, authorize, token, userinfo, JWKS, end-session) for the single
sign-on tests. Everything comes from the JSON file named by ``OIDC_PROVIDER_CONFIG`` (written by the test that starts
it): port, RSA key, client, users. Not part of the service."""

from __future__ import annotations

import json
import os
from pathlib import Path

CONFIG = json.loads(Path(os.environ["OIDC_PROVIDER_CONFIG"]).read_text(encoding="utf-8"))
ISSUER = f"http://127.0.0.1:{CONFIG['port']}/o"

DEBUG = False
SECRET_KEY = "test-oidc-provider-only"  # noqa: S105 - a throw-away provider on loopback
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [Path(__file__).resolve().parent / "templates"],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                       "django.contrib.auth.context_processors.auth"]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(Path(CONFIG["dir"]) / "provider.sqlite3")}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
LOGIN_URL = "/accounts/login/"
# The relying party's session cookie lives on the same host (127.0.0.1, another port): cookies ignore ports, so the
# provider's cookies get names of their own.
SESSION_COOKIE_NAME = "provider_sessionid"
CSRF_COOKIE_NAME = "provider_csrftoken"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OIDC_RSA_PRIVATE_KEY": CONFIG["rsa_private_key"],
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    "OAUTH2_VALIDATOR_CLASS": "tests.oidc_provider.validator.ClaimsValidator",
    "SCOPES": {"openid": "OpenID Connect", "email": "E-mail", "profile": "Profile"},
    "PKCE_REQUIRED": False,
}
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"console": {"class": "logging.StreamHandler"}},
           "root": {"handlers": ["console"], "level": "WARNING"}}
