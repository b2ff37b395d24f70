"""The filters Entra ID and Okta send, into a ``Q`` on our models (RFC 7644 §3.4.2.2, the subset we answer).

Accepted: ``<attribute> eq "<value>"`` terms (``true``/``false`` for ``active``) joined by ``and``. Users:
``userName`` (case-insensitive, as our usernames), ``externalId`` (case-exact), ``id``, ``active``, ``emails.value``,
``emails[type eq "work"].value`` (we keep one, the work address), ``name.givenName``, ``name.familyName``. Groups:
``displayName`` (case-insensitive, as the group names), ``id``, ``members.value``. Any other attribute, operator
or ``or``/``not`` is refused as ``invalidFilter``: silently dropping a term would widen the answer, and a provider
that reads "no such user" from a widened answer would create duplicates.
"""

from __future__ import annotations

import re

from django.db.models import Q

from accounts.scim.errors import ScimError

USER_ATTRIBUTES = {
    "username": "username__iexact",
    "externalid": "external_id__exact",
    "id": "pk",
    "active": "is_active",
    "emails.value": "email__iexact",
    'emails[type eq "work"].value': "email__iexact",
    "emails": "email__iexact",
    "name.givenname": "first_name__iexact",
    "name.familyname": "last_name__iexact",
}
GROUP_ATTRIBUTES = {
    "displayname": "name__iexact",
    "id": "pk",
    "members.value": "users__pk",
}

#: One term: a path (with an optional ``[type eq "work"]`` selector and sub-attribute), ``eq``, and a quoted string,
#: ``true``/``false`` or a number.
TERM = re.compile(
    r'\s*(?P<path>[A-Za-z][\w:.$-]*(?:\[\s*type\s+eq\s+"work"\s*\])?(?:\.[A-Za-z]\w*)?)\s+eq\s+'
    r'(?P<value>"(?:[^"\\]|\\.)*"|true|false|\d+)\s*',
    re.IGNORECASE,
)
AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def _unquote(raw: str) -> str | bool:
    if raw.lower() in {"true", "false"}:
        return raw.lower() == "true"
    if raw.startswith('"'):
        return re.sub(r"\\(.)", r"\1", raw[1:-1])
    return raw


def _split_and(text: str) -> list[str]:
    """``and`` outside quotes separates terms."""
    parts, current, quoted, index = [], [], False, 0
    while index < len(text):
        char = text[index]
        if char == "\\" and quoted:
            current.append(text[index:index + 2])
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        if not quoted:
            match = AND.match(text, index)
            if match and match.start() == index:
                parts.append("".join(current))
                current = []
                index = match.end()
                continue
        current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def _normal_path(path: str, prefix: str) -> str:
    path = re.sub(r"\s+", " ", path).lower()
    if path.startswith(prefix.lower() + ":"):
        path = path[len(prefix) + 1:]
    return path


def filter_q(text: str, attributes: dict[str, str], schema_urn: str) -> Q:
    """``Q`` for the filter ``text`` over ``attributes`` (``USER_ATTRIBUTES`` or ``GROUP_ATTRIBUTES``); raises
    :class:`ScimError` ``invalidFilter`` for anything outside the subset."""
    if len(text) > 1000:
        raise ScimError("The filter is too long.", scim_type="invalidFilter")
    query = Q()
    for term in _split_and(text.strip()):
        match = TERM.fullmatch(term)
        if match is None:
            raise ScimError(f"Unsupported filter: {text}", scim_type="invalidFilter")
        path = _normal_path(match.group("path"), schema_urn)
        lookup = attributes.get(path)
        if lookup is None:
            raise ScimError(f"Filtering on {match.group('path')} is not supported.", scim_type="invalidFilter")
        value = _unquote(match.group("value"))
        if lookup == "pk" or lookup.endswith("__pk"):
            if not str(value).isdigit():
                return Q(pk__in=[])
            value = int(value)
        elif lookup == "is_active" and not isinstance(value, bool):
            raise ScimError("active is compared with true or false.", scim_type="invalidFilter")
        elif lookup != "is_active" and isinstance(value, bool):
            value = str(value).lower()
        query &= Q(**{lookup: value})
    return query
