"""``/maintenances`` (Snipe-IT's ``AssetMaintenancesController``, API-CONTRACT.md shapes): list, read, create,
update (``PUT`` and ``PATCH`` both partial) and soft delete on the shared resource shape, plus
``GET maintenances/{id}/history`` (the action log of the maintenance, as ``GET hardware/{id}/history``).

A maintenance belongs to its asset's company: one of an asset the caller may not see is "not found", and such an
asset named by ``asset_id`` is as unknown as a missing one. Permissions: the ``maintenances`` keys, or for
compatibility the asset keys Snipe-IT checks (``assets.view`` to read, ``assets.edit`` to write; docs/decisions.md).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action

from activity.models import ActionLog
from assetsvc.api.permissions import HasItemPermission, required_permission
from assetsvc.api.viewsets import ResourceViewSet, item_service
from assetsvc.registry import hook
from assetsvc.scoping import limiting_company_id
from inventory.api.base import created_by_sort
from inventory.api.maintenances.filters import MaintenanceFilterSet
from inventory.api.maintenances.serializers import (
    MAINTENANCE_RELATED,
    MaintenanceSerializer,
    MaintenanceWriteSerializer,
)
from inventory.api.reports import activity_rows
from inventory.models import Maintenance
from inventory.services import maintenances

#: The asset key that also grants each maintenance key: what Snipe-IT authorizes these routes with.
ASSET_KEYS = {
    "maintenances.view": "assets.view",
    "maintenances.create": "assets.edit",
    "maintenances.edit": "assets.edit",
    "maintenances.delete": "assets.edit",
}
VERBS = ("view", "create", "edit", "delete")


def may(user, key: str) -> bool:
    """``key`` of the ``maintenances`` section, or the asset key Snipe-IT asks for instead."""
    checker = hook("permission_checker")
    return checker(user, key) or (key in ASSET_KEYS and checker(user, ASSET_KEYS[key]))


class MaintenancePermission(HasItemPermission):
    """The one permission class, with the asset keys accepted for the maintenance keys (:data:`ASSET_KEYS`)."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        key = required_permission(request, view)
        return key is None or may(user, key)


MAINTENANCE_SORTS: dict[str, Any] = {
    key: key for key in ("id", "title", "asset_maintenance_time", "asset_maintenance_type", "cost", "start_date",
                         "completion_date", "notes", "is_warranty", "created_at", "updated_at")
} | {"name": "title", "asset_tag": "asset__asset_tag", "asset_name": "asset__name", "serial": "asset__serial",
     "supplier": "supplier__name", "status_label": "asset__status__name", "created_by": created_by_sort()}
SEARCH_FIELDS = ("title", "notes", "asset_maintenance_type", "asset__name", "asset__asset_tag", "asset__serial",
                 "asset__model__name", "asset__model__model_number", "asset__status__name", "supplier__name")


def create_maintenance(*, model: type[Maintenance], data: dict[str, Any], actor) -> Maintenance:
    """``ResourceViewSet.create_service`` (called with the model) over :func:`maintenance_create`."""
    return maintenances.maintenance_create(data=data, actor=actor)


#: ``GET maintenances/{id}/history``: action-log rows in the shape of ``GET /reports/activity``.
HISTORY_SCHEMA = {
    "type": "object",
    "description": "``{total, rows}`` of action-log rows, newest first, in the shape of ``GET /reports/activity``.",
    "properties": {
        "total": {"type": "integer"},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "action_type": {"type": "string"},
            "item": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                                      "type": {"type": "string"}}},
            "target": {"type": "object", "nullable": True},
            "created_by": {"type": "object", "nullable": True},
            "log_meta": {"type": "object", "nullable": True},
            "created_at": {"type": "string", "format": "date-time"}}}},
    },
}


class MaintenanceViewSet(ResourceViewSet):
    queryset = Maintenance.objects.all()
    serializer_class = MaintenanceSerializer
    write_serializer_class = MaintenanceWriteSerializer
    filterset_class = MaintenanceFilterSet
    permission_classes = [MaintenancePermission]
    permission_section = "maintenances"
    not_found_message = maintenances.NOT_FOUND
    soft_deletes = True
    with_deleted_actions = frozenset({"history"})  # as hardware/{id}/history: a deleted one's log stays readable
    flat_keys = ("asset", "supplier")
    sort_fields = MAINTENANCE_SORTS
    search_fields = SEARCH_FIELDS
    messages: ClassVar[dict[str, str]] = {
        "create": "Asset Maintenance created successfully.",
        "update": "Asset Maintenance edited successfully.",
        "delete": "The asset maintenance was deleted successfully.",
    }
    action_permissions: ClassVar[dict[str, str | None]] = {"history": "view"}
    create_service = staticmethod(create_maintenance)
    update_service = item_service(maintenances.maintenance_update, "maintenance")
    delete_service = item_service(maintenances.maintenance_delete, "maintenance")
    selectlist = None  # Snipe-IT has no maintenance select list

    @cached_property
    def abilities(self) -> dict[str, bool]:
        return {verb: may(self.request.user, f"maintenances.{verb}") for verb in VERBS}

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return queryset.select_related(*MAINTENANCE_RELATED)

    @extend_schema(responses={200: HISTORY_SCHEMA})
    @action(detail=True, methods=["get"], filter_backends=[])
    def history(self, request, pk=None):
        """``GET maintenances/{id}/history``: the maintenance's action-log rows (create, updates, delete), newest
        first, as the caller may see them; a deleted maintenance's too."""
        maintenance = self.get_object()
        logs = ActionLog.objects.restrict(request.user).for_item(maintenances.ITEM_TYPE, maintenance.pk)
        page = self.paginate_queryset(logs.select_related("created_by", "location").order_by("-created_at", "-id"))
        return self.get_paginated_response(activity_rows(page, limiting_company_id(request.user)))
