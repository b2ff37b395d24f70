"""Output formats fixed by the specification and API-CONTRACT.md §3."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone


def iso_utc(value: datetime | None) -> str | None:
    """Item timestamps: ISO 8601 in UTC, seconds precision (``2026-03-01T14:05:00Z``)."""
    if value is None:
        return None
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="seconds")[:19] + "Z"  # C-fast; strftime took a third of a record's time


def iso_utc_micro(value: datetime | None) -> str | None:
    """Token timestamps: ISO 8601 UTC with microseconds (``2026-03-01T14:05:00.123456Z``)."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def iso_date(value: date | None) -> str | None:
    return value.isoformat() if value else None


def datetime_object(value: datetime | None) -> dict[str, str] | None:
    """Snipe-IT's ``{"datetime": "YYYY-MM-DD HH:MM:SS", "formatted": "YYYY-MM-DD hh:mm AM"}`` (users)."""
    if value is None:
        return None
    local = timezone.localtime(value)
    return {"datetime": local.strftime("%Y-%m-%d %H:%M:%S"), "formatted": local.strftime("%Y-%m-%d %I:%M %p")}


def money(value: Decimal | None) -> str | None:
    """``purchase_cost`` as a string with two decimals (``"1234.50"``)."""
    if value is None:
        return None
    return f"{Decimal(value):.2f}"


def brief(obj: Any, name_attr: str = "name") -> dict[str, Any] | None:
    """Nested objects: ``{"id", "name"}`` or null."""
    if obj is None:
        return None
    return {"id": obj.pk, "name": getattr(obj, name_attr)}
