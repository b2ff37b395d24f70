"""The row work of ``/hardware``'s bulk update and bulk audit (API-CONTRACT.md §12), mixed into ``AssetViewSet``: the
batch's assets loaded in one query, the shared input validated once, each row's custom values read against its (new)
model's fieldset, the set-based update path (``inventory.services.assets_bulk``) and the update's answer."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.response import Response

from assetsvc.api.exceptions import error_messages
from inventory import custom_values
from inventory.api.assets.bulk import (
    UPDATE_TEXTS,
    batch_answer,
    custom_field_input,
    field_errors,
    refuse_batch,
    result_row,
)
from inventory.api.assets.records import (
    AssetWriteRecordSerializer,
    asset_rows,
)
from inventory.exceptions import AssetNotFoundError
from inventory.models import Asset
from inventory.services import assets_bulk


class AssetBatchMixin:
    """Helpers of the bulk actions; the view supplies ``get_queryset``, ``read_custom`` and the request."""

    def batch_assets(self, ids: list[int]) -> dict[int, Asset]:
        """The batch's live assets the caller may see, with their models (whose fieldsets the custom values are read
        against), in one query (the services lock and re-read each row)."""
        return {asset.pk: asset for asset in self.get_queryset().filter(pk__in=ids).select_related("model").order_by()}

    def batch_change(self, serializer_class, data: dict[str, Any], ids: list[int],
                     refused: dict[str, list[str]] | None = None):
        """The shared input, validated once: a value wrong whatever the asset refuses the whole batch."""
        serializer = serializer_class(data={**data, "ids": ids}, context={"request": self.request})
        errors: dict[str, list[str]] = {}
        try:
            serializer.is_valid(raise_exception=True)
        except exceptions.ValidationError as exc:
            errors = field_errors(exc)
        has_custom, custom_errors = custom_field_input(data)
        errors = {**errors, **(refused or {}), **custom_errors}
        if errors:
            raise refuse_batch(ids, errors)
        return serializer, has_custom

    def row_custom(self, data: dict[str, Any], asset: Asset, model=None, *, audit: bool = False, **batch: Any
                   ) -> custom_values.CustomInput | None:
        """One row's custom values, read against its (new) model's fieldset: a column it lacks, a value taken, a
        required field missing after a model change fail this row alone."""
        custom = self.read_custom(data, model=model or asset.model, asset=asset, audit=audit, **batch)
        if custom is not None and custom.errors:
            raise exceptions.ValidationError(custom.errors)
        return custom

    def bulk_set_based(self, data: dict[str, Any], ids: list[int], found: dict[int, Asset], change: dict[str, Any]
                       ) -> tuple[list[dict], dict, dict]:
        """The rows of a bulk update by ``asset_update_many``: each row's custom values read against its (new)
        model's fieldset (the stored values a model change needs read once for the batch), then the batch."""
        model = change.get("model")
        moving = [pk for pk, asset in found.items() if model is not None and model.pk != asset.model_id]
        existing = custom_values.values_of(moving) if moving else {}
        known = {key for key in data if isinstance(key, str) and key.startswith(custom_values.PREFIX)}
        customs: dict[int, custom_values.CustomInput | None] = {}
        failed: dict[int, Exception] = {}
        for pk in ids:
            asset = found.get(pk)
            try:
                if asset is None:
                    raise AssetNotFoundError()
                customs[pk] = self.row_custom(data, asset, model, existing=existing.get(pk, {}), known=known,
                                              check_unique=False)
            except (exceptions.ValidationError, AssetNotFoundError) as exc:
                failed[pk] = exc
        outcome = assets_bulk.asset_update_many(assets=[found[pk] for pk in customs], actor=self.request.user,
                                             data=change, customs=customs) if customs else {}
        results: list[dict[str, Any]] = []
        done: dict[int, Any] = {}
        for pk in ids:
            got = failed.get(pk) or outcome.get(pk)
            if isinstance(got, Exception):
                messages = error_messages(got)
                if messages is None:
                    raise got
                results.append(result_row(pk, "error", messages))
            else:
                done[pk] = got
                results.append(result_row(pk, "success", None))
        return results, done, customs

    def bulk_answer(self, results: list[dict], done: dict[int, Any],
                    customs: dict[int, custom_values.CustomInput | None]) -> Response:
        """The bulk update's answer: each successful row's record (read together) and its single PATCH's text."""
        context = self.get_serializer_context()
        records = {}
        for row in asset_rows(list(done)):
            custom = customs.get(row.pk)
            records[row.pk] = (AssetWriteRecordSerializer(row, context={**context, "echo": custom.echo if custom
                                                                        else {}}).data,
                               custom.message(UPDATE_TEXTS["one"], "update") if custom else UPDATE_TEXTS["one"])
        for row in results:
            if row["status"] == "success":
                row["payload"], row["messages"] = records[row["id"]]
        return Response(batch_answer(results, UPDATE_TEXTS))
