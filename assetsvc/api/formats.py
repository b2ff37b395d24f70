"""Output formats fixed by the specification and API-CONTRACT.md §3."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from assetsvc.conf import app_settings


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


def date_object(value: date | None) -> dict[str, str] | None:
    """Snipe-IT's dates: ``{"date": "YYYY-MM-DD", "formatted": "YYYY-MM-DD"}`` (its default display format)."""
    if value is None:
        return None
    text = value.isoformat()
    return {"date": text, "formatted": text}


def record_formats() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """How records of assets, items, catalogue entries, companies and action-log rows render ``(timestamps,
    dates)``: ISO strings by default, or Snipe-IT's objects under ``API_DATE_FORMAT=snipeit`` (API-CONTRACT.md
    §3; jamf2snipe reads ``rows[0].updated_at.datetime``). Users, ``/users/me``, groups and token records keep their
    own shapes. A record builder asks once per record, not once per value."""
    if app_settings.API_DATE_FORMAT == "snipeit":
        return datetime_object, date_object
    return iso_utc, iso_date


def record_timestamp(value: datetime | None) -> Any:
    return record_formats()[0](value)


def record_date(value: date | None) -> Any:
    return record_formats()[1](value)


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
