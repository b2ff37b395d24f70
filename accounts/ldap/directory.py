"""The directory client on ldap3: connect (StartTLS and certificate checks as configured), bind, search people, and
sign a person in by search-then-bind.

django-python3-ldap (which brings ldap3 into the lock) is not used for these steps: its login builds the bind DN from
the search base (``uid=<name>,<base>``), so a person in another OU under the base could not sign in, and its user
update (``update_or_create`` by username) would overwrite a local super user and ignores deleted rows
(docs/decisions.md). Passwords are never logged nor put in an exception text.
"""

from __future__ import annotations

import contextlib
import ssl
from dataclasses import dataclass, field

import ldap3
from ldap3.core.exceptions import LDAPException
from ldap3.utils.conv import escape_filter_chars

from accounts.ldap.config import AD_ACCOUNT_CONTROL, AD_ACCOUNT_DISABLED, LdapConfig

PAGE_SIZE = 500

__all__ = ["LDAPException", "DirectoryPerson", "connect", "search_people", "find_person", "person_login"]


@dataclass
class DirectoryPerson:
    """One person entry: its DN, our fields' values (``None``: the entry has no such attribute) and whether the
    directory disables it."""

    dn: str
    username: str
    values: dict[str, str | None] = field(default_factory=dict)
    disabled: bool = False


def _server(config: LdapConfig) -> ldap3.Server:
    tls = None
    if config.start_tls or config.uri.lower().startswith("ldaps://"):
        tls = ldap3.Tls(validate=ssl.CERT_REQUIRED, ca_certs_file=config.ca_file or None)
    return ldap3.Server(config.uri, tls=tls, connect_timeout=config.timeout, get_info=ldap3.NONE)


def connect(config: LdapConfig, *, user: str | None = None, password: str | None = None) -> ldap3.Connection:
    """A bound, read-only connection: as ``user`` when given, else as the service account (``LDAP_BIND_DN``, or
    anonymous when empty). Raises an ``LDAPException`` subclass (the caller shows only its class)."""
    if user is None:
        user, password = (config.bind_dn or None), (config.bind_password or None)
    connection = ldap3.Connection(_server(config), user=user, password=password, read_only=True,
                                  receive_timeout=config.timeout, raise_exceptions=True,
                                  auto_bind=ldap3.AUTO_BIND_NONE)
    try:
        connection.open()
        if config.start_tls:
            connection.start_tls()
        connection.bind()
    except BaseException:
        with contextlib.suppress(LDAPException, OSError):  # the first failure is the one to report
            connection.unbind()
        raise
    return connection


def _first(values) -> str | None:
    if values is None:
        return None
    if isinstance(values, (list, tuple)):
        values = values[0] if values else None
    if values is None:
        return None
    if isinstance(values, bytes):
        values = values.decode("utf-8", errors="replace")
    text = str(values).strip()
    return text or None


def _person(config: LdapConfig, entry: dict, disabled_dns: set[str]) -> DirectoryPerson | None:
    attributes = entry.get("attributes") or {}
    lowered = {name.lower(): value for name, value in attributes.items()}
    values = {name: _first(lowered.get(attr.lower())) for name, attr in config.attr_map.items() if attr}
    username = values.pop("username", None)
    if not username:
        return None
    control = _first(lowered.get(AD_ACCOUNT_CONTROL.lower()))
    disabled = entry["dn"].lower() in disabled_dns
    if control is not None:
        try:
            disabled = disabled or bool(int(control) & AD_ACCOUNT_DISABLED)
        except ValueError:
            pass
    return DirectoryPerson(dn=entry["dn"], username=username, values=values, disabled=disabled)


def _search(connection: ldap3.Connection, config: LdapConfig, search_filter: str, attributes) -> list[dict]:
    return [entry for entry in connection.extend.standard.paged_search(
        search_base=config.user_base, search_filter=search_filter, search_scope=ldap3.SUBTREE,
        attributes=attributes, paged_size=PAGE_SIZE, generator=False) if entry.get("type") == "searchResEntry"]


def _disabled_dns(connection: ldap3.Connection, config: LdapConfig, narrowing: str = "") -> set[str]:
    if not config.disabled_filter:
        return set()
    search_filter = f"(&{config.user_filter}{narrowing}{config.disabled_filter})"
    return {entry["dn"].lower() for entry in _search(connection, config, search_filter, ldap3.NO_ATTRIBUTES)}


def search_people(connection: ldap3.Connection, config: LdapConfig) -> list[DirectoryPerson]:
    """Every entry under ``LDAP_USER_BASE`` (whole subtree) matching ``LDAP_USER_FILTER``, paged."""
    disabled = _disabled_dns(connection, config)
    people = (_person(config, entry, disabled)
              for entry in _search(connection, config, config.user_filter, config.requested_attributes()))
    return [person for person in people if person is not None]


def find_person(connection: ldap3.Connection, config: LdapConfig, username: str) -> DirectoryPerson | None:
    """The one entry whose username attribute is ``username`` (none, or several: ``None``)."""
    narrowing = f"({config.username_attr}={escape_filter_chars(username)})"
    search_filter = f"(&{config.user_filter}{narrowing})"
    entries = _search(connection, config, search_filter, config.requested_attributes())
    if len(entries) != 1:
        return None
    return _person(config, entries[0], _disabled_dns(connection, config, narrowing))


def person_login(config: LdapConfig, username: str, password: str) -> DirectoryPerson | None:
    """Search-then-bind: the service account finds the entry, then a bind as its DN checks ``password``. ``None``
    for no such person or a wrong password; other directory failures raise ``LDAPException``."""
    if not username or not password:  # an empty password would be an unauthenticated bind, which "succeeds"
        return None
    service = connect(config)
    try:
        person = find_person(service, config, username)
    finally:
        service.unbind()
    if person is None:
        return None
    try:
        connect(config, user=person.dn, password=password).unbind()
    except ldap3.core.exceptions.LDAPInvalidCredentialsResult:
        return None
    return person
