"""Lenient request parsing, as Laravel reads requests (API-CONTRACT.md §1)."""

from __future__ import annotations

import json
import math
from typing import Any

from django.http import QueryDict
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class OutOfRangeNumber:
    """A JSON number beyond a double (``1e999``): Python reads it as ``inf``, which a text field then stored as the
    text ``inf`` (issue 25 item 9). The parser keeps it as this marker; reading the input refuses it as a field error
    on its key (``assetsvc.api.inputs.input_problems``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"OutOfRangeNumber({self.text!r})"


def _number(text: str) -> float | OutOfRangeNumber:
    value = float(text)
    return value if math.isfinite(value) else OutOfRangeNumber(text)


class LenientJSONParser(BaseParser):
    """JSON, and form-encoded bodies that clients label ``application/json``.

    A body that starts with ``{`` or ``[`` must be valid JSON (else ``Invalid JSON``, 422); any other non-empty body
    is read as ``a=1&b=2``.
    """

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError("Invalid JSON") from exc
        stripped = text.strip()
        if not stripped:
            return {}
        if stripped[0] in "{[":
            try:
                return json.loads(stripped, parse_constant=_reject_constant, parse_float=_number)
            except (ValueError, RecursionError) as exc:
                raise ParseError("Invalid JSON") from exc
        return QueryDict(stripped, encoding="utf-8")
