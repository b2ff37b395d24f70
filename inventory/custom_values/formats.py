"""Custom ``regex:/<pattern>/<flags>`` formats of custom fields, run on RE2 (issue 25 item 2; docs/custom-fields.md
"Regex formats").

Python's ``re`` backtracks: a company administrator's ``^(\\w+\\s?)*$`` took 9 seconds of a worker for 27 characters,
doubling per character, on every write of a value. RE2 (``google-re2``) matches in time linear in the value, whatever
the pattern, so a stored pattern can no longer hold a worker. On top of that, when a format is **defined**:

- a pattern that repeats a group which itself holds a variable repetition (``(a+)*``, ``(\\w+\\s?)*``,
  ``([a-z]+-)+``) is refused: the classic runaway shape, whatever the engine (a fixed count such as
  ``(\\d{1,3}\\.){3}`` and an optional item such as ``(ab?)+`` are fine);
- PCRE syntax RE2 lacks (lookarounds, backreferences, possessive quantifiers, atomic groups, ``\\Z``, conditionals,
  recursion) is refused with a field error that names it.

A format stored before (when Python's ``re`` decided) that RE2 cannot compile refuses the values written to its field
(:data:`UNCHECKABLE`) instead of crashing or letting them through unchecked, as Snipe-IT's ``preg_match`` fails the
rule for a pattern it cannot compile. Values longer than :data:`MAX_CHECKED_LENGTH` are not matched at all.

Flags: ``i``, ``m``, ``s`` become RE2's inline flags; ``x`` (verbose) is applied here (whitespace and ``#`` comments
outside classes dropped), RE2 having no such mode; ``u`` changes nothing (RE2 reads UTF-8). As in PCRE without
Unicode properties, ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII in RE2 (Python's ``re`` made them Unicode).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

PREFIX = "regex:/"
FLAGS = frozenset("imsxu")
#: Values longer than this are refused for a field with a regex format, without matching them.
MAX_CHECKED_LENGTH = 4096
FORMAT_INVALID = "The selected format is invalid."
NESTED_QUANTIFIER = ("The format must not repeat a group that itself contains a repetition (a nested quantifier such "
                     "as (a+)*).")
UNSUPPORTED = "The format uses regular expression syntax that is not supported ({detail})."
#: The field error of a value written to a field whose stored format RE2 cannot compile.
UNCHECKABLE = ("The {name} field's format cannot be checked: its pattern uses syntax that is not supported. "
               "An administrator must change the format.")

#: PCRE constructs RE2 lacks, named for the field error (checked on the pattern text, in this order).
_PCRE_ONLY = (
    (re.compile(r"\(\?<?[=!]"), "lookahead or lookbehind"),
    (re.compile(r"\\[1-9]|\\[gk][<{'\d-]|\(\?P?=|\(\?P>|\(\?&"), "backreference"),
    (re.compile(r"\(\?>"), "atomic group"),
    (re.compile(r"(?:[*+?}])\+"), "possessive quantifier"),
    (re.compile(r"\(\?\(|\(\?R\)|\(\?[+-]?[0-9]+\)"), "conditional or recursion"),
)


class FormatRegexError(ValueError):
    """A regex format that cannot be defined; ``message`` is the field error on ``format``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def split(text: str) -> tuple[str, str] | None:
    """``regex:/<pattern>/<flags>`` → (pattern, flags); None when ``text`` is not written that way."""
    if not text.startswith(PREFIX):
        return None
    pattern, slash, flags = text[len(PREFIX):].rpartition("/")
    if not slash or not pattern or any(flag not in FLAGS for flag in flags):
        return None
    return pattern, flags


def _without_verbose_space(pattern: str) -> str:
    """The pattern of ``/x``: whitespace and ``#`` comments outside character classes dropped, escapes kept."""
    out, index, in_class = [], 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index:index + 2])
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1:index + 2] == "]" or pattern[index + 1:index + 3] == "^]":
                end = index + (2 if pattern[index + 1] == "]" else 3)
                out.append(pattern[index:end])
                index = end
                continue
        elif char.isspace():
            index += 1
            continue
        elif char == "#":
            newline = pattern.find("\n", index)
            index = len(pattern) if newline < 0 else newline + 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a refused pattern is a field error, not a line on the worker's stderr
    return options


def _re2_source(pattern: str, flags: str) -> str:
    if "x" in flags:
        pattern = _without_verbose_space(pattern)
    inline = "".join(flag for flag in "ims" if flag in flags)
    return f"(?{inline}){pattern}" if inline else pattern


@lru_cache(maxsize=512)
def compiled(text: str) -> Any:
    """The RE2 program of a stored ``regex:/p/flags`` format (cached: every write of a value asks), or None when
    ``text`` is not a regex format or RE2 cannot compile it."""
    parts = split(text)
    if parts is None:
        return None
    try:
        return re2.compile(_re2_source(*parts), _options())
    except (re2.error, ValueError, TypeError, OverflowError):
        return None


