"""The directory settings, read from ``django.conf.settings`` at each call (tests change them per test)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

#: Our user fields the attribute map may fill, with the defaults. Active Directory's names where inetOrgPerson has
#: the same (givenName, sn, mail, employeeNumber, telephoneNumber, title, physicalDeliveryOfficeName); ``department``
#: and ``company`` are Active Directory's (OpenLDAP: map them to ``departmentNumber``/``ou`` and ``o``). ``username``
#: defaults to ``LDAP_USERNAME_ATTR``.
DEFAULT_ATTR_MAP = {
    "first_name": "givenName",
    "last_name": "sn",
    "email": "mail",
    "employee_num": "employeeNumber",
    "phone": "telephoneNumber",
    "jobtitle": "title",
    "department": "department",
    "company": "company",
    "location": "physicalDeliveryOfficeName",
}
MAPPABLE_FIELDS = frozenset({"username", *DEFAULT_ATTR_MAP})
#: Active Directory's ``userAccountControl``: bit 2 (ACCOUNTDISABLE) marks a disabled account.
AD_ACCOUNT_CONTROL = "userAccountControl"
AD_ACCOUNT_DISABLED = 0x2


@dataclass(frozen=True)
class LdapConfig:
    uri: str
    bind_dn: str
    bind_password: str
    user_base: str
    user_filter: str
    username_attr: str
    attr_map: dict[str, str]
    disabled_filter: str
    start_tls: bool
    ca_file: str
    timeout: int

    @property
    def enabled(self) -> bool:
        return bool(self.uri)

    def attribute_of(self, field: str) -> str:
        """The LDAP attribute that fills ``field``; ``""`` when the field is left to this service."""
        return self.attr_map.get(field, "")

    def requested_attributes(self) -> list[str]:
        return sorted({attr for attr in self.attr_map.values() if attr} | {AD_ACCOUNT_CONTROL})


def _filter(text: str) -> str:
    """An LDAP filter, parenthesized (``objectClass=person`` is taken as ``(objectClass=person)``)."""
    text = (text or "").strip()
    return text if not text or text.startswith("(") else f"({text})"


def ldap_config() -> LdapConfig:
    """The directory settings now. An unknown field in ``LDAP_ATTR_MAP`` is a configuration error."""
    overrides = dict(getattr(settings, "LDAP_ATTR_MAP", {}) or {})
    unknown = sorted(set(overrides) - MAPPABLE_FIELDS)
    if unknown:
        raise ImproperlyConfigured(
            f"LDAP_ATTR_MAP names unknown fields {unknown}; known: {sorted(MAPPABLE_FIELDS)}")
    username_attr = (getattr(settings, "LDAP_USERNAME_ATTR", "") or "uid").strip()
    attr_map = {"username": username_attr, **DEFAULT_ATTR_MAP, **{k: v.strip() for k, v in overrides.items()}}
    if not attr_map["username"]:
        raise ImproperlyConfigured("LDAP_ATTR_MAP cannot leave out username")
    return LdapConfig(
        uri=getattr(settings, "LDAP_SERVER_URI", "") or "",
        bind_dn=getattr(settings, "LDAP_BIND_DN", "") or "",
        bind_password=getattr(settings, "LDAP_BIND_PASSWORD", "") or "",
        user_base=getattr(settings, "LDAP_USER_BASE", "") or "",
        user_filter=_filter(getattr(settings, "LDAP_USER_FILTER", "")) or "(objectClass=person)",
        username_attr=attr_map["username"],
        attr_map=attr_map,
        disabled_filter=_filter(getattr(settings, "LDAP_DISABLED_FILTER", "")),
        start_tls=bool(getattr(settings, "LDAP_START_TLS", False)),
        ca_file=getattr(settings, "LDAP_CA_FILE", "") or "",
        timeout=int(getattr(settings, "LDAP_TIMEOUT", 10) or 10),
    )
