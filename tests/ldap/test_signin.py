"""Admin sign-in with the directory password (issue 30), through the admin's login form against a real slapd: the
directory checks the password, our permission model decides who may use the admin."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from accounts.models import User
from tests.factories import UserFactory
from tests.ldap.conftest import PEOPLE

pytestmark = pytest.mark.django_db


def admin_login(username: str, password: str) -> Client:
    client = Client()
    client.post("/admin/login/?next=/admin/", {"username": username, "password": password, "next": "/admin/"})
    return client


def signed_in_as(client: Client) -> str | None:
    response = client.get("/admin/")
    return response.context["user"].username if response.status_code == 200 else None


def test_a_directory_user_with_admin_rights_signs_in_with_the_directory_password(ldap_on):
    assert signed_in_as(admin_login("erin", "erin-pw")) is None  # created, but no rights: the admin refuses
    erin = User.objects.get(username="erin")  # in ou=contractors: found by search, not a DN built from the base
    assert erin.ldap_import and not erin.has_usable_password() and erin.permissions == {}
    User.objects.filter(pk=erin.pk).update(permissions={"admin": 1})  # rights are given here, never by the directory
    assert signed_in_as(admin_login("erin", "erin-pw")) == "erin"
    assert signed_in_as(admin_login("ERIN", "erin-pw")) == "erin"  # usernames ignore case, as everywhere
    assert signed_in_as(admin_login("erin", "wrong")) is None
    assert signed_in_as(admin_login("erin", "")) is None


def test_a_directory_sign_in_updates_the_user_but_never_their_rights(ldap_on):
    UserFactory(username="bob", ldap_import=True, first_name="Old", permissions={"admin": 1})
    ldap_on.modify(f"uid=bob,{PEOPLE}", givenName="Robert")
    assert signed_in_as(admin_login("bob", "bob-pw")) == "bob"
    bob = User.objects.get(username="bob")
    assert bob.first_name == "Robert" and bob.permissions == {"admin": 1}


def test_disabled_or_deactivated_users_cannot_sign_in(ldap_on):
    assert signed_in_as(admin_login("dave", "dave-pw")) is None  # disabled in the directory
    assert not User.objects.filter(username="dave").exists()
    UserFactory(username="alice", ldap_import=True, is_active=False, permissions={"admin": 1})
    assert signed_in_as(admin_login("alice", "alice-pw")) is None  # deactivated here
    assert not User.objects.get(username="alice").is_active


def test_a_local_super_user_is_not_taken_over_by_the_directory(ldap_on):
    admin = UserFactory(username="carol", superuser=True, first_name="Local", password="local-pw")
    assert signed_in_as(admin_login("carol", "carol-pw")) is None  # the directory's password is not theirs
    assert signed_in_as(admin_login("carol", "local-pw")) == "carol"
    admin.refresh_from_db()
    assert admin.first_name == "Local" and not admin.ldap_import


def test_an_unreachable_directory_leaves_local_sign_in_working(ldap_on, settings, caplog):
    UserFactory(username="root", superuser=True, password="root-pw")
    settings.LDAP_SERVER_URI = "ldap://127.0.0.1:1"
    with caplog.at_level(logging.WARNING, logger="accounts.ldap.backend"):
        assert signed_in_as(admin_login("alice", "alice-pw")) is None
    assert "LDAPSocketOpenError" in caplog.text and "alice-pw" not in caplog.text
    assert signed_in_as(admin_login("root", "root-pw")) == "root"


def test_without_ldap_the_directory_password_does_nothing(ldap_server, settings, db):
    """The default configuration: no LDAP backend at all."""
    assert settings.LDAP_SERVER_URI == ""
    assert "accounts.ldap.backend.LdapBackend" not in settings.AUTHENTICATION_BACKENDS
    assert signed_in_as(admin_login("alice", "alice-pw")) is None
    assert not User.objects.exists()


def test_the_admin_shows_directory_users(ldap_on, super_client):
    admin_login("erin", "erin-pw")  # the first sign-in creates erin
    erin = User.objects.get(username="erin")
    page = super_client.get(f"/admin/accounts/user/{erin.pk}/change/")
    assert page.status_code == 200 and "From the directory" in page.content.decode()
    assert 'name="ldap_import"' not in page.content.decode()  # read-only: set by the directory only
    listed = super_client.get("/admin/accounts/user/", {"ldap_import__exact": "1"})
    assert [user.username for user in listed.context["cl"].result_list] == ["erin"]


def test_a_super_user_from_the_directory_signs_in_with_it_untouched(ldap_on):
    """Rights are given here: a directory user made super user keeps signing in with the directory password, and the
    directory still never changes their row."""
    UserFactory(username="bob", ldap_import=True, superuser=True, first_name="Kept", password=None)
    ldap_on.modify(f"uid=bob,{PEOPLE}", givenName="Changed")
    assert signed_in_as(admin_login("bob", "bob-pw")) == "bob"
    assert User.objects.get(username="bob").first_name == "Kept"
    assert signed_in_as(admin_login("bob", "wrong")) is None
