"""What the API resource packages share: the select-list gate, the ``created_by`` sort, the base of the read shapes
(``RecordSerializer``) and the read-only date and money fields of records. The resource packages
(``inventory.api.assets``, ``catalogue``, ``stock``, ``licenses``, ``custom_fields``) import from here, never from each
other."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assetsvc.api.fields import IsoUtcField, UserBriefField, may_change_record
from assetsvc.api.formats import money, record_date
from assetsvc.api.viewsets import SELECTLIST_KEYS as SELECTLIST_KEYS  # the select-list gate, shared with users

#: Not-found texts of the catalogue records that asset lists hang under (``statuslabels/{id}/assetlist``,
#: ``locations/{id}/assets``, ``models/assets``), shared by the catalogue and the hardware views.
STATUS_LABEL_NOT_FOUND = "Statuslabel not found"
LOCATION_NOT_FOUND = "Location not found"
MODEL_NOT_FOUND = "AssetModel not found"


def created_by_sort() -> tuple[str, str]:
    return ("created_by__first_name", "created_by__last_name")


class RecordSerializer(serializers.ModelSerializer):
    """Base of the read shapes. ``context["can"]`` holds the caller's ``{view, create, edit, delete}`` booleans,
    computed once per request by the view; rows carry an ``in_use`` annotation for the delete flag."""

    created_by = UserBriefField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    available_actions = serializers.SerializerMethodField()

    def can(self, verb: str, obj: Any = None) -> bool:
        """The caller's right; ``edit`` and ``delete`` of ``obj`` also need that separation lets them change it (a
        shared record is changed only by callers it does not limit: issue 25)."""
        allowed = bool(self.context.get("can", {}).get(verb))
        return allowed and (obj is None or verb not in ("edit", "delete") or may_change_record(self.context, obj))

    def deletable(self, obj) -> bool:
        return (self.can("delete", obj) and not getattr(obj, "in_use", False)
                and getattr(obj, "deleted_at", None) is None)

    def get_available_actions(self, obj) -> dict[str, bool]:
        return {"update": self.can("edit", obj), "delete": self.deletable(obj)}


@extend_schema_field({"type": "string", "format": "date", "nullable": True})
class DateField(serializers.ReadOnlyField):
    def to_representation(self, value):
        return record_date(value)


@extend_schema_field({"type": "string", "format": "decimal", "nullable": True, "example": "12.50"})
class MoneyRecordField(serializers.ReadOnlyField):
    def to_representation(self, value):
        return money(value)
