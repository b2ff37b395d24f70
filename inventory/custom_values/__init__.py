"""Custom field values on assets (API-CONTRACT.md §11.1; docs/custom-fields.md).

An asset carries exactly the fields of its model's fieldset (:class:`Slot`, in the set's order). A write's values
are read by :func:`read_input` against those fields (the new model's when the write changes it): the ``_snipeit_*``
keys at the top level, which refuse the write when wrong, and the nested ``custom_fields`` object, whose wrong
entries are skipped and reported in the success text. :func:`write_values` stores them inside the asset's locked
transaction; the database's partial unique constraint on ``(field, unique_scope, unique_key)`` decides between two
concurrent writes of one unique value. Reads build ``custom_fields`` with :func:`custom_fields_record` from values
loaded a page at a time (:func:`values_of`, :func:`fieldset_slots`).

Values are text: strings trimmed, numbers as their JSON text, booleans as ``"1"``/``"0"``; ``null`` or ``""`` clears.
Values of encrypted fields are stored as tokens of :mod:`inventory.custom_values.crypto`; the plaintext never reaches
the
action log (``ENCRYPTED`` stands for it there).

Unique values and companies (issue 25; docs/decisions.md): with company separation on, a unique field's value is
unique among the live assets of the asset's company (``unique_scope``: the company id, 0 for assets without one), so a
write in one company never learns which values another holds; the check runs in :func:`write_values`, where the
asset's company is known, and the constraint decides a race. With separation off the value is unique among all live
assets: :func:`read_input` reports a taken value with the write's other errors, and :func:`write_values` checks again
across companies under a lock of the field's row (the constraint alone is per company).
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from assetsvc.inputs import surrogate
from assetsvc.site import get_site_settings
from inventory.choices import FieldElement
from inventory.custom_values import formats as format_regex
from inventory.custom_values.crypto import MASK, decrypt, encrypt, unique_digest
from inventory.models import AssetFieldValue, CustomField, CustomFieldsetField

PREFIX = "_snipeit_"
MAX_LENGTH = 65535
#: The permission that reads and writes encrypted values (``admin`` does not imply it: accounts.permissions).
ENCRYPTED_PERMISSION = "assets.view.encrypted_custom_fields"

UNKNOWN_FIELD = "This field does not seem to exist, please double check your custom field names."
NOT_IN_FIELDSET = "This field seems to exist, but is not available on this Asset Model's fieldset."
NESTED_NOT_AN_OBJECT = "The custom fields field must be an object."
NESTED_NOT_A_FIELD = "not a field of this asset's model"
NESTED_NEEDS_PERMISSION = "needs permission to write encrypted custom fields"
ENCRYPTED_SKIPPED = {
    "create": "Asset created successfully, but encrypted custom fields were not due to permissions",
    "update": "Asset updated successfully, but encrypted custom fields were not due to permissions",
}

_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_DATE = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[ T]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]{1,6})?)?(?:Z|[+-]([0-9]{2}):([0-9]{2}))?)?$")
_MAC = re.compile(r"^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$")
_ALPHA_DASH = re.compile(r"^[\w-]+$")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class FieldValueError(Exception):
    """A value a field does not take; ``message`` is the field error's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Slot:
    """A field as the assets of one fieldset's models see it: the field and the association's ``required``."""

    field: CustomField
    required: bool


# --- definitions ----------------------------------------------------------------------------------------------------


def fieldset_slots(fieldset_ids: Iterable[int | None]) -> dict[int, list[Slot]]:
    """The fields of each fieldset, in the set's order, in one query (none without ids)."""
    ids = {pk for pk in fieldset_ids if pk is not None}
    slots: dict[int, list[Slot]] = {pk: [] for pk in ids}
    if ids:
        rows = CustomFieldsetField.objects.filter(fieldset_id__in=ids).select_related("field").order_by(
            "fieldset_id", "order", "id")
        for row in rows:
            slots[row.fieldset_id].append(Slot(row.field, row.required))
    return slots


def model_slots(model: Any) -> list[Slot]:
    """The fields an asset of ``model`` carries (``[]`` without a model or a fieldset)."""
    fieldset_id = getattr(model, "fieldset_id", None)
    return fieldset_slots([fieldset_id]).get(fieldset_id, []) if fieldset_id else []


