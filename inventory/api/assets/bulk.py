"""``PATCH /hardware/bulk`` and ``POST /hardware/audit/bulk`` (API-CONTRACT.md §12, Snipe-IT PR #19271): one change or
one audit for many assets, answered with one result per asset. The request is judged once (ids, the shared change);
then each asset runs the single operation's service in its own transaction, and a row that fails does not undo the
others."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rest_framework import exceptions, serializers

from assetsvc.api.exceptions import BatchRefused, error_messages
from assetsvc.api.fields import SchemaField
from assetsvc.conf import app_settings
from inventory import custom_values
from inventory.api.assets.records import AssetWriteRecordSerializer
from inventory.api.assets.serializers import AssetAuditSerializer, AssetUpdateSerializer
from inventory.exceptions import AssetNotFoundError
from inventory.models import Asset, CustomField

IDS_REQUIRED = "The ids field is required."
IDS_NOT_A_LIST = "The ids field must be a list of asset ids."
IDS_TOO_MANY = "The ids field must not have more than {n} items."
NOTHING_TO_UPDATE = "No fields were selected, so nothing was updated."
NOT_IN_BULK = "The {key} field cannot be used in a bulk update."
#: Keys a bulk update refuses: a tag is one asset's, and checkouts have their own routes.
NOT_BULK_KEYS = ("asset_tag", "assigned_user", "assigned_asset", "assigned_location", "assigned_to", "assigned_type")
#: The largest id a lookup may carry (a bigint); a larger one is no asset id.
MAX_ID = 2**63 - 1
_DIGITS = re.compile(r"^[0-9]{1,19}$")

#: Summaries (Snipe-IT's texts for updates; the audit's follow them).
UPDATE_TEXTS = {
    "one": "Asset updated successfully.",
    "all": "{n} assets were updated successfully.",
    "partial": "{s} asset(s) updated successfully, {f} failed. See the results array for details.",
    "none": "No assets were updated. See the results array for details.",
}
AUDIT_TEXTS = {
    "one": "Asset audit successfully logged.",
    "all": "{n} assets were audited successfully.",
    "partial": "{s} asset(s) audited successfully, {f} failed. See the results array for details.",
    "none": "No assets were audited. See the results array for details.",
}


# --- the request --------------------------------------------------------------------------------------------------


def _asset_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _DIGITS.match(value.strip()):
        number = int(value.strip())
    else:
        return None  # floats (1.5, also 1.0), null, lists, words
    return number if 0 < number <= MAX_ID else None


def batch_ids(data: dict[str, Any]) -> list[int]:
    """The request's distinct asset ids, in order of first appearance; refuses the batch (``results`` empty) when
    ``ids`` is missing, is not a non-empty list of positive ids, or names more than ``MAX_RESULTS`` assets."""
    if "ids" not in data:
        raise BatchRefused({"ids": [IDS_REQUIRED]}, [])
    values = data["ids"]
    if not isinstance(values, list) or not values:
        raise BatchRefused({"ids": [IDS_NOT_A_LIST]}, [])
    ids = [_asset_id(value) for value in values]
    if None in ids:
        raise BatchRefused({"ids": [IDS_NOT_A_LIST]}, [])
    distinct = list(dict.fromkeys(ids))
    limit = app_settings.MAX_RESULTS
    if len(distinct) > limit:
        raise BatchRefused({"ids": [IDS_TOO_MANY.format(n=limit)]}, [])
    return distinct


def custom_field_input(data: dict[str, Any]) -> tuple[bool, dict[str, list[str]]]:
    """Whether the batch carries custom values (``_snipeit_<column>`` keys or a nested ``custom_fields`` object), and
    their errors whatever the asset: a column no field has, a ``custom_fields`` that is not an object (§12). Each row
    then reads the values against its own model's fieldset (``AssetViewSet.read_custom``)."""
    errors: dict[str, list[str]] = {}
    columns = [key for key in data if isinstance(key, str) and key.startswith(custom_values.PREFIX)]
    queried = [key for key in columns if "\x00" not in key]  # no column holds a NUL (PostgreSQL refuses it)
    known = set(CustomField.objects.filter(db_column_name__in=queried).values_list("db_column_name", flat=True)) \
        if queried else set()
    for key in columns:
        if key not in known:
            errors[key] = [custom_values.UNKNOWN_FIELD]
    nested = data.get("custom_fields")
    if nested not in (None, [], {}) and not isinstance(nested, dict):
        errors["custom_fields"] = [custom_values.NESTED_NOT_AN_OBJECT]
    return bool(columns) or bool(nested), errors


def refuse_batch(ids: list[int], messages: Any) -> BatchRefused:
    """A shared change that is wrong for every asset: the refusal, with one error row per id."""
    return BatchRefused(messages, [result_row(pk, "error", messages) for pk in ids])


def result_row(pk: int, status: str, messages: Any, payload: Any = None) -> dict[str, Any]:
    return {"id": pk, "status": status, "messages": messages, "payload": payload}


