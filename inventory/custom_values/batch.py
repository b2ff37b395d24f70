"""Storing the custom values of many assets at once (issue 25: the bulk paths): the value rows of a batch are planned
asset by asset (:func:`plan_values`, :func:`inventory.custom_values.write_values` without writing) and stored together
(:func:`apply_writes`) in a fixed number of statements, with the batch's unique values judged in one query
(:func:`unique_holders`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError

from inventory.custom_values import CustomInput, _lock_fields, _logged, _separated, plain, unique_scope, unique_taken
from inventory.custom_values.crypto import encrypt, unique_digest
from inventory.models import AssetFieldValue, CustomField


@dataclass
class ValueWrites:
    """The value rows of a batch, planned asset by asset (:func:`plan_values`) and stored together
    (:func:`apply_writes`) in a fixed number of statements, whatever the number of assets."""

    inserts: list[AssetFieldValue] = field(default_factory=list)
    updates: list[AssetFieldValue] = field(default_factory=list)
    deletes: list[int] = field(default_factory=list)
    #: :func:`claim_key` → the asset of this batch that writes it (the first one; later ones fail).
    claimed: dict[tuple[int, str, int], Any] = field(default_factory=dict)


def stored_rows_of(asset_ids: Iterable[int]) -> dict[int, dict[int, AssetFieldValue]]:
    """asset id → field id → stored row, for many assets in one query (:func:`stored_rows` of each)."""
    rows: dict[int, dict[int, AssetFieldValue]] = {}
    ids = list(asset_ids)
    if ids:
        for row in AssetFieldValue.objects.filter(asset_id__in=ids).order_by():
            rows.setdefault(row.asset_id, {})[row.field_id] = row
    return rows


def _unique_wanted(custom: CustomInput) -> dict[tuple[int, str], CustomField]:
    return {(field_.pk, unique_digest(text, encrypted=field_.field_encrypted)): field_
            for field_, text in custom.values.values() if field_.is_unique and text is not None}


def claim_key(field_id: int, key: str, scope: int) -> tuple[int, str, int]:
    """What a unique value is unique as: per company (``scope``, :func:`unique_scope`) with separation on, across
    all companies with it off (the scope then always 0)."""
    return (field_id, key, scope if _separated() else 0)


def unique_holders(customs: Iterable[CustomInput | None]) -> dict[tuple[int, str, int], set[int]]:
    """:func:`claim_key` → the assets holding that value now, for every unique value of the batch's inputs, in one
    query (none without unique values): :func:`read_input`'s check, made once for the batch. With separation off the
    fields are locked first (:func:`_lock_fields`: the constraint is per company only), so call it inside the
    batch's transaction."""
    wanted: set[tuple[int, str]] = set()
    for custom in customs:
        if custom is not None:
            wanted.update(_unique_wanted(custom))
    holders: dict[tuple[int, str, int], set[int]] = {}
    if wanted:
        _lock_fields(pk for pk, _ in wanted)
        taken = AssetFieldValue.objects.filter(unique_key__in={key for _, key in wanted},
                                               field_id__in={pk for pk, _ in wanted})
        for asset_id, field_id, key, scope in taken.values_list("asset_id", "field_id", "unique_key", "unique_scope"):
            if (field_id, key) in wanted:
                holders.setdefault(claim_key(field_id, key, scope), set()).add(asset_id)
    return holders


def plan_values(asset: Any, custom: CustomInput, rows: Mapping[int, AssetFieldValue], writes: ValueWrites,
                holders: Mapping[tuple[int, str, int], set[int]], *, owner: Any = None) -> dict[str, dict]:
    """:func:`write_values` for one asset of a batch, without writing: adds its rows to ``writes`` and returns its
    changes (``log_meta`` entries). A unique value another asset holds (``holders``) or an earlier asset of the batch
    claimed is the field's error (``ValidationError``), and then nothing of this asset is planned. ``owner``: who
    claims the asset's unique values (its pk by default; the CSV import's row before the asset exists)."""
    owner = asset.pk if owner is None else owner
    live = asset.deleted_at is None
    scope = unique_scope(asset)
    errors: dict[str, list[str]] = {}
    for (field_id, key), field_ in _unique_wanted(custom).items():
        claim = claim_key(field_id, key, scope)
        others = holders.get(claim, set()) - {asset.pk}
        if live and (others or writes.claimed.get(claim, owner) != owner):
            errors[field_.db_column_name] = [unique_taken(field_)]
    if errors:
        raise ValidationError(errors)
    changes: dict[str, dict] = {}
    inserts, updates, deletes, claims = [], [], [], {}
    for field_, text in custom.values.values():
        row = rows.get(field_.pk)
        old = plain(field_, row.value) if row is not None else None
        if text == old or (text is None and row is None):
            continue
        changes[field_.db_column_name] = {"old": _logged(field_, old), "new": _logged(field_, text)}
        if text is None:
            deletes.append(row.pk)
            continue
        value = encrypt(text) if field_.field_encrypted else text
        unique_key = unique_digest(text, encrypted=field_.field_encrypted) if field_.is_unique and live else None
        row_scope = scope if unique_key is not None else 0
        if unique_key is not None:
            claims[claim_key(field_.pk, unique_key, scope)] = owner
        if row is None:
            inserts.append(AssetFieldValue(asset_id=asset.pk, field=field_, value=value, unique_key=unique_key,
                                           unique_scope=row_scope))
        else:
            row.value, row.unique_key, row.unique_scope = value, unique_key, row_scope
            updates.append(row)
    writes.inserts += inserts
    writes.updates += updates
    writes.deletes += deletes
    writes.claimed.update(claims)
    return changes


def apply_writes(writes: ValueWrites) -> None:
    """Store a batch's planned rows: one ``DELETE``, one ``UPDATE`` per value several rows share (a bulk change's
    plain value), one ``UPDATE ... CASE`` for the rest (encrypted tokens all differ), one multi-row ``INSERT``. Runs in
    the caller's transaction; an ``IntegrityError`` (a concurrent writer stored a unique value first) is the
    caller's to handle (the bulk paths redo the batch row by row, where each row gets its field error)."""
    if writes.deletes:
        AssetFieldValue.objects.filter(pk__in=writes.deletes)._raw_delete(AssetFieldValue.objects.db)
    groups: dict[tuple[int, str, str | None, int], list[AssetFieldValue]] = {}
    for row in writes.updates:
        groups.setdefault((row.field_id, row.value, row.unique_key, row.unique_scope), []).append(row)
    each = []  # values of one row (encrypted tokens, a CSV file's own values): one UPDATE ... CASE for all
    for (_, value, unique_key, scope), rows in groups.items():
        if len(rows) == 1:
            each += rows
        else:
            AssetFieldValue.objects.filter(pk__in=[row.pk for row in rows]).update(
                value=value, unique_key=unique_key, unique_scope=scope)
    if each:
        AssetFieldValue.objects.bulk_update(each, ["value", "unique_key", "unique_scope"])
    if writes.inserts:
        AssetFieldValue.objects.bulk_create(writes.inserts)