# --- one value ------------------------------------------------------------------------------------------------------


def options_of(field: CustomField) -> list[str]:
    """The option values (``value`` of ``value|label`` lines)."""
    return [line.split("|", 1)[0].strip() for line in field.field_values_array or []]


def _scalar_text(field: CustomField, raw: Any) -> str:
    if isinstance(raw, bool):
        return "1" if raw else "0"
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise FieldValueError(f"The {field.name} field must be a number.")
        return json.dumps(raw)
    if isinstance(raw, str):
        return raw.strip()
    raise FieldValueError(f"{field.name} cannot be an array.")


def _checkbox_text(field: CustomField, raw: Any) -> str:
    items = raw if isinstance(raw, list) else _scalar_text(field, raw).split(",")
    chosen = []
    for item in items:
        if isinstance(item, list | dict):
            raise FieldValueError(f"{field.name} cannot be an array.")
        text = _scalar_text(field, item) if item is not None else ""
        if text:
            chosen.append(text)
    options = options_of(field)
    if any(item not in options for item in chosen):
        raise FieldValueError(f"{field.name} contains invalid options.")
    return ",".join(chosen)


def _real_date(match: re.Match) -> bool:
    year, month, day, hour, minute, second, tz_hour, tz_minute = (
        int(part) if part is not None else 0 for part in match.groups())
    try:
        date(year, month, day)
    except ValueError:
        return False
    return hour < 24 and minute < 60 and second < 60 and tz_hour < 24 and tz_minute < 60


def _url(text: str) -> bool:
    if any(char.isspace() for char in text):
        return False
    try:
        parts = urlsplit(text)
        return parts.scheme.lower() in {"http", "https", "ftp", "ftps"} and bool(parts.hostname) \
            and (parts.port is None or parts.port >= 0)
    except ValueError:
        return False


def _ip(text: str, version: int | None) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return version is None or address.version == version


def _check_format(field: CustomField, text: str) -> str:
    """``text`` as stored under the field's format (BOOLEAN normalises), or the format's error."""
    name, fmt = field.name, field.format or "ANY"
    checks: dict[str, tuple[Any, str]] = {
        "ALPHA": (lambda: text.isalpha(), "must only contain letters."),
        "ALPHA-DASH": (lambda: bool(_ALPHA_DASH.match(text)), "must only contain letters, numbers, dashes, and "
                                                              "underscores."),
        "ALPHA-NUMERIC": (lambda: text.isalnum(), "must only contain letters and numbers."),
        "NUMERIC": (lambda: bool(_NUMBER.match(text)), "must be a number."),
        "EMAIL": (lambda: _email(text), "must be a valid email address."),
        "DATE": (lambda: bool((m := _DATE.match(text)) and _real_date(m)), "must be a valid date."),
        "URL": (lambda: _url(text), "must be a valid URL."),
        "IP": (lambda: _ip(text, None), "must be a valid IP address."),
        "IPV4": (lambda: _ip(text, 4), "must be a valid IPv4 address."),
        "IPV6": (lambda: _ip(text, 6), "must be a valid IPv6 address."),
        "MAC": (lambda: bool(_MAC.match(text)), "format is invalid."),
    }
    if fmt == "BOOLEAN":
        lowered = text.lower()
        if lowered in _TRUE or lowered in _FALSE:
            return "1" if lowered in _TRUE else "0"
        raise FieldValueError(f"The {name} field must be true or false.")
    if fmt in checks:
        check, message = checks[fmt]
        if not check():
            raise FieldValueError(f"The {name} field {message}")
        return text
    if format_regex.split(fmt) is None:
        return text
    if len(text) > format_regex.MAX_CHECKED_LENGTH:
        raise FieldValueError(f"The {name} field must not be greater than {format_regex.MAX_CHECKED_LENGTH} "
                              "characters for its format.")
    found = format_regex.matches(fmt, text)
    if found is None:  # stored before RE2 decided, in syntax it lacks: refused, never unchecked (docs/decisions.md)
        raise FieldValueError(format_regex.UNCHECKABLE.format(name=name))
    if not found:
        raise FieldValueError(f"The {name} field format is invalid.")
    return text


