"""Bulk verbs on hardware assets (issue 25): :func:`asset_update_many`, one change for many assets in a fixed number of
statements, and :func:`update_many_is_set_based`, whether a change may take that path (the row path is
``inventory.services.assets.asset_update`` per asset)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.services import log_actions_bulk
from assetsvc.site import get_site_settings
from inventory import custom_values, signals
from inventory.custom_values import batch as value_batch
from inventory.exceptions import (
    AssetNotFoundError,
)
from inventory.models import Asset
from inventory.services.assets import UNLOGGED_FIELDS, _changes, _company_for_write
from inventory.services.checkout import (
    log_company_id,
)


class BatchConflict(Exception):
    """A concurrent writer stored a unique custom value a set-based batch also writes (the partial unique constraint
    refused the batch's statement): nothing of the batch was written; redo it row by row."""


def update_many_is_set_based(data: dict[str, Any]) -> bool:
    """Whether :func:`asset_update_many` takes this change: not a serial under ``unique_serial`` (one asset at most
    may take it; the row path judges each under the settings lock), not a company change (each asset's unique custom
    values then move to the new company: ``custom_values.rescope_unique_values``, row by row)."""
    return not ("serial" in data and (data["serial"] or "") and get_site_settings().unique_serial) \
        and "company" not in data


@transaction.atomic
def asset_update_many(*, assets: list[Asset], actor: User, data: dict[str, Any],
                      customs: dict[int, custom_values.CustomInput | None]) -> dict[int, Asset | Exception]:
    """:func:`asset_update` of one change (no checkout) for many assets, set-based (issue 25): every asset locked in
    one ``SELECT ... FOR UPDATE`` (in id order), each row's change and custom values judged in memory as
    :func:`asset_update` judges them (row-local limits, unique custom values against the database and the earlier
    rows of the batch), then one ``UPDATE`` per distinct set of values, the custom value rows
    (``value_batch.apply_writes``), one multi-row ``INSERT`` of the action-log rows (one per changed asset, with
    its changes) and the update signal per changed asset. ``customs``: asset id → its input read with
    ``check_unique=False`` (without errors). Returns asset id → the updated asset, or the row's error.

    Raises :class:`BatchConflict` (the whole batch undone) when a concurrent writer took a unique value meanwhile."""
    outcome: dict[int, Asset | Exception] = {}
    locked = {row.pk: row for row in Asset.objects.select_for_update().filter(pk__in=[a.pk for a in assets])
              .order_by("pk")}
    data = dict(data)
    if "company" in data:
        data["company"] = _company_for_write(actor, data["company"])
    holders = value_batch.unique_holders(customs.values())
    stored = value_batch.stored_rows_of([pk for pk, custom in customs.items() if custom is not None])
    writes = value_batch.ValueWrites()
    now = timezone.now()
    groups: dict[tuple, list[Asset]] = {}
    changed: list[tuple[Asset, dict[str, dict]]] = []
    for asset in assets:
        row = locked.get(asset.pk)
        try:
            if row is None or row.is_deleted:
                raise AssetNotFoundError()
            change = dict(data)
            if "rtd_location" in change and "location" not in change and not row.is_assigned:
                change["location"] = change["rtd_location"]
            # only the changed columns are compared (asset_update snapshots every column: the others cannot differ)
            fields = [Asset._meta.get_field(name) for name in change]
            before = {f.attname: f.to_python(getattr(row, f.attname)) for f in fields}
            for name, value in change.items():
                setattr(row, name, value)
            row.clean()
            changes = _changes(before, {f.attname: f.to_python(getattr(row, f.attname)) for f in fields},
                               UNLOGGED_FIELDS)
            custom = customs.get(asset.pk)
            if custom is not None:
                changes.update(value_batch.plan_values(row, custom, stored.get(row.pk, {}), writes, holders))
        except (ValidationError, AssetNotFoundError) as exc:
            outcome[asset.pk] = exc
            continue
        outcome[asset.pk] = row
        if changes:
            row.updated_at = now
            columns = tuple(sorted({Asset._meta.get_field(name).attname for name in change}))
            key = tuple((column, getattr(row, column)) for column in columns)
            groups.setdefault(key, []).append(row)
            changed.append((row, changes))
    try:
        with transaction.atomic():
            for key, rows in groups.items():
                Asset.objects.filter(pk__in=[row.pk for row in rows]).update(**dict(key), updated_at=now)
            value_batch.apply_writes(writes)
    except IntegrityError as exc:
        raise BatchConflict() from exc
    logs = log_actions_bulk([{"action_type": ActionType.UPDATE, "item_type": "asset", "item_id": row.pk,
                              "item": row, "actor": actor, "company_id": log_company_id(actor, row, None),
                              "log_meta": changes, "action_date": now} for row, changes in changed])
    for (row, _), log in zip(changed, logs, strict=True):
        signals.send_lifecycle("asset", ActionType.UPDATE, item=row, actor=actor, log=log)
    return outcome
