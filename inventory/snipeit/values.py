"""Decoding Snipe-IT's API values into plain Python values (issue 31).

Snipe-IT renders its records through transformers that escape strings with ``htmlspecialchars`` (Laravel's ``e()``),
wrap dates in ``{"datetime", "formatted"}`` / ``{"date", "formatted"}`` objects (``Helper::getFormattedDateObject``),
nest references as ``{"id", "name"}``, format money as ``"1,234.56"``, months as ``"36 months"`` and key custom
values by the field's label. Every function here undoes one of those, exactly once, and raises
:class:`ValueProblem` (a ``ValueError``) when a value cannot be read, so a reader can skip the record and say why.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo


class ValueProblem(ValueError):
    """A value Snipe-IT sent that cannot be decoded; the message names the value, never a secret."""


# htmlspecialchars(ENT_QUOTES) produces exactly these five; everything else in its output is literal text, so only
# these are undone (html.unescape would also turn a literal "&copy" typed by a user into "©").
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#039;": "'", "&#39;": "'", "&apos;": "'"}
_ENTITY_RE = re.compile("|".join(re.escape(entity) for entity in _ENTITIES))


def text(value: Any) -> str:
    """A string field: unescaped once; ``None`` (and Snipe-IT's ``e(null)`` = ``""``) is ``""``."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    if not isinstance(value, str):
        raise ValueProblem(f"expected a string, got {type(value).__name__}")
    return _ENTITY_RE.sub(lambda match: _ENTITIES[match.group(0)], value)


def text_or_none(value: Any) -> str | None:
    """A nullable string field: ``None`` and ``""`` are ``None``."""
    decoded = text(value)
    return decoded or None


_TAG_RE = re.compile(r"<[^>]+>")
_MARKDOWN_HTML = (
    (re.compile(r"<strong>(.*?)</strong>", re.S), r"**\1**"),
    (re.compile(r"<em>(.*?)</em>", re.S), r"*\1*"),
    (re.compile(r"<del>(.*?)</del>", re.S), r"~~\1~~"),
    (re.compile(r"<code>(.*?)</code>", re.S), r"`\1`"),
    (re.compile(r"<br\s*/?>\n?"), "  \n"),
)
_LINK_RE = re.compile(r'<a href="([^"]*)"[^>]*>(.*?)</a>', re.S)


def notes(value: Any) -> str:
    """Notes Snipe-IT renders as inline Markdown HTML (``Helper::parseEscapedMarkedownInline``): back to Markdown.

    Best effort, documented as lossy: bold, italics, strike-through, code, links and line breaks come back as
    Markdown; any other tag is dropped; then the text is unescaped once (Parsedown escapes in safe mode)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueProblem(f"expected notes as a string, got {type(value).__name__}")
    result = value
    for pattern, replacement in _MARKDOWN_HTML:
        result = pattern.sub(replacement, result)

    def link(match: re.Match[str]) -> str:
        href, label = match.group(1), match.group(2)
        return href if label == href else f"[{label}]({href})"

    result = _TAG_RE.sub("", _LINK_RE.sub(link, result))
    return text(result)


def _zone(timezone: str | dt.tzinfo) -> dt.tzinfo:
    return ZoneInfo(timezone) if isinstance(timezone, str) else timezone


def _unwrap(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        if key in value:
            return value[key]
        for other in ("datetime", "date"):
            if other in value:
                return value[other]
        raise ValueProblem(f"a date object without {key!r}: {sorted(value)}")
    return value


def _check_invalid(raw: str) -> None:
    # getFormattedDateObject answers "<value> (Invalid <type> value.)" for a stored value Carbon cannot parse.
    if raw.endswith(" value.)") and "(Invalid " in raw:
        raise ValueProblem(f"Snipe-IT could not read its own stored date: {raw!r}")


def date_value(value: Any) -> dt.date | None:
    """A ``{date, formatted}`` object, a ``{datetime, ...}`` object or a string (``Y-m-d``, ``Y-m-d H:i:s``, ISO
    8601, Laravel's raw ``m-d-Y``) as a date; ``None``/``""`` is ``None``."""
    raw = _unwrap(value, "date")
    if raw in (None, ""):
        return None
    if not isinstance(raw, str):
        raise ValueProblem(f"expected a date, got {type(raw).__name__}")
    raw = raw.strip()
    _check_invalid(raw)
    if raw.startswith("0000-00-00"):
        return None
    if re.fullmatch(r"\d{2}-\d{2}-\d{4}", raw):
        month, day, year = raw.split("-")
        raw = f"{year}-{month}-{day}"
    try:
        return dt.date.fromisoformat(raw[:10])
    except ValueError as error:
        raise ValueProblem(f"not a date: {raw!r}") from error


def datetime_value(value: Any, timezone: str | dt.tzinfo = "UTC") -> dt.datetime | None:
    """A ``{datetime, formatted}`` object (or ``{date, ...}``, or a string) as an aware datetime.

    Snipe-IT answers in its app timezone (``APP_TIMEZONE``) without saying which: a naive value is read in
    ``timezone`` (the command's ``--timezone``, default UTC); a value with an offset (Laravel's raw
    ``...000000Z``) keeps it."""
    raw = _unwrap(value, "datetime")
    if raw in (None, ""):
        return None
    if not isinstance(raw, str):
        raise ValueProblem(f"expected a date and time, got {type(raw).__name__}")
    raw = raw.strip()
    _check_invalid(raw)
    if raw.startswith("0000-00-00"):
        return None
    try:
        parsed = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueProblem(f"not a date and time: {raw!r}") from error
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_zone(timezone))
    return parsed


def ref_id(value: Any) -> int | None:
    """A nested reference ``{"id": 3, "name": ...}`` (or a bare id) as the id; ``None``/``""``/``0`` is ``None``."""
    if isinstance(value, dict):
        value = value.get("id")
    if value in (None, "", 0, "0"):
        return None
    if isinstance(value, bool):
        raise ValueProblem(f"expected an id, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError) as error:
        raise ValueProblem(f"not an id: {value!r}") from error


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def boolean(value: Any, default: bool = False) -> bool:
    """Snipe-IT's booleans: ``true``/``false``, ``0``/``1``, ``"0"``/``"1"``; ``None`` is ``default``."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueProblem(f"not a boolean: {value!r}")


def integer(value: Any) -> int | None:
    """An integer Snipe-IT may send as a string (``"12"``, department ``users_count``); ``None``/``""`` is ``None``."""
    if value in (None, ""):
        return None
    if isinstance(value, bool):
        raise ValueProblem(f"expected a number, got {value!r}")
    try:
        return int(str(value).strip())
    except ValueError as error:
        raise ValueProblem(f"not a whole number: {value!r}") from error


def money(value: Any) -> Decimal | None:
    """Money as ``Helper::formatCurrencyOutput`` renders it: ``"1,234.56"`` or, with the ``1.234,56`` digit
    separator setting, ``"1.234,56"``. It always has two decimals, so the last separator before two final digits is
    the decimal point. A JSON number is taken as is."""
    if value in (None, ""):
        return None
    if isinstance(value, bool):
        raise ValueProblem(f"not an amount: {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    if not isinstance(value, str):
        raise ValueProblem(f"not an amount: {value!r}")
    raw = value.strip()
    match = re.fullmatch(r"(-?[\d.,' ]*?)(?:([.,])(\d{1,2}))?", raw)
    if not match or not match.group(1) and not match.group(3):
        raise ValueProblem(f"not an amount: {value!r}")
    whole = re.sub(r"[.,' ]", "", match.group(1))
    fraction = match.group(3) or "0"
    try:
        return Decimal(f"{whole or '0'}.{fraction}")
    except InvalidOperation as error:
        raise ValueProblem(f"not an amount: {value!r}") from error


def months(value: Any) -> int | None:
    """``"36 months"`` (``eol``, ``warranty_months``, depreciation ``months``) as 36; ``"None"``/``None``: ``None``."""
    if value in (None, "", "None"):
        return None
    if isinstance(value, int):
        return value
    match = re.match(r"\s*(\d+)", str(value))
    if not match:
        raise ValueProblem(f"not a number of months: {value!r}")
    return int(match.group(1))


def custom_values(value: Any) -> dict[str, str]:
    """An asset's ``custom_fields`` (keyed by the field's label) as ``{db_column: value}``.

    Each entry is ``{"field": "_snipeit_mac_address_1", "value": ..., "field_format": ..., "element": ...}``. Values
    are unescaped once. A DATE field's value may be a date object or a string: it becomes ``Y-m-d``. Snipe-IT sends
    ``{}`` (or ``[]``) for an asset whose model has no fieldset."""
    if value in (None, [], {}):
        return {}
    if not isinstance(value, dict):
        raise ValueProblem(f"custom_fields is not an object: {type(value).__name__}")
    result: dict[str, str] = {}
    for label, entry in value.items():
        if not isinstance(entry, dict) or not entry.get("field"):
            raise ValueProblem(f"custom field {text(label)!r} has no db column")
        column = text(entry["field"])
        raw = entry.get("value")
        if isinstance(raw, dict):
            day = date_value(raw)
            result[column] = day.isoformat() if day else ""
        else:
            result[column] = text(raw)
    return result


def percent_or_amount(value: Any) -> tuple[Decimal, str]:
    """A depreciation's ``depreciation_min``: ``"10%"`` is ``(10, "percent")``, ``"25.00"``/``25`` is
    ``(25, "amount")``, ``None`` is ``(0, "amount")``."""
    if value in (None, ""):
        return Decimal(0), "amount"
    raw = str(value).strip()
    if raw.endswith("%"):
        amount = money(raw[:-1])
        return (amount or Decimal(0)), "percent"
    return (money(raw) or Decimal(0)), "amount"
