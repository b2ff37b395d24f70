"""Finding assets by custom field values (API-CONTRACT.md §11.2, docs/custom-fields.md "Finding assets"): the exact
``?<column>=`` filter, the substring ``filter={json}``, the values ``?search=`` also matches and ``sort=<column>``.

Every condition holds only where the asset's *current* model's fieldset has the field: values of other fields stay
stored but are hidden (§11.1, "Model or fieldset changes"). The asset side reads that as ``model_id IN (ids of the
models whose fieldset has the field)``, three small tables, never a join per asset.

The exact filter compares ``LOWER(SUBSTR(value, 1, 191))`` first, the expression of the index
``assetfieldvalue_lookup_ci_idx`` (``inventory/migrations/0015``), so PostgreSQL and SQLite find the values through it,
then the whole lowered value (values longer than 191 characters share a prefix). Values are stored trimmed; the
parameter is trimmed here. Encrypted values are Fernet tokens: they can be neither filtered nor sorted (refused, or the
default sort) nor searched (skipped)."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import (
    BooleanField,
    Case,
    Exists,
    F,
    FilteredRelation,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models import FloatField as FloatOutput
from django.db.models.functions import Length, Lower, Substr
from django.db.models.lookups import Exact, LessThanOrEqual

from assetsvc.inputs import SURROGATE_REFUSED, contains_nul, depth_of, surrogate, walk
from inventory.custom_values import UNKNOWN_FIELD
from inventory.models import COLUMN_PREFIX, AssetFieldValue, AssetModel, CustomField, CustomFieldsetField

ENCRYPTED_COLUMN = "Encrypted custom fields cannot be used to filter."
FILTER_NOT_OBJECT = "The filter must be a JSON object."
NUL_REFUSED = "NUL characters are not allowed."
#: How deep a ``filter`` may nest: its keys are columns, its values texts (a list or object matches nothing).
MAX_FILTER_DEPTH = 8
FILTER_TOO_DEEP = f"The filter must not nest objects or lists more than {MAX_FILTER_DEPTH} levels deep."
#: ``filter`` keys may name a column as ``custom_fields.<column>`` (Snipe-IT's list view sends that form).
NESTED_PREFIX = "custom_fields."
#: The asset's own columns ``filter`` matches (substring, ignoring case); other keys are ignored.
FILTER_COLUMNS = ("name", "asset_tag", "serial", "order_number", "notes")
#: The indexed prefix of a value (the MySQL-safe length Snipe-IT's indexes use too).
INDEXED_LENGTH = 191
#: A NUMERIC value that sorts as a number: what the format accepts. With :data:`NUMBER_LENGTH`, every match casts on
#: PostgreSQL without an overflow. Other text of a NUMERIC field (written before the format changed) sorts as no value.
#: (Unbounded repetitions: PostgreSQL runs ``{1,200}`` ten times slower.)
NUMBER_PATTERN = r"^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]{1,3})?$"
NUMBER_LENGTH = 400


class AsNumber(Func):
    """``CAST(value AS NUMERIC)``: exact decimals on PostgreSQL, a number on SQLite. Only applied to text that matched
    :data:`NUMBER_PATTERN`."""

    template = "CAST(%(expressions)s AS NUMERIC)"
    output_field = FloatOutput()


def _column(key: str) -> str | None:
    """The column a parameter or a ``filter`` key names, or None when it is not a custom field key."""
    name = key[len(NESTED_PREFIX):] if key.startswith(NESTED_PREFIX) else key
    return name if name.startswith(COLUMN_PREFIX) else None


def _text(value: Any) -> str | None:
    """A filter value as the stored text is compared with it (None: ignored; a list or an object matches nothing,
    as the other exact filters)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list | dict) or contains_nul(value):  # a NUL: no value holds one (from a JSON body)
        raise _Nothing
    return str(value).strip()


class _Nothing(Exception):
    """A value that matches nothing."""


def visible_models(field_id: int | Any) -> QuerySet:
    """Ids of the asset models whose fieldset has the field (deleted models too: their assets may be listed)."""
    return AssetModel._base_manager.filter(
        fieldset_id__in=CustomFieldsetField.objects.filter(field_id=field_id).values("fieldset_id")).order_by().values("pk")


