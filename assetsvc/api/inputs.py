"""Reading a request's input as Laravel does: the JSON (or form) body merged over the query string, empty strings
read as null, ``key[]`` as lists (API-CONTRACT.md §1)."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def parse_flag(value: Any) -> bool | None:
    """A boolean as clients and operators spell it (``true/false/1/0/yes/no/on/off``); None for anything else."""
    text = str(value).strip().lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    return None


def _normalize(value: Any) -> Any:
    if isinstance(value, str):
        stripped = value.strip()
        return None if stripped == "" else stripped
    return value


def _from_querydict(data: QueryDict) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in data.keys():
        values = data.getlist(key)
        if key.endswith("[]"):
            out[key[:-2]] = [_normalize(v) for v in values]
        else:
            out[key] = _normalize(values[-1]) if values else None
    return out


def merged_input(request) -> dict[str, Any]:
    """Query string first, then the body on top (body wins). A body that is not an object (a JSON list, a string)
    is kept under ``_body`` so serializers can refuse it instead of silently ignoring it."""
    data: dict[str, Any] = _from_querydict(request.query_params)
    body = request.data
    if isinstance(body, QueryDict):
        data.update(_from_querydict(body))
    elif isinstance(body, dict):
        data.update({key: _normalize(value) for key, value in body.items()})
    elif body not in (None, "", b""):
        data["_body"] = body
    return data


def contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(contains_nul(v) for v in value)
    return False
