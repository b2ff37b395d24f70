"""Domain verbs of custom fields and fieldsets (API-CONTRACT.md §11, docs/custom-fields.md): create, update and
delete a field or a fieldset, add a field to a set, take it out, and reorder a set. The API, the admin and commands
call these; each runs in one transaction, locks the rows it changes and writes one action-log row.

Rules kept here, under lock, whatever the caller validated before:

- a field's ``db_column_name`` is given once, at creation (``_snipeit_`` + slug of the name cut to 50 characters,
  then ``_<id>``), and never changes;
- ``field_encrypted`` cannot change after creation;
- a field that belongs to a fieldset, and a fieldset that has fields or models, cannot be deleted; deleting a field
  deletes its values on every asset;
- a new fieldset receives every field flagged ``auto_add_to_fieldsets``;
- a new order lists every field of the set exactly once.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from django.db import models, transaction
from django.db.models import Max

from accounts.models import User
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update, save_unique
from inventory.choices import FIELD_FORMATS
from inventory.custom_values import formats as format_regex
from inventory.models import (
    COLUMN_BASE_LENGTH,
    COLUMN_PREFIX,
    AssetFieldValue,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
)
from inventory.services.catalogue import ensure_may_change_shared

FIELD_NOT_FOUND = "That field does not exist."
FIELDSET_NOT_FOUND = "Fieldset does not exist"
FIELD_IN_USE = "Field is in use."
FIELDSET_IN_USE = "Fieldset is in use."
ENCRYPTION_FIXED = "Encryption cannot be changed after the field is created."
FORMAT_INVALID = format_regex.FORMAT_INVALID
NAME_TAKEN = "The name has already been taken."
COLUMN_TAKEN = "Another field already uses this database column."
ORDER_INVALID = "The item must list every field of the fieldset exactly once."
ITEM_TYPES = {CustomField: "customfield", CustomFieldset: "customfieldset"}
_RULE_NAMES = {rule.lower(): name for name, rule in FIELD_FORMATS.items() if rule and not rule.startswith("regex:")}


# --- pure rules (shared with the serializers and the admin forms) -------------------------------------------------


def column_slug(name: str) -> str:
    """Accents decomposed and dropped, lower case, runs of anything but ``a-z0-9`` as one ``_``, trimmed."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


def column_name_for(name: str, pk: int) -> str:
    """``_snipeit_<slug>`` cut to 50 characters, then ``_<id>``: "MAC Address", id 7 → ``_snipeit_mac_address_7``."""
    return f"{(COLUMN_PREFIX + column_slug(name))[:COLUMN_BASE_LENGTH]}_{pk}"


def normalize_format(value: str) -> str | None:
    """A format as stored: a predefined format's name (from its name or its Laravel rule spelling, any case), or a
    custom ``regex:/p/flags`` that RE2 runs (``inventory.custom_values.formats``); None when neither."""
    return _normalized(value)[0]


def format_problem(value: str) -> str | None:
    """The field error on ``format`` for ``value``, or None when it may be stored."""
    return _normalized(value)[1]


def _normalized(value: str) -> tuple[str | None, str | None]:
    text = value.strip()
    if text.upper() in FIELD_FORMATS:
        return text.upper(), None
    if text.lower() in _RULE_NAMES:
        return _RULE_NAMES[text.lower()], None
    for name, rule in FIELD_FORMATS.items():
        if rule.startswith("regex:") and text == rule:
            return name, None
    problem = format_regex.definition_error(text)
    return (None, problem) if problem else (text, None)


def field_name_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    rows = CustomField.objects.filter(name__iexact=name.strip())
    return rows.exclude(pk=exclude_pk).exists() if exclude_pk else rows.exists()


def fieldset_name_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    rows = CustomFieldset.objects.filter(name__iexact=name.strip())
    return rows.exclude(pk=exclude_pk).exists() if exclude_pk else rows.exists()


def field_in_use(field: CustomField) -> bool:
    return CustomFieldsetField.objects.filter(field=field).exists()


def fieldset_in_use(fieldset: CustomFieldset) -> bool:
    return fieldset.memberships.exists() or fieldset.models.exists()


# --- helpers ------------------------------------------------------------------------------------------------------


def _log(*, action: str, item: models.Model, actor: User | None, meta: dict | None = None) -> None:
    log_action(action_type=action, item_type=ITEM_TYPES[type(item)], item_id=item.pk,
               actor=actor if actor is not None and actor.pk else None, company_id=None, item=item, log_meta=meta)


def _taken(exc: Exception) -> InvalidInputError:
    return InvalidInputError(NAME_TAKEN, messages={"name": [NAME_TAKEN]})


def _locked_field(field: CustomField | int) -> CustomField:
    return lock_or_not_found(CustomField, field, lambda: NotFoundError(FIELD_NOT_FOUND))