class _OneOf(Func):
    """``<column> IN (<subquery>)``; on PostgreSQL ``<column> = ANY(ARRAY(<subquery>))``: the few model ids are read
    once (an init plan) and each asset row is then tested against them, where ``IN`` joined the models to every
    matching asset (a fifth of a many-row filter's time at 100,000 assets)."""

    output_field = BooleanField()

    def _parts(self, compiler):
        lhs_sql, lhs_params = compiler.compile(self.source_expressions[0])
        sub_sql, sub_params = compiler.compile(self.source_expressions[1])
        return lhs_sql, sub_sql, (*lhs_params, *sub_params)

    def as_sql(self, compiler, connection, **extra_context):
        lhs_sql, sub_sql, params = self._parts(compiler)
        return f"{lhs_sql} IN {sub_sql}", params

    def as_postgresql(self, compiler, connection, **extra_context):
        lhs_sql, sub_sql, params = self._parts(compiler)
        return f"{lhs_sql} = ANY(ARRAY{sub_sql})", params


def shown(field_id: int) -> Q:
    """Assets whose current model's fieldset has the field."""
    return Q(_OneOf(F("model_id"), Subquery(visible_models(field_id))))


def _has_value(field: CustomField, condition: Q) -> Q:
    """Assets of a model showing ``field`` with a value row matching ``condition``."""
    values = AssetFieldValue.objects.filter(condition, field_id=field.pk).values("asset_id")
    return shown(field.pk) & Q(pk__in=values)


def _exact_condition(text: str) -> Q:
    """The indexed expression equal to the parameter's, ignoring case. Only a parameter of at least 191 characters
    needs the whole value compared too: a shorter one equals the prefix only when it is the whole value (``LOWER``
    maps character by character), so the index (which includes ``asset_id``) answers alone, without the table."""
    wanted = Value(text, output_field=TextField())
    prefix = Q(Exact(Lower(Substr("value", 1, INDEXED_LENGTH)), Lower(Substr(wanted, 1, INDEXED_LENGTH))))
    if len(text) < INDEXED_LENGTH:
        return prefix
    return prefix & Q(Exact(Lower("value"), Lower(wanted)))


def _fields(columns: set[str]) -> dict[str, CustomField]:
    columns = {column for column in columns if "\x00" not in column}  # no column holds one; PostgreSQL refuses it
    if not columns:
        return {}
    return {field.db_column_name: field for field in CustomField.objects.filter(db_column_name__in=columns)}


def parse_filter(params: dict[str, Any]) -> dict[str, Any] | None:
    """``filter`` as an object (None when absent or empty text); a field error when it is not a JSON object."""
    raw = params.get("filter")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except RecursionError as exc:  # deeper than Python's parser goes
            raise ValidationError({"filter": [FILTER_TOO_DEEP]}) from exc
        except ValueError:
            raw = None
    if not isinstance(raw, dict):
        raise ValidationError({"filter": [FILTER_NOT_OBJECT]})
    if depth_of(raw) > MAX_FILTER_DEPTH:  # issue 25 item 12: 450 levels overflowed the stack (a 500)
        raise ValidationError({"filter": [FILTER_TOO_DEEP]})
    if contains_nul(raw):  # ``\u0000`` in the JSON text: PostgreSQL cannot compare it
        raise ValidationError({"filter": [NUL_REFUSED]})
    for _path, key, item, _depth in walk(raw):  # ``\ud800`` in the JSON text: no database can compare it
        code = next((surrogate(text) for text in (key, item) if isinstance(text, str) and surrogate(text)), None)
        if code is not None:
            raise ValidationError({"filter": [SURROGATE_REFUSED.format(code=code)]})
    return raw


def filter_given(params: dict[str, Any]) -> bool:
    """True when ``filter`` is present and not empty: ``search`` is then ignored (§11.2). An invalid ``filter`` counts
    as given (the list answers its error)."""
    try:
        parsed = parse_filter(params)
    except ValidationError:
        return True
    return bool(parsed)


def given(params: dict[str, Any]) -> bool:
    """True when a ``_snipeit_*`` parameter or ``filter`` narrows the list."""
    return bool(custom_params(params)) or filter_given(params)