def batch_answer(results: list[dict[str, Any]], texts: dict[str, str]) -> dict[str, Any]:
    """The answer once the rows ran: ``success`` / ``partial`` / ``error`` with the summary and the counts."""
    total = len(results)
    ok = sum(1 for row in results if row["status"] == "success")
    if ok == total:
        status, summary = "success", texts["one"] if total == 1 else texts["all"].format(n=total)
    elif ok:
        status, summary = "partial", texts["partial"].format(s=ok, f=total - ok)
    else:
        status, summary = "error", texts["none"]
    return {"status": status, "message": summary, "messages": summary,
            "payload": {"total": total, "success": ok, "error": total - ok}, "results": results}


# --- the input serializers ----------------------------------------------------------------------------------------


class AssetBulkUpdateSerializer(AssetUpdateSerializer):
    """The shared change of a bulk update: the fields of ``PATCH /hardware/{id}`` but the tag and the checkout keys
    (refused beside it), and ``ids`` as :func:`batch_ids` read them (digit strings, repeats). Whether a value is
    taken (a unique serial) depends on the asset: the service judges it per row, under its lock."""

    ids = serializers.ListField(child=serializers.IntegerField(min_value=1), required=True,
                                help_text="Asset ids (integers or digit strings), at most MAX_RESULTS distinct.")

    def get_fields(self):
        fields = super().get_fields()
        for key in NOT_BULK_KEYS:
            fields.pop(key, None)
        return {"ids": fields.pop("ids"), **fields}  # first: the schema's example body starts with it

    def validate_serial(self, value):
        return value


class AssetBulkAuditSerializer(AssetAuditSerializer):
    """The shared audit of a bulk audit: the fields of ``POST /hardware/{id}/audit``, and ``ids`` as :func:`batch_ids`
    read them."""

    ids = serializers.ListField(child=serializers.IntegerField(min_value=1), required=True,
                                help_text="Asset ids (integers or digit strings), at most MAX_RESULTS distinct.")

    def get_fields(self):
        fields = super().get_fields()
        return {"ids": fields.pop("ids"), **fields}


# --- the answer's schema ------------------------------------------------------------------------------------------

_MESSAGES_SCHEMA = {"anyOf": [
    {"type": "string"},
    {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
]}


class BulkCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField(read_only=True)
    success = serializers.IntegerField(read_only=True)
    error = serializers.IntegerField(read_only=True)


def _answer_serializer(name: str, payload: serializers.Field, example: str) -> type[serializers.Serializer]:
    row = type(f"{name}ResultSerializer", (serializers.Serializer,), {
        "__module__": __name__,
        "__doc__": "One asset's outcome: the single operation's answer, or its errors.",
        "id": serializers.IntegerField(read_only=True),
        "status": SchemaField({"type": "string", "example": "success", "description": "``success`` or ``error``."}),
        "messages": SchemaField(_MESSAGES_SCHEMA),
        "payload": payload,
    })
    return type(f"{name}AnswerSerializer", (serializers.Serializer,), {
        "__module__": __name__,
        "__doc__": "A batch's answer: the summary, the counts and one result per distinct id, in order.",
        "status": SchemaField({"type": "string", "example": "success",
                               "description": "``success`` (every row), ``partial`` (some) or ``error`` (none)."}),
        "message": SchemaField({"type": "string", "example": example}),
        "messages": SchemaField({"type": "string", "example": example}),
        "payload": BulkCountsSerializer(read_only=True),
        "results": row(many=True, read_only=True),
    })


class AuditPayloadSerializer(serializers.Serializer):
    """The payload of an audit's answer."""

    id = serializers.IntegerField(read_only=True)
    asset_tag = serializers.CharField(read_only=True)
    note = serializers.CharField(read_only=True, allow_null=True)
    next_audit_date = serializers.DateField(read_only=True, allow_null=True)


BulkUpdateAnswer = _answer_serializer("AssetBulkUpdate", AssetWriteRecordSerializer(read_only=True, allow_null=True),
                                      "2 assets were updated successfully.")
BulkAuditAnswer = _answer_serializer(
    "AssetBulkAudit", AuditPayloadSerializer(read_only=True, allow_null=True), "2 assets were audited successfully.")


# --- running the rows ---------------------------------------------------------------------------------------------


def run_rows(ids: list[int], found: dict[int, Asset], work: Callable[[Asset], Any]) -> tuple[list[dict], dict]:
    """Each id in order: ``work(asset)`` (a service, its own transaction) or the row's error. An id that is not in
    ``found`` (unknown, deleted, another company's) is ``Asset does not exist.``. Returns the rows (successful ones
    without their payload yet) and each successful id's ``work`` result."""
    results: list[dict[str, Any]] = []
    done: dict[int, Any] = {}
    for pk in ids:
        try:
            asset = found.get(pk)
            if asset is None:
                raise AssetNotFoundError()
            done[pk] = work(asset)
        except Exception as exc:  # noqa: BLE001 - only expected errors become rows; the rest is re-raised
            messages = error_messages(exc)
            if messages is None:
                raise
            results.append(result_row(pk, "error", messages))
            continue
        results.append(result_row(pk, "success", None))
    return results, done


def forbidden_keys(data: dict[str, Any]) -> dict[str, list[str]]:
    return {key: [NOT_IN_BULK.format(key=key)] for key in NOT_BULK_KEYS if key in data}


def field_errors(exc: exceptions.ValidationError) -> dict[str, list[str]]:
    messages = error_messages(exc)
    return messages if isinstance(messages, dict) else {"general": [str(messages)]}