def _locked_fieldset(fieldset: CustomFieldset | int) -> CustomFieldset:
    return lock_or_not_found(CustomFieldset, fieldset, lambda: NotFoundError(FIELDSET_NOT_FOUND))


def _check_format(data: dict[str, Any]) -> dict[str, Any]:
    if "format" not in data:
        return data
    normalized, problem = _normalized(str(data["format"] or "ANY"))
    if normalized is None:
        raise InvalidInputError(problem or FORMAT_INVALID, messages={"format": [problem or FORMAT_INVALID]})
    return {**data, "format": normalized}


# --- fields -------------------------------------------------------------------------------------------------------


@transaction.atomic
def custom_field_create(*, data: dict[str, Any], actor: User | None, pk: int | None = None,
                        db_column_name: str | None = None, log: bool = True) -> CustomField:
    """Create a field from validated data; its column name is fixed here, from its name and new id.

    The Snipe-IT import (issue 31) passes the field's Snipe-IT ``pk`` and ``db_column_name`` (a renamed field keeps
    its old column name there too, and integrations address it by it) and ``log=False`` (its history is imported)."""
    data = _check_format(data)
    field = CustomField(**data)
    if pk is not None:
        field.pk = pk
    if actor is not None and actor.pk:
        field.created_by = actor
    field.full_clean(exclude=["name", "created_by"], validate_unique=False, validate_constraints=False)
    if db_column_name is not None and CustomField.objects.filter(db_column_name=db_column_name).exists():
        raise InvalidInputError(COLUMN_TAKEN, messages={"db_column_name": [COLUMN_TAKEN]})
    save_unique(field, _taken)
    field.db_column_name = db_column_name or column_name_for(field.name, field.pk)
    field.save(update_fields=["db_column_name"])
    if log:
        _log(action=ActionType.CREATE, item=field, actor=actor)
    return field


@transaction.atomic
def custom_field_update(*, field: CustomField, data: dict[str, Any], actor: User | None) -> CustomField:
    """Apply validated (partial) changes; the column name stays, and ``field_encrypted`` cannot change."""
    field = _locked_field(field)
    ensure_may_change_shared(actor, field)
    data = _check_format(data)
    if "field_encrypted" in data and bool(data["field_encrypted"]) != field.field_encrypted:
        raise InvalidInputError(ENCRYPTION_FIXED, messages={"field_encrypted": [ENCRYPTION_FIXED]})
    data = {key: value for key, value in data.items() if key not in ("db_column_name", "field_encrypted")}
    changes = model_update(field, data)
    save_unique(field, _taken)
    if changes:
        _log(action=ActionType.UPDATE, item=field, actor=actor, meta=changes)
    return field


@transaction.atomic
def custom_field_delete(*, field: CustomField, actor: User | None) -> None:
    """Delete a field that no fieldset holds, with its values on every asset."""
    field = _locked_field(field)
    ensure_may_change_shared(actor, field)
    if field_in_use(field):
        raise ConflictError(FIELD_IN_USE, code="in_use")
    _log(action=ActionType.DELETE, item=field, actor=actor)
    AssetFieldValue.objects.filter(field=field).delete()
    try:
        with transaction.atomic():
            field.delete()
    except models.ProtectedError as exc:  # associated meanwhile (the lock above makes this unlikely)
        raise ConflictError(FIELD_IN_USE, code="in_use") from exc


# --- fieldsets ----------------------------------------------------------------------------------------------------


@transaction.atomic
def custom_fieldset_create(*, data: dict[str, Any], actor: User | None, pk: int | None = None,
                           log: bool = True) -> CustomFieldset:
    """Create a fieldset; every field flagged ``auto_add_to_fieldsets`` joins it, in id order, not required.
    ``pk`` and ``log=False``: the Snipe-IT import (issue 31), as :func:`custom_field_create`."""
    fieldset = CustomFieldset(name=data["name"], pk=pk)
    if actor is not None and actor.pk:
        fieldset.created_by = actor
    save_unique(fieldset, _taken)
    auto = CustomField.objects.select_for_update().filter(auto_add_to_fieldsets=True).order_by("id")
    CustomFieldsetField.objects.bulk_create(
        CustomFieldsetField(fieldset=fieldset, field=field, order=position) for position, field in enumerate(auto, 1)
    )
    if log:
        _log(action=ActionType.CREATE, item=fieldset, actor=actor)
    return fieldset


@transaction.atomic
def custom_fieldset_update(*, fieldset: CustomFieldset, data: dict[str, Any], actor: User | None) -> CustomFieldset:
    fieldset = _locked_fieldset(fieldset)
    ensure_may_change_shared(actor, fieldset)
    changes = model_update(fieldset, {key: value for key, value in data.items() if key == "name"})
    save_unique(fieldset, _taken)
    if changes:
        _log(action=ActionType.UPDATE, item=fieldset, actor=actor, meta=changes)
    return fieldset


