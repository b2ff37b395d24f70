"""Reading a request's input as Laravel does: the JSON (or form) body merged over the query string, empty strings
read as null, ``key[]`` as lists (API-CONTRACT.md §1)."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

#: The answer to a JSON body whose Content-Type does not say so (issue 12): without the hint the client reads "The
#: model id field is required." about a field it did send.
JSON_WITHOUT_CONTENT_TYPE = ("The request body looks like JSON but was not sent as JSON: "
                             "send it with the header Content-Type: application/json.")
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})
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


def json_without_content_type(request) -> bool:
    """A write whose body was JSON but whose ``Content-Type`` was missing (DRF then ignores the body) or form
    encoding (``curl -d`` without ``-H``: the whole JSON text becomes one form key starting with ``{`` or ``[``, which
    no real form field does)."""
    if request.method not in _WRITE_METHODS:
        return False
    content_type = request.META.get("CONTENT_TYPE", "").split(";", 1)[0].strip().lower()
    if not content_type:
        try:
            return int(request.META.get("CONTENT_LENGTH") or 0) > 0
        except ValueError:
            return False
    if content_type == "application/x-www-form-urlencoded" and isinstance(request.data, QueryDict):
        first_key = next(iter(request.data.keys()), "")
        return first_key.lstrip().startswith(("{", "["))
    return False


def contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(contains_nul(v) for v in value)
    return False
