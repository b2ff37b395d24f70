"""Reading input values as the domain needs them, without HTTP: flags, search terms, lone surrogates, NUL characters
and nesting depth. ``assetsvc.api.inputs`` re-exports them for the API; selectors and the custom value engine import
them from here, so the domain never imports the HTTP package (issue 26). A refused value is Django's
``ValidationError`` keyed by the parameter, which the API's exception handler answers as the same field error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.exceptions import ValidationError

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
        raise ValidationError({"search": [TOO_MANY_TERMS]})
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


def contains_nul(value: Any) -> bool:
    """True when a string of ``value`` (keys included, at any depth) holds a NUL character."""
    return any(("\x00" in item if isinstance(item, str) else False) or (isinstance(key, str) and "\x00" in key)
               for _path, key, item, _depth in walk(value))
