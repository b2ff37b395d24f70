"""The one writer of action-log rows. Every service that records a domain verb (assets, the catalogue, companies,
users) calls :func:`log_action` inside its transaction, so every row is filled the same way, including where the
request came from when the view said so (:func:`set_request_meta`)."""

from __future__ import annotations

from contextvars import ContextVar
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from inventory.models import ActionLog

if TYPE_CHECKING:
    from accounts.models import User

#: Where the current request came from (set by the API views), recorded on each ActionLog row.
_request_meta: ContextVar[dict[str, str] | None] = ContextVar("inventory_request_meta", default=None)


def set_request_meta(*, remote_ip: str = "", user_agent: str = "", action_source: str = "api"):
    """Remember the caller's address and agent for the log rows written while handling this request."""
    return _request_meta.set({"remote_ip": (remote_ip or "")[:64], "user_agent": (user_agent or "")[:255],
                              "action_source": action_source[:16]})


def reset_request_meta(token) -> None:
    _request_meta.reset(token)


def log_action(
    *,
    action_type: str,
    item_type: str,
    item_id: int,
    actor: User | None,
    company_id: int | None,
    target_type: str = "",
    target_id: int | None = None,
    location_id: int | None = None,
    note: str = "",
    log_meta: dict[str, Any] | None = None,
    expected_checkin: date | None = None,
    action_date: datetime | None = None,
) -> ActionLog:
    """Write one action-log row (``action_date`` defaults to now; an unsaved actor is recorded as nobody)."""
    meta = _request_meta.get() or {}
    return ActionLog.objects.create(
        action_type=action_type,
        created_by=actor if actor is not None and actor.pk else None,
        item_type=item_type,
        item_id=item_id,
        target_type=target_type,
        target_id=target_id,
        location_id=location_id,
        company_id=company_id,
        note=note or "",
        log_meta=log_meta or None,
        expected_checkin=expected_checkin,
        action_date=action_date or timezone.now(),
        action_source=meta.get("action_source", "api"),
        remote_ip=meta.get("remote_ip", ""),
        user_agent=meta.get("user_agent", ""),
    )
