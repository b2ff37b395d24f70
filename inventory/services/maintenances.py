"""Domain verbs of maintenances: create, update and (soft) delete, each in one transaction with the rows it
changes locked and one action-log row (item ``maintenance``, target its asset, company its asset's company).

``asset_maintenance_time`` is always computed here from the two dates (days from start to completion, null while
open): Snipe-IT computes it in its web forms only, so a maintenance closed through its API kept a null time. A
completion date before the start date is refused (Snipe-IT stored a negative span as its absolute value).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update
from inventory.models import Asset, Maintenance

ITEM_TYPE = "maintenance"
#: Snipe-IT's ``findOrFail`` text (``<Model> not found``), for every route on one maintenance.
NOT_FOUND = "AssetMaintenance not found"
ASSET_INVALID = "The selected asset id is invalid."
COMPLETION_BEFORE_START = "The completion date must be a date after or equal to start date."
#: Snipe-IT's update of a maintenance whose asset was deleted (``general.item_not_found``).
ASSET_DELETED = "Asset ID {id} does not exist or has been deleted"
DELETED = "This maintenance has been deleted."


def maintenance_time(start: date | None, completion: date | None) -> int | None:
    """Days from ``start`` to ``completion``; None while open."""
    if start is None or completion is None:
        return None
    return (completion - start).days


def _lock_asset(asset: Asset | int, actor: User | None) -> Asset:
    """The maintained asset, locked: live and visible to ``actor`` (company separation), else the asset_id error
    (another company's asset is as unknown as a missing one)."""
    rows = Asset.objects.restrict(actor).filter(deleted_at__isnull=True) if actor is not None else (
        Asset.objects.filter(deleted_at__isnull=True))
    return lock_or_not_found(rows, asset, lambda: InvalidInputError(ASSET_INVALID,
                                                                   messages={"asset_id": [ASSET_INVALID]}))


def _timed(data: dict[str, Any], current: Maintenance | None = None) -> dict[str, Any]:
    """``data`` plus the ``asset_maintenance_time`` of the dates it leaves (a completion before the start is
    refused)."""
    start = data.get("start_date", getattr(current, "start_date", None))
    completion = data.get("completion_date", getattr(current, "completion_date", None))
    if completion is not None and start is not None and completion < start:
        raise InvalidInputError(COMPLETION_BEFORE_START, messages={"completion_date": [COMPLETION_BEFORE_START]})
    return {**data, "asset_maintenance_time": maintenance_time(start, completion)}


def _log(action: str, maintenance: Maintenance, actor: User | None, meta: dict | None = None) -> None:
    asset = maintenance.asset
    log_action(action_type=action, item_type=ITEM_TYPE, item_id=maintenance.pk, actor=actor,
               company_id=asset.company_id, target_type="asset", target_id=asset.pk, item=maintenance, target=asset,
               log_meta=meta)


@transaction.atomic
def maintenance_create(*, data: dict[str, Any], actor: User | None, pk: int | None = None,
                       log: bool = True) -> Maintenance:
    """Record a maintenance of ``data["asset"]`` (a live asset ``actor`` may see), locking the asset so it cannot be
    deleted meanwhile; log ``create new``. ``pk`` and ``log=False``: the Snipe-IT import (issue 31) keeps the id and
    takes the history from Snipe-IT's log."""
    data = dict(data)
    asset = _lock_asset(data.pop("asset"), actor)
    maintenance = Maintenance(asset=asset, **_timed(data))
    if pk is not None:
        maintenance.pk = pk
    if actor is not None and actor.pk:
        maintenance.created_by = actor
    maintenance.save(force_insert=pk is not None)
    if log:
        _log(ActionType.CREATE, maintenance, actor)
    return maintenance


@transaction.atomic
def maintenance_update(*, maintenance: Maintenance, data: dict[str, Any], actor: User | None) -> Maintenance:
    """Apply validated (partial) changes, the maintenance locked first (and its asset, or the new one); recompute
    the time; log the changed columns. A maintenance of a deleted asset cannot be changed (Snipe-IT's refusal)."""
    locked = lock_or_not_found(Maintenance.objects.select_related("asset"), maintenance,
                               lambda: NotFoundError(NOT_FOUND))
    if locked.deleted_at is not None:
        raise NotFoundError(NOT_FOUND)
    if locked.asset.deleted_at is not None:
        raise ConflictError(ASSET_DELETED.format(id=locked.asset_id), code="asset_deleted")
    data = dict(data)
    if "asset" in data:
        data["asset"] = _lock_asset(data["asset"], actor)
    changes = model_update(locked, _timed(data, locked))
    if changes:
        locked.save()
        _log(ActionType.UPDATE, locked, actor, changes)
    return locked


@transaction.atomic
def maintenance_delete(*, maintenance: Maintenance, actor: User | None) -> Maintenance:
    """Soft-delete a maintenance (nothing blocks it, as in Snipe-IT); log ``delete``."""
    locked = lock_or_not_found(Maintenance.objects.select_related("asset"), maintenance,
                               lambda: NotFoundError(NOT_FOUND))
    if locked.deleted_at is not None:
        raise NotFoundError(NOT_FOUND)
    locked.deleted_at = timezone.now()
    locked.save(update_fields=["deleted_at", "updated_at"])
    _log(ActionType.DELETE, locked, actor)
    return locked
