"""Imports from Snipe-IT in the back office (issue 31), read-only and for super users: each run of
``manage.py import_snipeit`` with where it read from (never the token), its options, its state and its closing report
(per kind read, imported, resumed and skipped, each skipped record with why, the notes). Runs are started from the
command line only: an import of 100,000 assets is an operator's job, not a request's."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count
from django.utils.html import format_html

from assetsvc.admin_services import ReadOnlyModelAdmin
from inventory.models import SnipeitImport
from inventory.snipeit.report import ImportReport


@admin.register(SnipeitImport)
class SnipeitImportAdmin(ReadOnlyModelAdmin):
    list_display = ["source_url", "state", "started_at", "records"]
    fields = ["source_url", "state", "started_at", "finished_at", "options", "records", "closing_report"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(record_count=Count("records"))

    def has_module_permission(self, request) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request)

    @admin.display(description="records written", ordering="record_count")
    def records(self, obj: SnipeitImport) -> int:
        return obj.record_count

    @admin.display(description="report")
    def closing_report(self, obj: SnipeitImport):
        if not obj.report:
            return "(none yet: the run has not ended)"
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', ImportReport.from_dict(obj.report).render())
