"""The one writer of action-log rows. Every service that records a domain verb (assets, the catalogue, companies,
users) calls :func:`log_action` inside its transaction, so every row is filled the same way, including where the
request came from (``assetsvc.request_meta``, set for every request by the middleware)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.utils import timezone

from activity.models import ActionLog
from assetsvc.request_meta import current_request_meta


def log_action(
    *,
    action_type: str,
    item_type: str,
    item_id: int,
    actor: AbstractBaseUser | None,
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
    meta = current_request_meta()
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


def log_actions_bulk(rows: list[dict[str, Any]]) -> list[ActionLog]:
    """Write many action-log rows in one statement (the CSV importer's batches), each filled as :func:`log_action`
    fills one: ``rows`` hold its keyword arguments (``actor`` and the ids)."""
    meta = current_request_meta()
    now = timezone.now()
    logs = [
        ActionLog(
            action_type=row["action_type"],
            created_by=row.get("actor") if row.get("actor") is not None and row["actor"].pk else None,
            item_type=row["item_type"],
            item_id=row["item_id"],
            target_type=row.get("target_type", ""),
            target_id=row.get("target_id"),
            location_id=row.get("location_id"),
            company_id=row.get("company_id"),
            note=row.get("note") or "",
            log_meta=row.get("log_meta") or None,
            action_date=row.get("action_date") or now,
            action_source=meta.get("action_source", "api"),
            remote_ip=meta.get("remote_ip", ""),
            user_agent=meta.get("user_agent", ""),
        )
        for row in rows
    ]
    return ActionLog.objects.bulk_create(logs, batch_size=1000)