def _email(text: str) -> bool:
    try:
        validate_email(text)
    except ValidationError:
        return False
    return True


def stored_text(field: CustomField, raw: Any) -> str | None:
    """The text a raw JSON value is stored as (None: clear the value), or :class:`FieldValueError`."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, dict) or (isinstance(raw, list) and field.element != FieldElement.CHECKBOX):
        raise FieldValueError(f"{field.name} cannot be an array.")
    text = _checkbox_text(field, raw) if field.element == FieldElement.CHECKBOX else _scalar_text(field, raw)
    if "\x00" in text:
        raise FieldValueError(f"The {field.name} field cannot contain NUL characters.")
    if surrogate(text) is not None:  # the API refuses them on input; services called otherwise meet this
        raise FieldValueError(f"The {field.name} field cannot contain surrogate characters.")
    if len(text) > MAX_LENGTH:
        raise FieldValueError(f"The {field.name} field must not be greater than {MAX_LENGTH} characters.")
    if not text:
        return None
    if field.element == FieldElement.RADIO and text not in options_of(field):
        raise FieldValueError(f"{field.name} is invalid.")
    return _check_format(field, text)


def echoed(raw: Any) -> Any:
    """A written value as a write answer echoes it: the same JSON value, strings trimmed, ``""`` as null."""
    if isinstance(raw, str):
        return raw.strip() or None
    return raw


# --- a write's values -----------------------------------------------------------------------------------------------


@dataclass
class CustomInput:
    """A write's custom values, read against the fields the asset will carry.

    ``values``: field id → (field, text to store or None to clear); ``echo``: top-level column → the value as sent
    (the write answer's keys); ``errors``: field errors that refuse the write; ``skipped_encrypted``: top-level
    encrypted keys the caller may not write; ``ignored``: nested entries or audit keys not written, with why."""

    values: dict[int, tuple[CustomField, str | None]] = field(default_factory=dict)
    echo: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    skipped_encrypted: bool = False
    ignored: list[tuple[str, str]] = field(default_factory=list)

    def message(self, text: str, verb: str) -> str:
        """The success text: Snipe-IT's own when encrypted keys were skipped, plus the ignored entries' sentence."""
        if self.skipped_encrypted:
            text = ENCRYPTED_SKIPPED[verb]
        if not self.ignored:
            return text
        if verb == "audit":
            return f"{text} Ignored custom fields: {', '.join(key for key, _ in self.ignored)}."
        entries = "; ".join(f"{key} ({reason})" for key, reason in self.ignored)
        return f"{text} Ignored custom_fields entries: {entries}."

    def changed_fields(self) -> set[int]:
        return set(self.values)


def has_custom_input(data: Mapping[str, Any]) -> bool:
    return any(isinstance(key, str) and key.startswith(PREFIX) for key in data) or "custom_fields" in data


def _nested_entries(data: Mapping[str, Any], errors: dict[str, list[str]]) -> dict[str, Any]:
    nested = data.get("custom_fields")
    if nested is None or nested == [] or nested == {}:
        return {}
    if not isinstance(nested, dict):
        errors["custom_fields"] = [NESTED_NOT_AN_OBJECT]
        return {}
    return nested


def _nested_slot(key: str, by_column: dict[str, Slot], by_name: dict[str, Slot]) -> Slot | None:
    wanted = str(key).strip()
    return by_column.get(wanted) or by_name.get(wanted.lower())


def read_input(
    data: Mapping[str, Any],
    *,
    slots: list[Slot],
    may_write_encrypted: bool,
    existing: Mapping[int, str] | None = None,
    asset_pk: int | None = None,
    creating: bool = False,
    model_changed: bool = False,
    audit: bool = False,
    known: set[str] | None = None,
    check_unique: bool = True,
) -> CustomInput:
    """Read the custom values of a write (``data``: the request's input) against ``slots``, the fields of the asset's
    (new) model's fieldset. ``existing``: field id → stored text of the asset's values (empty on create).

    ``audit``: only top-level keys of fields flagged ``display_audit`` are written; other keys are ``ignored``, and
    nested entries are not read (§11.1, "Audit").

    A batch (``PATCH /hardware/bulk``, the CSV import) passes ``known``, the ``_snipeit_*`` columns some field has
    (read once for the batch), and ``check_unique=False``: :func:`plan_values` then judges unique values for the
    whole batch in one query."""
    existing = existing or {}
    result = CustomInput()
    by_column = {slot.field.db_column_name: slot for slot in slots}
    by_name = {slot.field.name.strip().lower(): slot for slot in slots}
    top = {key: value for key, value in data.items() if isinstance(key, str) and key.startswith(PREFIX)}
    strangers = [key for key in top if key not in by_column and "\x00" not in key]  # NUL: no column, and no query
    if known is None:
        known = set(CustomField.objects.filter(db_column_name__in=strangers).values_list("db_column_name", flat=True)) \
            if strangers else set()

    nested = {} if audit else _nested_entries(data, result.errors)
    for key, raw in nested.items():
        slot = _nested_slot(key, by_column, by_name)
        if slot is None:
            result.ignored.append((str(key), NESTED_NOT_A_FIELD))
            continue
        if slot.field.db_column_name in top or slot.field.pk in result.values:
            continue  # a top-level key wins; the first entry for a field wins over a repeat
        if slot.field.field_encrypted and not may_write_encrypted:
            result.ignored.append((str(key), NESTED_NEEDS_PERMISSION))
            continue
        value = raw.get("value") if isinstance(raw, dict) and "value" in raw else raw
        try:
            text = stored_text(slot.field, value)
            if text is None and slot.required:
                raise FieldValueError(f"The {slot.field.name} field is required.")
        except FieldValueError as exc:
            result.ignored.append((str(key), exc.message))
            continue
        result.values[slot.field.pk] = (slot.field, text)

    for key, raw in top.items():
        slot = by_column.get(key)
        if audit and (slot is None or not slot.field.display_audit):
            result.ignored.append((key, ""))
            continue
        if slot is None:
            result.errors[key] = [NOT_IN_FIELDSET if key in known else UNKNOWN_FIELD]
            continue
        if slot.field.field_encrypted and not may_write_encrypted:
            if audit:
                result.ignored.append((key, NESTED_NEEDS_PERMISSION))
            else:
                result.skipped_encrypted = True
            continue
        try:
            text = stored_text(slot.field, raw)
        except FieldValueError as exc:
            result.errors[key] = [exc.message]
            continue
        if text is None and slot.required:
            result.errors[key] = [f"The {slot.field.name} field is required."]
            continue
        result.values[slot.field.pk] = (slot.field, text)
        result.echo[key] = echoed(raw)

    if creating or model_changed:
        for slot in slots:
            column = slot.field.db_column_name
            if not slot.required or column in result.errors or (slot.field.field_encrypted and not may_write_encrypted):
                continue
            written = result.values.get(slot.field.pk)
            has_value = written[1] is not None if written else bool(existing.get(slot.field.pk))
            if not has_value:
                result.errors[column] = [f"The {slot.field.name} field is required."]
    if check_unique:
        _check_unique(result, asset_pk)
    return result


def _separated() -> bool:
    return get_site_settings().full_multiple_companies_support


def _check_unique(result: CustomInput, asset_pk: int | None) -> None:
    """Unique values another live asset holds (the check before saving; :func:`write_values` repeats it). Only with
    separation off: with it on, the value is unique within the asset's company, which the write's service knows
    (a check here across companies would tell the caller what another company holds)."""
    if _separated():
        return
    wanted = {unique_digest(text, encrypted=field_.field_encrypted): field_
              for field_, text in result.values.values() if field_.is_unique and text is not None
              and field_.db_column_name not in result.errors}
    if not wanted:
        return
    taken = AssetFieldValue.objects.filter(unique_key__in=list(wanted), field_id__in={f.pk for f in wanted.values()})
    if asset_pk is not None:
        taken = taken.exclude(asset_id=asset_pk)
    for field_id, key in taken.values_list("field_id", "unique_key"):
        field_ = wanted.get(key)
        if field_ is not None and field_.pk == field_id:
            result.errors[field_.db_column_name] = [unique_taken(field_)]


def unique_taken(field_: CustomField) -> str:
    return f"The {field_.name} must be unique."


def unique_scope(asset: Any) -> int:
    """The group of assets a unique value is unique in while separation is on: the asset's company (0: none)."""
    return asset.company_id or 0


def _lock_fields(field_ids: Iterable[int]) -> None:
    """With separation off, writers of one unique field's values are serialised by a lock of the field's row (in id
    order), as the database constraint is per company only."""
    ids = sorted(set(field_ids))
    if ids and not _separated():
        list(CustomField.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))


def _held_elsewhere(field_id: int, key: str, asset_pk: int, scope: int) -> bool:
    """Whether another live asset holds the value (``key``): in the same company with separation on, anywhere with it
    off (the caller locked the field: :func:`_lock_fields`)."""
    taken = AssetFieldValue.objects.filter(field_id=field_id, unique_key=key).exclude(asset_id=asset_pk)
    if _separated():
        taken = taken.filter(unique_scope=scope)
    return taken.exists()


def _save_unique(row: AssetFieldValue, asset_pk: int, **kwargs: Any) -> bool:
    """Save a row carrying a unique key; False (nothing saved) when another asset holds the value."""
    if _held_elsewhere(row.field_id, row.unique_key, asset_pk, row.unique_scope):
        return False
    try:
        with transaction.atomic():
            row.save(**kwargs)
    except IntegrityError:
        return False
    return True


# --- storing --------------------------------------------------------------------------------------------------------


def stored_rows(asset_pk: int) -> dict[int, AssetFieldValue]:
    return {row.field_id: row for row in AssetFieldValue.objects.filter(asset_id=asset_pk)}


def plain(field_: CustomField, stored: str) -> str | None:
    """A stored value's plaintext (None when an encrypted value cannot be read with the configured keys)."""
    return decrypt(stored) if field_.field_encrypted else stored


def _logged(field_: CustomField, text: str | None) -> str | None:
    if text is None:
        return None
    return MASK if field_.field_encrypted else text


def write_values(asset: Any, custom: CustomInput, *, rows: dict[int, AssetFieldValue] | None = None
                 ) -> dict[str, dict]:
    """Store ``custom.values`` on ``asset`` (locked by the caller, inside its transaction); returns the changes as
    ``log_meta`` entries keyed by column. A unique value a concurrent writer stored first is the field's error."""
    if not custom.values:
        return {}
    rows = stored_rows(asset.pk) if rows is None else rows
    live = asset.deleted_at is None
    if live:
        _lock_fields(field_.pk for field_, text in custom.values.values() if field_.is_unique and text is not None)
    changes: dict[str, dict] = {}
    for field_, text in custom.values.values():
        row = rows.get(field_.pk)
        old = plain(field_, row.value) if row is not None else None
        if text == old or (text is None and row is None):
            continue
        column = field_.db_column_name
        changes[column] = {"old": _logged(field_, old), "new": _logged(field_, text)}
        if text is None:
            row.delete()
            continue
        if row is None:
            row = AssetFieldValue(asset_id=asset.pk, field=field_)
        row.value = encrypt(text) if field_.field_encrypted else text
        row.unique_key = unique_digest(text, encrypted=field_.field_encrypted) if field_.is_unique and live else None
        row.unique_scope = unique_scope(asset) if row.unique_key is not None else 0
        if row.unique_key is None:
            row.save()  # nothing else can conflict: the asset is locked, and (asset, field) is its own
            continue
        if not _save_unique(row, asset.pk):
            raise ValidationError({column: [unique_taken(field_)]})
    return changes


def rescope_unique_values(asset: Any) -> None:
    """After a company change of ``asset`` (locked by the caller, inside its transaction): its unique values count in
    the new company. Raises the fields' errors when another asset holds one of them there (with separation off:
    anywhere), and the caller's transaction rolls the change back."""
    scope = unique_scope(asset)
    rows = list(AssetFieldValue.objects.filter(asset_id=asset.pk, unique_key__isnull=False)
                .exclude(unique_scope=scope).select_related("field").order_by("pk"))
    _lock_fields(row.field_id for row in rows)
    taken = []
    for row in rows:
        row.unique_scope = scope
        if not _save_unique(row, asset.pk, update_fields=["unique_scope"]):
            taken.append(row.field)
    if taken:
        raise ValidationError({field_.db_column_name: [unique_taken(field_)] for field_ in taken})


def clear_unique_keys(asset_pk: int) -> None:
    """A deleted asset's unique values no longer count (as its tag does not)."""
    AssetFieldValue.objects.filter(asset_id=asset_pk, unique_key__isnull=False).update(unique_key=None)


def restore_unique_keys(asset_pk: int) -> list[CustomField]:
    """Count a restored asset's unique values again; returns the fields whose value another asset holds meanwhile
    (nothing is changed then: the caller refuses the restore)."""
    rows = list(AssetFieldValue.objects.filter(asset_id=asset_pk, field__is_unique=True)
                .select_related("field", "asset").order_by("pk"))
    _lock_fields(row.field_id for row in rows)
    taken = []
    for row in rows:
        text = plain(row.field, row.value)
        if text is None:
            continue
        row.unique_key = unique_digest(text, encrypted=row.field.field_encrypted)
        row.unique_scope = unique_scope(row.asset)
        if not _save_unique(row, asset_pk, update_fields=["unique_key", "unique_scope"]):
            taken.append(row.field)
    return taken


# --- reading --------------------------------------------------------------------------------------------------------


def values_of(asset_ids: Iterable[int]) -> dict[int, dict[int, str]]:
    """asset id → field id → stored text, in one query."""
    values: dict[int, dict[int, str]] = {}
    ids = list(asset_ids)
    if ids:
        for asset_id, field_id, value in AssetFieldValue.objects.filter(asset_id__in=ids).values_list(
                "asset_id", "field_id", "value"):
            values.setdefault(asset_id, {})[field_id] = value
    return values


def shown(field_: CustomField, stored: str | None, may_read_encrypted: bool) -> str:
    """A value as reads show it: ``""`` when none, ``ENCRYPTED`` for an encrypted one the caller may not read."""
    if not stored:
        return ""
    if not field_.field_encrypted:
        return stored
    if not may_read_encrypted:
        return MASK
    text = decrypt(stored)
    return MASK if text is None else text


def custom_fields_record(slots: list[Slot], values: Mapping[int, str], may_read_encrypted: bool) -> dict[str, Any]:
    """A record's ``custom_fields``: one entry per field of the set, in its order, keyed by the field's name."""
    return {
        slot.field.name: {
            "field": slot.field.db_column_name,
            "value": shown(slot.field, values.get(slot.field.pk), may_read_encrypted),
            "field_format": slot.field.format,
            "element": slot.field.element,
        }
        for slot in slots
    }


def column_values(slots: list[Slot], values: Mapping[int, str], may_read_encrypted: bool,
                  echo: Mapping[str, Any]) -> dict[str, Any]:
    """A write answer's top-level keys: one per field of the set; the value as sent for a field this write wrote,
    else the stored text or null (encrypted ones as reads show them)."""
    columns: dict[str, Any] = {}
    for slot in slots:
        column = slot.field.db_column_name
        if column in echo and (not slot.field.field_encrypted or may_read_encrypted):
            columns[column] = echo[column]
        else:
            columns[column] = shown(slot.field, values.get(slot.field.pk), may_read_encrypted) or None
    return columns


# --- key rotation ---------------------------------------------------------------------------------------------------


def reencrypt_all(batch: int = 500) -> tuple[int, int]:
    """Encrypt every encrypted value again with the first configured key and recompute its unique digest (after a
    new key was put first in ``FIELD_ENCRYPTION_KEY``); returns (rewritten, unreadable). An unreadable value (no
    configured key opens it) is left as it is."""
    rewritten = unreadable = 0
    rows = AssetFieldValue.objects.filter(field__field_encrypted=True).select_related("field", "asset")
    for row in rows.order_by("pk").iterator(chunk_size=batch):
        text = decrypt(row.value)
        if text is None:
            unreadable += 1
            continue
        row.value = encrypt(text)
        if row.field.is_unique and row.asset.deleted_at is None:
            row.unique_key = unique_digest(text, encrypted=True)
            row.unique_scope = unique_scope(row.asset)
        row.save(update_fields=["value", "unique_key", "unique_scope"])
        rewritten += 1
    return rewritten, unreadable
