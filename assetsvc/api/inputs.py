"""Reading a request's input as Laravel does: the JSON (or form) body merged over the query string, empty strings
read as null, ``key[]`` as lists (API-CONTRACT.md §1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import QueryDict
from rest_framework import exceptions

from assetsvc.api.parsers import OutOfRangeNumber

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


#: ``?search=`` reads its first 255 characters (Snipe-IT's limit) as terms separated by `` OR ``.
SEARCH_LENGTH = 255
#: Each term adds a condition per searched column and related name (about 25 bound parameters on ``/hardware``, a
#: ``UNION`` arm each on PostgreSQL): 60 one-letter terms built a 140 KB statement that ran 7 s on 29 assets
#: (issue 25 item 7). Terms repeated (ignoring case) count once.
MAX_SEARCH_TERMS = 10
TOO_MANY_TERMS = f"The search must not have more than {MAX_SEARCH_TERMS} terms (separated by OR)."


def search_terms(text: str | None) -> list[str]:
    """The distinct terms of a ``search`` (first 255 characters, split on `` OR ``, trimmed, repeats ignoring case
    dropped); a field error on ``search`` past :data:`MAX_SEARCH_TERMS`."""
    if not text or not text.strip():
        return []
    terms = {}
    for term in text.strip()[:SEARCH_LENGTH].split(" OR "):
        if term.strip():
            terms.setdefault(term.strip().casefold(), term.strip())
    if len(terms) > MAX_SEARCH_TERMS:
        raise exceptions.ValidationError({"search": [TOO_MANY_TERMS]})
    return list(terms.values())


SURROGATE_REFUSED = "Surrogate characters are not allowed: U+{code:04X}."
NUMBER_OUT_OF_RANGE = "The number is out of range."


def surrogate(text: str) -> int | None:
    """The first lone surrogate of ``text`` (``"\\ud800"`` in a JSON string decodes to one; it is no character, and
    neither UTF-8 nor the databases can hold it), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ord(text[exc.start])
    return None


def printable(key: str) -> str:
    """A key as an error names it: lone surrogates written as ``\\udXXX`` (the answer must be valid UTF-8)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _items(value: Any) -> list[tuple[Any, Any]]:
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, list | tuple):
        return list(enumerate(value))
    return []


def walk(value: Any) -> Iterator[tuple[str, Any, Any, int]]:
    """Every (path, key or None, leaf or container, depth) of a parsed input, without recursion: a JSON text nested
    450 deep is valid, and a recursive walk of it overflowed Python's stack (a 500, issue 25 item 12)."""
    stack: list[tuple[str, Any, Any, int]] = [("", None, value, 0)]
    while stack:
        path, key, item, depth = stack.pop()
        yield path, key, item, depth
        for child_key, child in reversed(_items(item)):
            name = str(child_key) if isinstance(child_key, int) else child_key
            stack.append((f"{path}.{name}" if path else name, child_key, child, depth + 1))


def depth_of(value: Any) -> int:
    """How deep containers nest in ``value`` (0 for a scalar)."""
    return max((depth for _path, _key, item, depth in walk(value) if isinstance(item, dict | list | tuple)),
               default=-1) + 1


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


def contains_nul(value: Any) -> bool:
    """True when a string of ``value`` (keys included, at any depth) holds a NUL character."""
    return any(("\x00" in item if isinstance(item, str) else False) or (isinstance(key, str) and "\x00" in key)
               for _path, key, item, _depth in walk(value))
