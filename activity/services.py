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

#: Item types whose ``serial`` is a secret that is never written to the log (a license's product key).
UNRECORDED_SERIALS = frozenset({"license"})


def recorded_name(obj: Any) -> str | None:
    """The name a log row records for ``obj``: a person's full name, else its name, else its asset tag."""
    if obj is None:
        return None
    full_name = getattr(obj, "full_name", None)
    if full_name is not None and hasattr(obj, "username"):
        name = full_name
    else:
        name = getattr(obj, "name", None) or getattr(obj, "asset_tag", None) or str(obj)
    return str(name)[:255] if name is not None else None


def recorded_item(item: Any, item_type: str) -> dict[str, Any]:
    """``item_name`` / ``item_serial`` of a row about ``item`` (nothing when no item is given)."""
    if item is None:
        return {}
    serial = None if item_type in UNRECORDED_SERIALS else getattr(item, "serial", None)
    return {"item_name": recorded_name(item), "item_serial": str(serial)[:255] if serial else None}


def target_company_of(target: Any) -> int | None:
    """The company of a target that has one (a user, an asset, a location of a company)."""
    return getattr(target, "company_id", None) if target is not None else None


def log_action(
    *,
    action_type: str,
    item_type: str,
    item_id: int,
    actor: AbstractBaseUser | None,
    company_id: int | None,
    target_type: str = "",
    target_id: int | None = None,
    item: Any = None,
    target: Any = None,
    location_id: int | None = None,
    note: str = "",
    log_meta: dict[str, Any] | None = None,
    expected_checkin: date | None = None,
    action_date: datetime | None = None,
) -> ActionLog:
    """Write one action-log row (``action_date`` defaults to now; an unsaved actor is recorded as nobody).

    ``item`` (the row's item) records its name and serial as they are now; ``target`` records its company, so the
    target's company sees the row without the item (issue 25)."""
    meta = current_request_meta()
    return ActionLog.objects.create(
        action_type=action_type,
        created_by=actor if actor is not None and actor.pk else None,
        item_type=item_type,
        item_id=item_id,
        **recorded_item(item, item_type),
        target_type=target_type,
        target_id=target_id,
        target_company_id=target_company_of(target),
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
    fills one: ``rows`` hold its keyword arguments (``actor``, ``item``, ``target`` and the ids)."""
    meta = current_request_meta()
    now = timezone.now()
    logs = [
        ActionLog(
            action_type=row["action_type"],
            created_by=row.get("actor") if row.get("actor") is not None and row["actor"].pk else None,
            item_type=row["item_type"],
            item_id=row["item_id"],
            **recorded_item(row.get("item"), row["item_type"]),
            target_type=row.get("target_type", ""),
            target_id=row.get("target_id"),
            target_company_id=target_company_of(row.get("target")),
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
