"""The directory's API routes with LDAP configured (issue 30): ``POST /users/ldapsync``, ``GET``/``POST
/settings/ldaptest`` and ``POST /settings/ldaptestlogin``, super users only, against a real slapd. Without LDAP they
answer "not configured": tests/accounts/test_api_unavailable.py."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.api_mixins import error_of, http_errors
from tests.factories import UserFactory
from tests.ldap.conftest import PEOPLE

pytestmark = pytest.mark.django_db


def test_ldapsync_runs_the_sync_and_answers_the_counts(ldap_on, token_client):
    body = token_client.post("/api/v1/users/ldapsync", {}, format="json").json()
    assert body["status"] == "success"
    assert body["messages"] == "LDAP sync: 4 created, 0 updated, 0 deactivated, 0 unchanged, 0 skipped"
    assert {key: body["payload"][key] for key in ("created", "updated", "deactivated", "unchanged")} == {
        "created": 4, "updated": 0, "deactivated": 0, "unchanged": 0}
    assert User.objects.get(username="alice").created_by == token_client.user
    again = token_client.post("/api/v1/users/ldapsync/").json()["payload"]
    assert (again["created"], again["unchanged"]) == (0, 4)


def test_ldapsync_dry_run(ldap_on, token_client):
    body = token_client.post("/api/v1/users/ldapsync", {"dry_run": True}, format="json").json()
    assert body["payload"]["dry_run"] and body["payload"]["created"] == 4
    assert not User.objects.filter(ldap_import=True).exists()


@pytest.mark.parametrize("permissions", [{}, {"admin": 1}, {"users.edit": 1}])
def test_ldapsync_is_for_super_users_only(ldap_on, make_client, permissions):
    response = make_client(UserFactory(permissions=permissions)).post("/api/v1/users/ldapsync")
    assert response.status_code == 403
    assert not User.objects.filter(ldap_import=True).exists()


def test_ldaptest_reports_the_people_found(ldap_on, token_client):
    for method in ("get", "post"):
        body = getattr(token_client, method)("/api/v1/settings/ldaptest").json()
        assert body["status"] == "success"
        assert body["payload"] == {"users": 5, "disabled": 1}
        assert "5 users found" in body["messages"]


def test_ldaptest_answers_the_error_class_never_the_password(ldap_on, token_client, settings):
    settings.LDAP_BIND_PASSWORD = "not-the-reader-password"
    response = token_client.get("/api/v1/settings/ldaptest")
    assert error_of(response) == "LDAP test failed: LDAPInvalidCredentialsResult"
    assert "not-the-reader-password" not in response.content.decode()
    http_errors(settings)
    settings.LDAP_SERVER_URI = "ldap://127.0.0.1:1"
    response = token_client.get("/api/v1/settings/ldaptest")
    assert response.status_code == 409
    assert response.json()["message"] == "LDAP test failed: LDAPSocketOpenError"


def test_ldaptestlogin(ldap_on, token_client):
    ok = token_client.post("/api/v1/settings/ldaptestlogin",
                           {"ldaptest_user": "erin", "ldaptest_password": "erin-pw"}, format="json")
    assert ok.json()["status"] == "success"
    assert ok.json()["messages"] == "It worked! erin successfully binded to LDAP."
    assert "erin-pw" not in ok.content.decode()
    assert not User.objects.filter(username="erin").exists()  # a test signs nobody in, creates nobody

    wrong = token_client.post("/api/v1/settings/ldaptestlogin",
                              {"username": "erin", "password": "guess-pw"}, format="json")
    assert error_of(wrong) == "Login Failed. erin did not successfully bind to LDAP."
    assert "guess-pw" not in wrong.content.decode()

    disabled = token_client.post("/api/v1/settings/ldaptestlogin",
                                 {"ldaptest_user": "dave", "ldaptest_password": "dave-pw"}, format="json")
    assert error_of(disabled) == "Login Failed. dave is disabled in the directory."

    missing = token_client.post("/api/v1/settings/ldaptestlogin", {"ldaptest_user": "erin"}, format="json")
    assert missing.json()["status"] == "error"
    assert "ldaptest_password" in missing.json()["messages"]


def test_ldaptestlogin_with_a_user_moved_out_of_the_base(ldap_on, token_client, settings):
    settings.LDAP_USER_BASE = PEOPLE
    response = token_client.post("/api/v1/settings/ldaptestlogin",
                                 {"ldaptest_user": "erin", "ldaptest_password": "erin-pw"}, format="json")
    assert error_of(response) == "Login Failed. erin did not successfully bind to LDAP."


@pytest.mark.parametrize(("method", "path"), [("get", "/api/v1/settings/ldaptest"),
                                              ("post", "/api/v1/settings/ldaptestlogin")])
def test_settings_tools_are_for_super_users_only(ldap_on, make_client, method, path):
    for permissions in ({}, {"admin": 1}, {"users.edit": 1}):
        response = getattr(make_client(UserFactory(permissions=permissions)), method)(
            path, {"ldaptest_user": "erin", "ldaptest_password": "erin-pw"}, format="json")
        assert response.status_code == 403


def test_the_user_record_and_list_tell_directory_users(ldap_on, token_client):
    token_client.post("/api/v1/users/ldapsync")
    rows = token_client.get("/api/v1/users", {"ldap_import": "true", "limit": 50}).json()["rows"]
    assert sorted(row["username"] for row in rows) == ["alice", "bob", "carol", "erin"]
    assert all(row["ldap_import"] for row in rows)
    local = token_client.get("/api/v1/users", {"ldap_import": "false"}).json()["rows"]
    assert [(row["username"], row["ldap_import"]) for row in local] == [("admin", False)]


def test_start_tls_checks_the_directorys_certificate(ldap_on, token_client, settings):
    settings.LDAP_START_TLS = True
    settings.LDAP_CA_FILE = str(ldap_on.ca_file)
    assert token_client.get("/api/v1/settings/ldaptest").json()["payload"] == {"users": 5, "disabled": 1}
    ok = token_client.post("/api/v1/settings/ldaptestlogin",
                           {"ldaptest_user": "alice", "ldaptest_password": "alice-pw"}, format="json")
    assert ok.json()["status"] == "success"
    settings.LDAP_CA_FILE = ""  # the system's CAs do not know the test CA: refused, never sent in clear
    assert error_of(token_client.get("/api/v1/settings/ldaptest")) == "LDAP test failed: LDAPStartTLSError"
