"""The directory's routes while ``LDAP_SERVER_URI`` is empty (accounts/api/ldap.py, issue 30): the permission check
first, then a "not configured" error envelope, never a 404-route, 405 or 500 (issue 27). With LDAP configured:
tests/ldap/test_api.py."""

from __future__ import annotations

import pytest

from accounts.ldap.services import DIRECTORY_NOT_CONFIGURED
from tests.api_mixins import MISSING, error_of, http_errors
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

#: (method, path, message): super users only (``users/ldapsync`` too, as in Snipe-IT v8.5).
SUPER_USER_ROUTES = [
    ("get", "/api/v1/settings/ldaptest", DIRECTORY_NOT_CONFIGURED),
    ("post", "/api/v1/settings/ldaptest", DIRECTORY_NOT_CONFIGURED),
    ("post", "/api/v1/settings/ldaptestlogin", DIRECTORY_NOT_CONFIGURED),
    ("post", "/api/v1/users/ldapsync", DIRECTORY_NOT_CONFIGURED),
]
ALL_ROUTES = SUPER_USER_ROUTES


@pytest.fixture(autouse=True)
def _no_directory(settings):
    settings.LDAP_SERVER_URI = ""


def _call(client, method, path, target=None):
    url = path.replace("{id}", str(target.pk if target is not None else MISSING))
    return getattr(client, method)(url, {}, format="json")


@pytest.mark.parametrize(("method", "path", "message"), ALL_ROUTES)
def test_super_user_gets_not_configured(token_client, method, path, message):
    target = UserFactory()
    assert error_of(_call(token_client, method, path, target)) == message
    assert _call(token_client, method, path + "/", target).json()["message"] == message  # trailing slash too


@pytest.mark.parametrize(("method", "path", "message"), ALL_ROUTES)
def test_http_mode_answers_409(token_client, settings, method, path, message):
    http_errors(settings)
    response = _call(token_client, method, path, UserFactory())
    assert response.status_code == 409
    assert response.json() == {"status": "error", "message": message, "messages": message, "payload": None}


@pytest.mark.parametrize(("method", "path", "message"), ALL_ROUTES)
def test_anonymous_gets_401(api_client, method, path, message):
    assert _call(api_client, method, path, UserFactory()).status_code == 401


@pytest.mark.parametrize(("method", "path", "message"), SUPER_USER_ROUTES)
def test_settings_tools_are_for_super_users_only(make_client, method, path, message):
    for permissions in ({}, {"admin": 1}, {"users.edit": 1}):
        response = _call(make_client(UserFactory(permissions=permissions)), method, path)
        assert response.status_code == 403, permissions


def test_ldapsync_comes_before_users_id(token_client, make_client):
    """``users/ldapsync`` comes before ``users/{id}``: a POST there is not the detail route's 405; its other methods
    are this route's 405 (the method-not-allowed envelope), never a 500."""
    assert token_client.post("/api/v1/users/ldapsync").json()["message"] == DIRECTORY_NOT_CONFIGURED
    for method in ("get", "put", "patch", "delete"):
        assert getattr(token_client, method)("/api/v1/users/ldapsync").status_code == 405
    assert make_client(UserFactory()).post("/api/v1/users/ldapsync").status_code == 403
