"""Shared fixtures: users, companies, and API clients that authenticate with real personal access tokens."""

from __future__ import annotations

import os
import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import personal_token_issue
from assetsvc.models import SiteSettings
from tests.factories import CompanyFactory, UserFactory

ON_POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def pytest_collection_modifyitems(config, items):
    if ON_POSTGRES:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL: run with DATABASE_URL (CI does)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _fast_and_isolated(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # A fresh key prefix per test: rate-limit counters never leak between tests (nor between parallel runs
    # sharing one Redis), without flushing a Redis database that others may use.
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    caches["default"]["LOCATION"] = caches["default"].get("LOCATION") or "test"
    settings.CACHES = caches
    yield


class TokenClient(APIClient):
    """An APIClient that sends ``Authorization: Bearer <token>`` of a real personal access token."""

    def __init__(self, user=None, **kwargs):
        super().__init__(**kwargs)
        self.user = user
        self.token = None
        if user is not None:
            _record, self.token = personal_token_issue(user=user, name="test")
            self.credentials(HTTP_AUTHORIZATION=f"Bearer {self.token}", HTTP_ACCEPT="application/json")


@pytest.fixture
def api_client() -> APIClient:
    """Anonymous client."""
    return APIClient()


@pytest.fixture
def make_client(db):
    def _make(user=None, **kwargs) -> TokenClient:
        return TokenClient(user=user, **kwargs)

    return _make


@pytest.fixture
def company(db):
    return CompanyFactory(name="Company A")


@pytest.fixture
def other_company(db):
    return CompanyFactory(name="Company B")


@pytest.fixture
def superuser(db):
    return UserFactory(username="admin", superuser=True)


@pytest.fixture
def user(db):
    """A user without any permission."""
    return UserFactory()


@pytest.fixture
def token_client(superuser, make_client) -> TokenClient:
    """A super user's client."""
    return make_client(superuser)


@pytest.fixture
def signed_in(db):
    """``signed_in(user)``: a Django test client signed in to the admin as ``user`` (a session, no token)."""

    def _sign_in(user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return _sign_in


@pytest.fixture
def super_client(superuser, signed_in) -> Client:
    """The admin, signed in as the super user."""
    return signed_in(superuser)


@pytest.fixture
def site_settings(db) -> SiteSettings:
    return SiteSettings.load()


@pytest.fixture
def fmcs_on(site_settings) -> SiteSettings:
    """Full multiple company support switched on."""
    site_settings.full_multiple_companies_support = True
    site_settings.save()
    return site_settings


@pytest.fixture(scope="session")
def mail_certificates(tmp_path_factory):
    """The test SMTP server's CA, certificate and key (tests/mailserver.py), made once per session."""
    from tests.mailserver import make_certificates

    return make_certificates(tmp_path_factory.mktemp("mail-tls"))


@pytest.fixture
def smtp_server(mail_certificates, settings):
    """A real SMTP server (aiosmtpd: STARTTLS, AUTH, a CA of its own) started for this test, with the settings
    pointing at it (``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_USE_TLS``, the login, ``EMAIL_SSL_CAFILE``). Mails are
    queued in the database: send them with :func:`run_mail_queue` (a worker's batch run in this thread), which
    sends only committed mails, so tests that send use ``transactional_db``."""
    from tests.mailserver import MailServer

    server = MailServer(mail_certificates).start()
    for name, value in server.settings().items():
        setattr(settings, name, value)
    settings.MAIL_RETRY_SECONDS = 0
    yield server
    server.stop()


def run_mail_queue() -> None:
    """Run every committed queued task (mails and webhooks) now, in this thread, as a worker process would."""
    from notifications.delivery import run_queued

    run_queued()
