"""A test admin site with the CSV mixin on the asset and accessory admins (issue 14): the lead adds the mixin to the
real admins at merge time; until then the mixin is tested here. ``OpenSite`` lets any active user in (the real admin
admits super users only), to test company separation and rights through the mixin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import path

from assetsvc.urls import urlpatterns as project_urls
from inventory.admin.transfer import CsvImportExportMixin
from inventory.models import Accessory, Asset


class CsvAssetAdmin(CsvImportExportMixin, admin.ModelAdmin):
    csv_kind = "asset"
    actions = ["export_selected_csv", "export_selected_xlsx"]


class CsvAccessoryAdmin(CsvImportExportMixin, admin.ModelAdmin):
    csv_kind = "accessory"
    actions = ["export_selected_csv", "export_selected_xlsx"]


class OpenSite(admin.AdminSite):
    def has_permission(self, request):
        return request.user.is_active


class OpenAssetAdmin(CsvAssetAdmin):
    """Rights from the ``rights`` attribute (a test sets it), not from the user."""

    rights = {"add": True, "change": True, "view": True}

    def has_add_permission(self, request):
        return self.rights["add"]

    def has_change_permission(self, request, obj=None):
        return self.rights["change"]

    def has_view_permission(self, request, obj=None):
        return self.rights["view"]

    def has_delete_permission(self, request, obj=None):
        return False


csv_site = admin.AdminSite(name="csvadmin")
csv_site.register(Asset, CsvAssetAdmin)
csv_site.register(Accessory, CsvAccessoryAdmin)
open_site = OpenSite(name="openadmin")
open_site.register(Asset, OpenAssetAdmin)

urlpatterns = [path("csvadmin/", csv_site.urls), path("openadmin/", open_site.urls), *project_urls]