def custom_params(params: dict[str, Any]) -> dict[str, Any]:
    """The ``_snipeit_*`` parameters that are not empty."""
    return {key: value for key, value in params.items()
            if isinstance(key, str) and key.startswith(COLUMN_PREFIX) and value not in (None, "")}


def conditions(params: dict[str, Any]) -> Q | None:
    """The conditions of the ``_snipeit_*`` parameters and of ``filter``, AND-ed (None: none given). Unknown and
    encrypted columns are field errors, all reported together: never the unfiltered list (snipe-it#19074)."""
    exact_params = custom_params(params)
    substrings = parse_filter(params) or {}
    filter_columns = {key: _column(str(key)) for key in substrings}
    fields = _fields(set(exact_params) | {column for column in filter_columns.values() if column})
    errors: dict[str, list[str]] = {}
    query, nothing = Q(), False
    for key, value in exact_params.items():
        field = _usable(fields.get(key), key, errors)
        if field is None:
            continue
        try:
            text = _text(value)
        except _Nothing:
            nothing = True
            continue
        if text:
            query &= _has_value(field, _exact_condition(text))
    for key, value in substrings.items():
        column = filter_columns[key]
        if column is not None:
            field = _usable(fields.get(column), str(key), errors)
            if field is None:
                continue
        elif key not in FILTER_COLUMNS:
            continue
        try:
            text = _text(value)
        except _Nothing:
            nothing = True
            continue
        if not text:
            continue
        if column is None:
            query &= Q(**{f"{key}__icontains": text})
        else:
            query &= _has_value(field, Q(value__icontains=text))
    if errors:
        raise ValidationError(errors)
    if nothing:
        return Q(pk__in=[])
    return query if query else None


def _usable(field: CustomField | None, key: str, errors: dict[str, list[str]]) -> CustomField | None:
    if field is None:
        errors.setdefault(key, []).append(UNKNOWN_FIELD)
        return None
    if field.field_encrypted:
        errors.setdefault(key, []).append(ENCRYPTED_COLUMN)
        return None
    return field


def search_values(term: str) -> QuerySet:
    """Ids of the assets holding a value of a non-encrypted field of their model's fieldset that contains ``term``,
    ignoring case (``?search=``; on PostgreSQL the trigram index on the values answers the ``LIKE``)."""
    shown = AssetModel._base_manager.filter(pk=OuterRef("asset__model_id"),
                                            fieldset__memberships__field_id=OuterRef("field_id"))
    return AssetFieldValue.objects.filter(Exists(shown), value__icontains=term,
                                          field__field_encrypted=False).values("asset_id")


def sort_key(key: str) -> CustomField | None:
    """The field a ``sort`` names (``<column>`` or ``custom_fields.<column>``), unless unknown or encrypted."""
    column = _column(key) if isinstance(key, str) and "\x00" not in key else None
    if column is None:
        return None
    field = CustomField.objects.filter(db_column_name=column).first()
    return None if field is None or field.field_encrypted else field


def order_by_field(queryset: QuerySet, field: CustomField, descending: bool) -> QuerySet:
    """``queryset`` ordered by ``field``: NUMERIC by number, other formats by lower-cased text; assets without a
    (shown) value first ascending, last descending; ``id`` breaks ties. The values come in by one ``LEFT JOIN`` on
    ``(asset, field)`` (at most one row: the unique constraint), three times cheaper on PostgreSQL than a subquery per
    asset."""
    joined = FilteredRelation("field_values", condition=Q(field_values__field_id=field.pk))
    queryset = queryset.annotate(sort_value=joined)
    visible = shown(field.pk)
    if field.format.upper() == "NUMERIC":
        number = Q(LessThanOrEqual(Length("sort_value__value"), NUMBER_LENGTH),
                   sort_value__value__regex=NUMBER_PATTERN)
        key = Case(When(visible & number, then=AsNumber("sort_value__value")), default=Value(None))
    else:
        key = Case(When(visible, then=Lower("sort_value__value")), default=Value(None))
    if descending:
        return queryset.order_by(key.desc(nulls_last=True), F("id").desc())
    return queryset.order_by(key.asc(nulls_first=True), F("id").asc())