@transaction.atomic
def custom_fieldset_delete(*, fieldset: CustomFieldset, actor: User | None) -> None:
    """Delete a fieldset without fields and not used by any model (deleted models included: PROTECT)."""
    fieldset = _locked_fieldset(fieldset)
    ensure_may_change_shared(actor, fieldset)
    if fieldset_in_use(fieldset):
        raise ConflictError(FIELDSET_IN_USE, code="in_use")
    _log(action=ActionType.DELETE, item=fieldset, actor=actor)
    try:
        with transaction.atomic():
            fieldset.delete()
    except models.ProtectedError as exc:
        raise ConflictError(FIELDSET_IN_USE, code="in_use") from exc


@transaction.atomic
def custom_field_associate(*, field: CustomField, fieldset: CustomFieldset, required: bool = False,
                           order: int | None = None, actor: User | None) -> CustomFieldset:
    """Add ``field`` to ``fieldset`` at ``order`` (default: last) with ``required``; a field already in the set
    changes nothing."""
    fieldset = _locked_fieldset(fieldset)
    ensure_may_change_shared(actor, fieldset)
    field = _locked_field(field)
    if CustomFieldsetField.objects.filter(fieldset=fieldset, field=field).exists():
        return fieldset
    if order is None:
        order = (fieldset.memberships.aggregate(last=Max("order"))["last"] or 0) + 1
    CustomFieldsetField.objects.create(fieldset=fieldset, field=field, required=bool(required), order=order)
    _log(action=ActionType.UPDATE, item=fieldset, actor=actor,
         meta={"fields": {"old": None, "new": field.pk}})
    return fieldset


@transaction.atomic
def custom_field_disassociate(*, field: CustomField, fieldset: CustomFieldset, actor: User | None) -> CustomFieldset:
    """Take ``field`` out of ``fieldset``; a field that is not in the set changes nothing. Values stay on the assets
    (hidden until the field comes back, API-CONTRACT.md §11.1)."""
    fieldset = _locked_fieldset(fieldset)
    ensure_may_change_shared(actor, fieldset)
    deleted, _ = CustomFieldsetField.objects.filter(fieldset=fieldset, field=field).delete()
    if deleted:
        _log(action=ActionType.UPDATE, item=fieldset, actor=actor, meta={"fields": {"old": field.pk, "new": None}})
    return fieldset


@transaction.atomic
def custom_fieldset_order(*, fieldset: CustomFieldset, field_ids: Sequence[int], actor: User | None
                          ) -> CustomFieldset:
    """Put the set's fields in the order of ``field_ids``, which must name each of them exactly once."""
    fieldset = _locked_fieldset(fieldset)
    ensure_may_change_shared(actor, fieldset)
    memberships = {m.field_id: m for m in fieldset.memberships.select_for_update()}
    if len(field_ids) != len(set(field_ids)) or set(field_ids) != set(memberships):
        raise InvalidInputError(ORDER_INVALID, messages={"item": [ORDER_INVALID]})
    before = [m.field_id for m in sorted(memberships.values(), key=lambda m: (m.order, m.pk))]
    for position, field_id in enumerate(field_ids, 1):
        memberships[field_id].order = position
    CustomFieldsetField.objects.bulk_update(memberships.values(), ["order"])
    if before != list(field_ids):
        _log(action=ActionType.UPDATE, item=fieldset, actor=actor,
             meta={"field_order": {"old": before, "new": list(field_ids)}})
    return fieldset


@transaction.atomic
def custom_fieldset_set_fields(*, fieldset: CustomFieldset, rows: Sequence[tuple[CustomField, bool, int]],
                               actor: User | None) -> CustomFieldset:
    """Make the set hold exactly ``rows`` (field, required, order): the admin's inline edits the whole list at once.
    Fields left out are taken out of the set (their values stay, hidden), new ones added, flags and order set."""
    fieldset = _locked_fieldset(fieldset)
    current = {m.field_id: m for m in fieldset.memberships.select_for_update()}
    before = sorted((m.field_id, m.required, m.order) for m in current.values())
    wanted = {field.pk: (field, bool(required), int(order)) for field, required, order in rows}
    after = sorted((field_id, required, order) for field_id, (_, required, order) in wanted.items())
    if before == after:
        return fieldset
    ensure_may_change_shared(actor, fieldset)
    fieldset.memberships.exclude(field_id__in=wanted).delete()
    for field_id, (field, required, order) in wanted.items():
        membership = current.get(field_id)
        if membership is None:
            CustomFieldsetField.objects.create(fieldset=fieldset, field=_locked_field(field), required=required,
                                               order=order)
        elif (membership.required, membership.order) != (required, order):
            membership.required, membership.order = required, order
            membership.save(update_fields=["required", "order"])
    _log(action=ActionType.UPDATE, item=fieldset, actor=actor,
         meta={"fields": {"old": [row[0] for row in before], "new": [row[0] for row in after]}})
    return fieldset