def definition_error(text: str) -> str | None:
    """Why ``text`` (a ``regex:/p/flags`` format being defined) is refused, or None when it may be stored."""
    parts = split(text)
    if parts is None:
        return FORMAT_INVALID
    pattern, flags = parts
    source = _re2_source(pattern, flags)
    try:
        re2.compile(source, _options())
    except (re2.error, ValueError, TypeError, OverflowError) as exc:
        return _unsupported(pattern, exc)
    if nested_quantifier(source):
        return NESTED_QUANTIFIER
    return None


def _unsupported(pattern: str, exc: Exception) -> str:
    for construct, name in _PCRE_ONLY:
        if construct.search(pattern):
            return UNSUPPORTED.format(detail=name)
    try:
        re.compile(pattern)
    except (re.error, ValueError, OverflowError, RecursionError):
        return FORMAT_INVALID  # no engine takes it: a broken pattern, not a PCRE feature
    reason = exc.args[0] if exc.args else exc
    reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    return UNSUPPORTED.format(detail=reason[:120])


# --- nested quantifiers ---------------------------------------------------------------------------------------------

_COUNTED = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_UNBOUNDED = 1 << 30


def _quantifier(pattern: str, index: int) -> tuple[int, int, int] | None:
    """(min, max, length) of the quantifier at ``index`` (its lazy ``?`` included), or None when there is none."""
    char = pattern[index]
    if char in "*+?":
        low, high, length = {"*": (0, _UNBOUNDED), "+": (1, _UNBOUNDED), "?": (0, 1)}[char] + (1,)
    elif char == "{" and (match := _COUNTED.match(pattern, index)):
        low = int(match.group(1))
        high = low if match.group(2) is None else (int(match.group(3)) if match.group(3) else _UNBOUNDED)
        length = match.end() - index
    else:
        return None
    if pattern[index + length:index + length + 1] == "?":
        length += 1
    return low, high, length


def _varies(low: int, high: int) -> bool:
    """A repetition that can match a varying number of times, more than once: the ambiguous kind."""
    return high > 1 and high != low


def _skip_class(pattern: str, index: int) -> int:
    """The index after the character class opening at ``index``."""
    index += 1
    if pattern[index:index + 1] == "^":
        index += 1
    if pattern[index:index + 1] == "]":
        index += 1
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
        elif pattern.startswith("[:", index) and (end := pattern.find(":]", index + 2)) >= 0:
            index = end + 2
        elif pattern[index] == "]":
            return index + 1
        else:
            index += 1
    return index


def _skip_escape(pattern: str, index: int) -> int:
    """The index after the escape at ``index`` (``\\p{Greek}``, ``\\x{41}`` and ``\\Q...\\E`` whole)."""
    letter = pattern[index + 1:index + 2]
    if letter in ("p", "P", "x") and pattern[index + 2:index + 3] == "{":
        end = pattern.find("}", index + 3)
        return len(pattern) if end < 0 else end + 1
    if letter == "Q":
        end = pattern.find("\\E", index + 2)
        return len(pattern) if end < 0 else end + 2
    return index + 2


def nested_quantifier(pattern: str) -> bool:
    """True when a repetition that varies (``*``, ``+``, ``{1,5}``) applies to a group containing one that varies."""
    groups: list[bool] = [False]  # per open group: does it contain a varying repetition?
    atom_varies = False  # the last atom (a closed group) contains a varying repetition
    index = 0
    while index < len(pattern):
        char = pattern[index]
        quantifier = _quantifier(pattern, index) if index else None
        if quantifier is not None:
            low, high, length = quantifier
            if _varies(low, high):
                if atom_varies:
                    return True
                groups[-1] = True
            atom_varies = False
            index += length
            continue
        atom_varies = False
        if char == "\\":
            index = _skip_escape(pattern, index)
        elif char == "[":
            index = _skip_class(pattern, index)
        elif char == "(":
            if pattern.startswith("(?", index):
                end = next((at for at in range(index + 2, len(pattern)) if pattern[at] in ":)>"), len(pattern))
                if pattern[end:end + 1] == ")":  # ``(?i)``: flags, not a group
                    index = end + 1
                    continue
                index = end + 1
            else:
                index += 1
            groups.append(False)
        elif char == ")" and len(groups) > 1:
            inner = groups.pop()
            groups[-1] = groups[-1] or inner
            atom_varies = inner
            index += 1
        else:
            index += 1
    return False


def matches(text: str, value: str) -> bool | None:
    """Whether ``value`` holds a match of the stored format ``text``; None when RE2 cannot compile the format."""
    program = compiled(text)
    if program is None:
        return None
    return program.search(value) is not None
