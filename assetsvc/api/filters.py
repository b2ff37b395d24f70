"""Filter types shared by every list."""

from __future__ import annotations

import django_filters
from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

MAX_ID = 2**63 - 1


def parse_id(value) -> int | None:
    """An id from a query string: ``"12"`` or ``12``; None for text, fractions, or numbers beyond a database id."""
    text = str(value).strip()
    if not text.lstrip("-").isdigit() or len(text) > 20:
        return None
    number = int(text)
    return number if -MAX_ID <= number <= MAX_ID else None


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(django_filters.Filter):
    """Equality on an id column. A value that cannot be an id (``abc``, ``1.5``, ``3.4e38``) matches nothing, as
    Snipe-IT's ``where(col, value)`` does, instead of overflowing the database driver (found by fuzzing)."""

    field_class = forms.CharField

    def filter(self, qs, value):
        if value in (None, ""):
            return qs
        number = parse_id(value)
        if number is None:
            return qs.none()
        return super().filter(qs, number)
