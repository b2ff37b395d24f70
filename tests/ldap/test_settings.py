"""The LDAP settings fail fast on what cannot work (assetsvc/settings.py), and gate the sign-in backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from accounts.ldap.config import ldap_config

ROOT = Path(__file__).resolve().parents[2]
BASE = {"DJANGO_SETTINGS_MODULE": "assetsvc.settings", "DEBUG": "true"}


def settings_with(**env: str) -> subprocess.CompletedProcess:
    clean = {key: value for key, value in os.environ.items() if not key.startswith("LDAP_")}
    return subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", "from assetsvc import settings as s; print(s.AUTHENTICATION_BACKENDS)"],
        cwd=ROOT, env={**clean, **BASE, **env}, capture_output=True, text=True, timeout=60, check=False)


def test_without_ldap_server_uri_no_ldap_backend():
    result = settings_with()
    assert result.returncode == 0, result.stderr
    # The sign-in throttle (django-axes) comes first whatever the directory (issue 30, two-factor part).
    assert result.stdout.strip() == ("['accounts.twofactor.throttle.ThrottleBackend', "
                                     "'accounts.backends.UsernameBackend']")


def test_with_ldap_server_uri_the_backend_comes_after_the_local_one():
    result = settings_with(LDAP_SERVER_URI="ldap://127.0.0.1:389", LDAP_USER_BASE="dc=example,dc=org",
                           LDAP_ATTR_MAP='{"department": "departmentNumber"}')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("['accounts.twofactor.throttle.ThrottleBackend', "
                                     "'accounts.backends.UsernameBackend', 'accounts.ldap.backend.LdapBackend']")


@pytest.mark.parametrize(("env", "message"), [
    ({"LDAP_SERVER_URI": "ldap://127.0.0.1:389"}, "LDAP_USER_BASE is required"),
    ({"LDAP_SERVER_URI": "127.0.0.1", "LDAP_USER_BASE": "dc=x"}, "LDAP_SERVER_URI must start with ldap://"),
    ({"LDAP_ATTR_MAP": "{department: ou}"}, "LDAP_ATTR_MAP must be a JSON object"),
    ({"LDAP_ATTR_MAP": '{"department": 3}'}, "LDAP_ATTR_MAP must be a JSON object of strings"),
    ({"LDAP_START_TLS": "maybe"}, "LDAP_START_TLS must be a boolean"),
])
def test_what_cannot_work_fails_at_start(env, message):
    result = settings_with(**env)
    assert result.returncode != 0
    assert message in result.stderr


def test_an_unknown_field_in_the_map_is_refused(settings):
    settings.LDAP_ATTR_MAP = {"favourite_colour": "color"}
    with pytest.raises(ImproperlyConfigured, match="favourite_colour"):
        ldap_config()


def test_the_map_merges_over_the_defaults(settings):
    settings.LDAP_USERNAME_ATTR = "sAMAccountName"
    settings.LDAP_ATTR_MAP = {"department": "departmentNumber", "location": ""}
    settings.LDAP_USER_FILTER = "objectClass=user"
    config = ldap_config()
    assert config.username_attr == "sAMAccountName"
    assert config.attr_map["department"] == "departmentNumber" and config.attr_map["email"] == "mail"
    assert config.attribute_of("location") == ""
    assert config.user_filter == "(objectClass=user)"
