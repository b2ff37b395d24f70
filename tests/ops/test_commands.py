"""Operator commands: issue_token, site_settings, bootstrap_admin (what `make run` runs)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import PersonalAccessToken, User
from assetsvc.models import SiteSettings
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def run(*args, **kwargs) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **kwargs)
    return out.getvalue()


def test_issue_token_prints_only_a_working_token(api_client):
    UserFactory(username="jane")
    output = run("issue_token", "JANE", "--name", "ci")
    token = output.strip()
    assert "\n" not in token and len(token) > 40
    assert PersonalAccessToken.objects.get().name == "ci"
    response = api_client.get("/api/v1/users/me", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.json()["username"] == "jane"


def test_issue_token_refuses_unknown_users_and_long_names():
    UserFactory(username="jane")
    with pytest.raises(CommandError):
        run("issue_token", "nobody")
    with pytest.raises(CommandError):
        run("issue_token", "jane", "--name", "x" * 256)
    assert PersonalAccessToken.objects.count() == 0


def test_site_settings_show_lists_every_setting():
    output = run("site_settings", "show")
    lines = dict(line.split(" = ", 1) for line in output.splitlines() if line)
    assert lines["full_multiple_companies_support"] == "false"
    assert lines["audit_interval"] == "12"
    for key in ("webhook_platform", "webhook_endpoint", "auto_increment_prefix", "require_checkinout_notes"):
        assert key in lines


@pytest.mark.parametrize(("raw", "expected"), [("true", True), ("on", True), ("1", True), ("yes", True),
                                               ("false", False), ("off", False), ("0", False), ("no", False)])
def test_site_settings_set_booleans(raw, expected):
    run("site_settings", "set", "full_multiple_companies_support", raw)
    assert SiteSettings.load().full_multiple_companies_support is expected


def test_site_settings_set_validates_like_the_admin():
    for key, value in [("audit_interval", "abc"), ("audit_interval", "-1"), ("webhook_endpoint", "ftp://x"),
                       ("full_multiple_companies_support", "maybe"), ("webhook_platform", "irc"),
                       ("nonexistent", "1"), ("webhook_secret", "too-short"),
                       ("webhook_events", "asset.exploded")]:
        with pytest.raises(CommandError):
            run("site_settings", "set", key, value)
    settings_row = SiteSettings.load()
    assert settings_row.audit_interval == 12 and settings_row.webhook_endpoint == ""


def test_site_settings_set_and_clear_optional_values():
    run("site_settings", "set", "webhook_channel", "#it")
    run("site_settings", "set", "webhook_endpoint", "https://chat.example.com/hook")
    assert SiteSettings.load().webhook_endpoint == "https://chat.example.com/hook"
    run("site_settings", "set", "webhook_endpoint", "")
    assert SiteSettings.load().webhook_endpoint == ""
    assert "auto_increment_prefix = ASSET-" in run("site_settings", "set", "auto_increment_prefix", "ASSET-")


def test_setting_change_is_seen_without_a_restart(company):
    """Nothing caches the settings row across requests: a change by the command is seen by the next reader."""
    from companies.querysets import separation_applies_to

    person = UserFactory(company=company)
    run("site_settings", "set", "full_multiple_companies_support", "true")
    assert separation_applies_to(person) is True
    run("site_settings", "set", "full_multiple_companies_support", "false")
    assert separation_applies_to(person) is False


def test_bootstrap_admin_creates_admin_once_and_prints_a_token_once(monkeypatch, api_client):
    monkeypatch.setenv("ADMIN_PASSWORD", "s3cret-pass")
    output = run("bootstrap_admin")
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password("s3cret-pass")
    token = output.strip().splitlines()[-4].strip()
    assert api_client.get("/api/v1/users/me", HTTP_AUTHORIZATION=f"Bearer {token}").json()["username"] == "admin"
    # Later starts create no user and no token: they say how to get another.
    again = run("bootstrap_admin")
    assert User.objects.count() == 1
    assert PersonalAccessToken.objects.count() == 1
    assert token not in again and "manage.py issue_token admin" in again and "/admin/" in again
    # Once that token is revoked (or expired), the next start prints a new one.
    record = PersonalAccessToken.objects.get()
    api_client.delete(f"/api/v1/account/personal-access-tokens/{record.pk}", HTTP_AUTHORIZATION=f"Bearer {token}")
    record.refresh_from_db()
    assert record.revoked
    third = run("bootstrap_admin")
    fresh = third.strip().splitlines()[-4].strip()
    assert fresh != token and "(shown once)" in third
    assert api_client.get("/api/v1/users/me", HTTP_AUTHORIZATION=f"Bearer {fresh}").status_code == 200


def test_bootstrap_admin_generates_and_prints_a_password(monkeypatch):
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    output = run("bootstrap_admin")
    password = output.split("with password: ")[1].split()[0]
    assert User.objects.get(username="admin").check_password(password)


def test_createsuperuser_noinput_needs_only_username_email_password(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "root")
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", "root@example.com")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "another-s3cret")
    run("createsuperuser", "--noinput")
    root = User.objects.get(username="root")
    assert root.is_superuser and root.check_password("another-s3cret")
