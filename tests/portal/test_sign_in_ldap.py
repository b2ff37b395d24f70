"""Portal sign-in with the directory password (issue 32) against the real slapd of the directory tests
(tests/ldapserver.py): a person the directory knows signs in at /account/ without any admin right, gets the user it
creates, and the admin still refuses them."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from tests.ldap.conftest import _slapd, ldap_on, ldap_server

__all__ = ["_slapd", "ldap_on", "ldap_server"]  # the directory tests' fixtures, for this module

pytestmark = pytest.mark.django_db


def test_a_directory_user_signs_in_to_the_portal_with_the_directory_password(ldap_on):
    client = Client()
    answer = client.post("/account/login/?next=/account/", {"username": "erin", "password": "erin-pw",
                                                            "next": "/account/"})
    assert answer.status_code == 302 and answer["Location"] == "/account/"
    erin = User.objects.get(username="erin")
    assert erin.ldap_import and erin.permissions == {} and not erin.has_usable_password()
    page = client.get("/account/profile/")
    assert page.status_code == 200 and "Managed by your directory" in page.content.decode()
    assert client.get("/admin/").status_code == 302  # no admin right: the admin stays closed
    wrong = Client().post("/account/login/", {"username": "erin", "password": "wrong"})
    assert wrong.status_code == 200 and "Please enter a correct username and password" in wrong.content.decode()
