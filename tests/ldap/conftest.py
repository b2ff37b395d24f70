"""Fixtures of the directory tests: one real slapd per test process (tests/ldapserver.py), its directory loaded anew
for each test, and the service's LDAP settings pointed at it (``ldap_on``)."""

from __future__ import annotations

import pytest

from tests.ldapserver import PEOPLE, READER_DN, READER_PASSWORD, SUFFIX, LdapServer, require_slapd

__all__ = ["PEOPLE", "SUFFIX"]


@pytest.fixture(scope="session")
def _slapd():
    require_slapd()
    server = LdapServer().start()
    yield server
    server.stop()


@pytest.fixture
def ldap_server(_slapd) -> LdapServer:
    """The running slapd with :data:`tests.ldapserver.DIRECTORY` loaded again."""
    _slapd.load()
    return _slapd


@pytest.fixture
def ldap_on(settings, ldap_server) -> LdapServer:
    """LDAP configured as an operator would: the reader account, the whole suffix as base (people sit in several
    OUs), inetOrgPerson entries, Active Directory's attribute names (the test schema has them)."""
    settings.LDAP_SERVER_URI = ldap_server.uri
    settings.LDAP_BIND_DN = READER_DN
    settings.LDAP_BIND_PASSWORD = READER_PASSWORD
    settings.LDAP_USER_BASE = SUFFIX
    settings.LDAP_USER_FILTER = "(objectClass=inetOrgPerson)"
    settings.LDAP_USERNAME_ATTR = "uid"
    settings.LDAP_ATTR_MAP = {}
    settings.LDAP_DISABLED_FILTER = ""
    settings.LDAP_START_TLS = False
    settings.LDAP_TIMEOUT = 5
    settings.AUTHENTICATION_BACKENDS = ["accounts.backends.UsernameBackend", "accounts.ldap.backend.LdapBackend"]
    return ldap_server
