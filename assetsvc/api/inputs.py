"""Reading a request's input as Laravel does: the JSON (or form) body merged over the query string, empty strings
read as null, ``key[]`` as lists (API-CONTRACT.md §1)."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from assetsvc.api.parsers import OutOfRangeNumber
from assetsvc.inputs import (  # noqa: F401  (re-exported: the API reads them from here)
    FALSE_WORDS,
    MAX_SEARCH_TERMS,
    NUMBER_OUT_OF_RANGE,
    SEARCH_LENGTH,
    SURROGATE_REFUSED,
    TOO_MANY_TERMS,
    TRUE_WORDS,
    contains_nul,
    depth_of,
    parse_flag,
    search_terms,
    surrogate,
    walk,
)

#: The answer to a JSON body whose Content-Type does not say so (issue 12): without the hint the client reads "The
#: model id field is required." about a field it did send.
JSON_WITHOUT_CONTENT_TYPE = ("The request body looks like JSON but was not sent as JSON: "
                             "send it with the header Content-Type: application/json.")
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})


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


def printable(key: str) -> str:
    """A key as an error names it: lone surrogates written as ``\\udXXX`` (the answer must be valid UTF-8)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def input_problems(body: Any) -> dict[str, list[str]]:
    """Field errors of a parsed body that no field rule can see: lone surrogates in a key or a string (PostgreSQL and
    SQLite refuse them, the answer could not be encoded: 500s), and numbers beyond a double (stored as ``inf``).
    Keyed by the path of the key (``custom_fields._snipeit_x_1``, ``ids.0``), in the order sent."""
    problems: dict[str, list[str]] = {}
    for path, key, item, _depth in walk(body):
        if isinstance(key, str) and (code := surrogate(key)) is not None:
            problems.setdefault(printable(path), []).append(SURROGATE_REFUSED.format(code=code))
        elif isinstance(item, str) and (code := surrogate(item)) is not None:
            problems.setdefault(printable(path) or "general", []).append(SURROGATE_REFUSED.format(code=code))
        elif isinstance(item, OutOfRangeNumber):
            problems.setdefault(printable(path) or "general", []).append(NUMBER_OUT_OF_RANGE)
    return problems


