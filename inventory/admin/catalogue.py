"""The catalogue admins: validated by the API's write serializers, saved, deleted and restored by
``inventory.services.catalogue``. Shared records (no company) change only for callers separation does not limit."""

from __future__ import annotations

from django.contrib import admin
from django.db import models

from accounts.models import User
from assetsvc.admin_services import (
    ServiceAdminMixin,
    ServiceModelForm,
    SoftDeleteAdminMixin,
)
from companies.querysets import may_change_catalogue_record
from inventory.admin.base import ScopedAdminMixin
from inventory.api.catalogue import serializers as catalogue_serializers
from inventory.models import (
    AssetModel,
    Category,
    Depreciation,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.services import catalogue as catalogue_services


class CatalogueForm(ServiceModelForm):
    """A catalogue entry: validated by the API's write serializer, saved by ``catalogue_item_create``/``_update``."""

    def call_service(self, data: dict):
        if self.adding:
            return catalogue_services.catalogue_item_create(model=self._meta.model, data=data, actor=self.actor)
        return catalogue_services.catalogue_item_update(item=self.instance, data=data, actor=self.actor)


def api_form(model: type[models.Model], serializer: type, base: type[ServiceModelForm] = CatalogueForm
             ) -> type[ServiceModelForm]:
    """The admin form of a model the API writes: exactly the fields of its write serializer, which validates them,
    saved by ``base.call_service``. Write aliases that are no model field (a license's ``product_key`` for
    ``serial``) stay API-only."""
    names = {field.name for field in model._meta.get_fields()}
    fields = [field.source for field in serializer().fields.values() if not field.read_only and field.source in names]
    meta = type("Meta", (), {"model": model, "fields": fields})
    return type(f"{model.__name__}Form", (base,), {"Meta": meta, "api_serializer": serializer})


class SharedCatalogueAdminMixin:
    """Shared catalogue records (no company) are changed only by callers whom separation does not limit (issue 25,
    ``catalogue_services.ensure_may_change_shared``): for anyone else their change page is read-only and offers no
    delete, and the list's delete action reports the services' refusal for each such row."""

    def _may_change(self, request, obj) -> bool:
        return obj is None or may_change_catalogue_record(request.user, getattr(obj, "company_id", None))

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) and self._may_change(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and self._may_change(request, obj)


class CatalogueAdmin(SharedCatalogueAdminMixin, ScopedAdminMixin, ServiceAdminMixin, admin.ModelAdmin):
    """Deletes call the model's delete service (refused, with the API's message, while the entry is in use)."""

    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at", "updated_at"]

    def delete_item(self, request, obj) -> None:
        catalogue_services.catalogue_item_delete(item=obj, actor=request.user)


class SoftDeletedCatalogueAdmin(SoftDeleteAdminMixin, CatalogueAdmin):
    """Manufacturers and models: deleted rows are listed with the filter "deleted", and can be restored."""

    readonly_fields = [*CatalogueAdmin.readonly_fields, "deleted_at"]

    def get_list_display(self, request):
        return [*super().get_list_display(request), "deleted_at"]

    def restore_item(self, request, obj) -> None:
        catalogue_services.catalogue_item_restore(item=obj, actor=request.user)


@admin.register(StatusLabel)
class StatusLabelAdmin(CatalogueAdmin):
    form = api_form(StatusLabel, catalogue_serializers.StatusLabelWriteSerializer)
    list_display = ["name", "type"]


@admin.register(Category)
class CategoryAdmin(CatalogueAdmin):
    form = api_form(Category, catalogue_serializers.CategoryWriteSerializer)
    list_display = ["name", "category_type", "require_acceptance", "use_default_eula", "checkin_email"]
    list_filter = ["category_type", "require_acceptance"]


@admin.register(Manufacturer)
class ManufacturerAdmin(SoftDeletedCatalogueAdmin):
    form = api_form(Manufacturer, catalogue_serializers.ManufacturerWriteSerializer)
    list_display = ["name", "url", "support_email"]


@admin.register(Supplier)
class SupplierAdmin(CatalogueAdmin):
    form = api_form(Supplier, catalogue_serializers.SupplierWriteSerializer)
    list_display = ["name", "contact", "email"]


@admin.register(Depreciation)
class DepreciationAdmin(CatalogueAdmin):
    form = api_form(Depreciation, catalogue_serializers.DepreciationWriteSerializer)
    list_display = ["name", "months", "depreciation_min", "depreciation_type"]


@admin.register(Location)
class LocationAdmin(CatalogueAdmin):
    form = api_form(Location, catalogue_serializers.LocationWriteSerializer)
    list_display = ["name", "parent", "company"]
    list_select_related = ["parent", "company"]
    autocomplete_fields = ["manager"]  # a user picker that searches (issue 28)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "manager":  # as the API: a deleted user manages nothing
            kwargs["queryset"] = User.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(AssetModel)
class AssetModelAdmin(SoftDeletedCatalogueAdmin):
    form = api_form(AssetModel, catalogue_serializers.AssetModelWriteSerializer)
    list_display = ["name", "model_number", "manufacturer", "category"]
    list_select_related = ["manufacturer", "category"]
    search_fields = ["name", "model_number"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "manufacturer":  # as the API: only live manufacturers
            kwargs["queryset"] = Manufacturer.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
