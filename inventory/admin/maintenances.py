"""Maintenances, validated by the API's write serializer and saved and deleted by ``inventory.services.maintenances``
(the time in days follows the dates; a log row per change). Listed with their asset and supplier, filtered by type,
warranty, supplier, open or completed, deleted or not, and scoped by the asset's company. The asset's page lists its
maintenances (:func:`maintenances_of`: read-only, each linked to its own page)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import display_for_value
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from assetsvc.admin_services import ServiceAdminMixin, ServiceModelForm, SoftDeleteAdminMixin
from inventory.admin.base import RELATED_ONLY, ActionLogHistoryMixin, ScopedAdminMixin
from inventory.admin.catalogue import api_form
from inventory.api.maintenances.serializers import MaintenanceWriteSerializer
from inventory.models import Asset, Maintenance
from inventory.services import maintenances


class MaintenanceForm(ServiceModelForm):
    """A maintenance: saved by ``maintenance_create`` / ``maintenance_update`` with the API's rules and messages."""

    def call_service(self, data: dict) -> Maintenance:
        if self.adding:
            return maintenances.maintenance_create(data=data, actor=self.actor)
        return maintenances.maintenance_update(maintenance=self.instance, data=data, actor=self.actor)


@admin.register(Maintenance)
class MaintenanceAdmin(SoftDeleteAdminMixin, ActionLogHistoryMixin, ScopedAdminMixin, ServiceAdminMixin,
                       admin.ModelAdmin):
    form = api_form(Maintenance, MaintenanceWriteSerializer, MaintenanceForm)
    log_item_type = maintenances.ITEM_TYPE
    list_display = ["title", "asset", "asset_maintenance_type", "supplier", "start_date", "completion_date",
                    "asset_maintenance_time", "is_warranty", "deleted_at"]
    list_filter = ["asset_maintenance_type", "is_warranty", ("supplier", RELATED_ONLY),
                   ("completion_date", admin.EmptyFieldListFilter)]
    search_fields = ["title", "notes", "asset__asset_tag", "asset__name", "asset__serial", "supplier__name"]
    list_select_related = ["asset", "asset__model", "supplier"]
    autocomplete_fields = ["asset", "supplier"]
    readonly_fields = ["asset_maintenance_time", "created_by", "created_at", "updated_at", "deleted_at",
                       "recent_activity"]
    date_hierarchy = "start_date"

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "asset":  # as the API: only live assets are maintained
            kwargs["queryset"] = Asset.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def delete_item(self, request, obj) -> None:
        maintenances.maintenance_delete(maintenance=obj, actor=request.user)


def maintenances_of(asset: Asset) -> SafeString | str:
    """The asset's live maintenances as a read-only table on its page, newest first, each linked to its own page,
    with a link to add one."""
    rows = Maintenance.objects.filter(asset=asset, deleted_at__isnull=True).select_related("supplier").order_by(
        "-start_date", "-id")
    cells = [(format_html('<a href="{}">{}</a>', reverse("admin:inventory_maintenance_change", args=[row.pk]),
                          row.title),
              row.asset_maintenance_type, row.supplier.name if row.supplier else "-",
              display_for_value(row.start_date, "-"), display_for_value(row.completion_date, "-"),
              "in progress" if row.completion_date is None else f"{row.asset_maintenance_time} days")
             for row in rows]
    add = f"{reverse('admin:inventory_maintenance_add')}?asset={asset.pk}"
    table = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                             cells)
    return format_html(
        "<table><thead><tr><th>Title</th><th>Type</th><th>Supplier</th><th>Start</th><th>Completion</th>"
        '<th>Time</th></tr></thead><tbody>{}</tbody></table><p><a href="{}">Add a maintenance…</a></p>', table, add)
