"""Django admin for inventory. Assets go through the same services as the API (STYLE.md §2): they are saved by
``asset_create``/``asset_update`` while the form validates (a refusal is a form error), their assignment, status,
counters and audit dates are read-only here, and checkout, checkin, audit, delete and restore are admin actions
calling ``inventory.services``. Catalogue entries are validated by the API's write serializers and saved, deleted and
restored by ``inventory.catalogue_services``. The action log is in ``activity.admin``."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse

from accounts.models import User
from assetsvc.admin_services import ServiceAdminMixin, ServiceModelForm
from inventory import catalogue_services, services
from inventory.api.catalogue import serializers as catalogue_serializers
from inventory.models import Asset, AssetModel, Category, Location, Manufacturer, StatusLabel, Supplier

SERVICE_OWNED = ["assigned_user", "assigned_asset", "assigned_location", "last_checkout", "last_checkin",
                 "expected_checkin", "last_audit_date", "next_audit_date", "checkin_counter", "checkout_counter",
                 "requests_counter", "deleted_at", "created_by", "created_at", "updated_at"]
EDITABLE = ["asset_tag", "name", "serial", "model", "status", "company", "supplier", "location", "rtd_location",
            "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod", "requestable"]


class AssetAdminForm(ServiceModelForm):
    """Saved by ``asset_create`` (every filled field) or ``asset_update`` (the changed ones); the purchase cost and
    warranty limits are the model's (``Asset.clean``), shared with the API."""

    class Meta:
        model = Asset
        fields = EDITABLE

    def service_data(self) -> dict:
        if self.adding:
            return {name: value for name, value in self.cleaned_data.items() if value is not None}
        return {name: self.cleaned_data[name] for name in self.changed_data if name in self.cleaned_data}

    def call_service(self, data: dict) -> Asset:
        if self.adding:
            return services.asset_create(actor=self.actor, data=data)
        return services.asset_update(asset=self.instance, actor=self.actor, data=data)


class CheckoutForm(forms.Form):
    """Target of the "check out" admin action: exactly one of user, asset or location."""

    user = forms.ModelChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True), required=False)
    asset = forms.ModelChoiceField(Asset.objects.alive(), required=False)
    location = forms.ModelChoiceField(Location.objects.all(), required=False)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def clean(self):
        data = super().clean()
        chosen = [data.get(key) for key in ("user", "asset", "location") if data.get(key) is not None]
        if len(chosen) != 1:
            raise ValidationError("Choose exactly one target: a user, an asset or a location.")
        data["target"] = chosen[0]
        return data


@admin.register(Asset)
class AssetAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = AssetAdminForm
    list_display = ["asset_tag", "name", "model", "status", "company", "assigned_target", "location", "deleted_at"]
    list_filter = ["status", "company", ("deleted_at", admin.EmptyFieldListFilter)]
    search_fields = ["asset_tag", "name", "serial", "order_number"]
    list_select_related = ["model", "status", "company", "location", "assigned_user", "assigned_asset",
                           "assigned_location"]
    readonly_fields = SERVICE_OWNED
    raw_id_fields = ["model", "company", "supplier", "location", "rtd_location"]
    actions = ["checkout_selected", "checkin_selected", "audit_selected", "delete_selected_assets",
               "restore_selected"]
    bulk_delete_action = "delete_selected_assets"

    @admin.display(description="assigned to")
    def assigned_target(self, obj: Asset):
        target = obj.assigned_target
        return f"{obj.assigned_type}: {target}" if target is not None else "-"

    def get_readonly_fields(self, request, obj=None):
        # The label is chosen at creation; afterwards checkout/checkin (or the API) change it.
        return [*SERVICE_OWNED, "status"] if obj is not None else SERVICE_OWNED

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "model":  # as the API: a deleted model takes no new assets
            kwargs["queryset"] = AssetModel.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def delete_item(self, request, obj: Asset) -> None:
        services.asset_delete(asset=obj, actor=request.user)

    def restore_item(self, request, obj: Asset) -> None:
        services.asset_restore(asset=obj, actor=request.user)

    def _asset_each(self, request, queryset, call, done: str) -> None:
        self._each(request, queryset, lambda _request, asset: call(asset), done)

    @admin.action(description="Check out selected assets…")
    def checkout_selected(self, request, queryset):
        if "apply" in request.POST:
            form = CheckoutForm(request.POST)
            if form.is_valid():
                target, note = form.cleaned_data["target"], form.cleaned_data["note"]
                self._asset_each(request, queryset,
                                 lambda a: services.asset_checkout(asset=a, target=target, actor=request.user,
                                                                   note=note),
                                 "checked out")
                return None
        else:
            form = CheckoutForm()
        context = {**self.admin_site.each_context(request), "title": "Check out assets", "form": form,
                   "assets": queryset, "opts": self.model._meta,
                   "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME}
        return TemplateResponse(request, "admin/inventory/asset/checkout.html", context)

    @admin.action(description="Check in selected assets")
    def checkin_selected(self, request, queryset):
        self._asset_each(request, queryset, lambda a: services.asset_checkin(asset=a, actor=request.user),
                         "checked in")

    @admin.action(description="Audit selected assets")
    def audit_selected(self, request, queryset):
        self._asset_each(request, queryset, lambda a: services.asset_audit(asset=a, actor=request.user), "audited")

    @admin.action(description="Delete selected assets (soft)")
    def delete_selected_assets(self, request, queryset):
        self.delete_selected_items(request, queryset)


class CatalogueForm(ServiceModelForm):
    """A catalogue entry: validated by the API's write serializer, saved by ``catalogue_item_create``/``_update``."""

    def call_service(self, data: dict):
        if self.adding:
            return catalogue_services.catalogue_item_create(model=self._meta.model, data=data, actor=self.actor)
        return catalogue_services.catalogue_item_update(item=self.instance, data=data, actor=self.actor)


def catalogue_form(model, serializer) -> type[CatalogueForm]:
    """The admin form of one catalogue model: exactly the fields the API writes."""
    fields = [field.source for field in serializer().fields.values() if not field.read_only]
    meta = type("Meta", (), {"model": model, "fields": fields})
    return type(f"{model.__name__}Form", (CatalogueForm,), {"Meta": meta, "api_serializer": serializer})


class CatalogueAdmin(ServiceAdminMixin, admin.ModelAdmin):
    """Deletes call the model's delete service (refused, with the API's message, while the entry is in use)."""

    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at", "updated_at"]

    def delete_item(self, request, obj) -> None:
        catalogue_services.catalogue_item_delete(item=obj, actor=request.user)


class SoftDeletedCatalogueAdmin(CatalogueAdmin):
    """Manufacturers and models: deleted rows stay listed (filter "deleted at"), and can be restored."""

    readonly_fields = [*CatalogueAdmin.readonly_fields, "deleted_at"]

    def get_list_display(self, request):
        return [*super().get_list_display(request), "deleted_at"]

    def get_list_filter(self, request):
        return [*super().get_list_filter(request), ("deleted_at", admin.EmptyFieldListFilter)]

    def restore_item(self, request, obj) -> None:
        catalogue_services.catalogue_item_restore(item=obj, actor=request.user)


@admin.register(StatusLabel)
class StatusLabelAdmin(CatalogueAdmin):
    form = catalogue_form(StatusLabel, catalogue_serializers.StatusLabelWriteSerializer)
    list_display = ["name", "type"]


@admin.register(Category)
class CategoryAdmin(CatalogueAdmin):
    form = catalogue_form(Category, catalogue_serializers.CategoryWriteSerializer)
    list_display = ["name", "category_type"]


@admin.register(Manufacturer)
class ManufacturerAdmin(SoftDeletedCatalogueAdmin):
    form = catalogue_form(Manufacturer, catalogue_serializers.ManufacturerWriteSerializer)
    list_display = ["name", "url", "support_email"]


@admin.register(Supplier)
class SupplierAdmin(CatalogueAdmin):
    form = catalogue_form(Supplier, catalogue_serializers.SupplierWriteSerializer)
    list_display = ["name", "contact", "email"]


@admin.register(Location)
class LocationAdmin(CatalogueAdmin):
    form = catalogue_form(Location, catalogue_serializers.LocationWriteSerializer)
    list_display = ["name", "parent", "company"]
    list_select_related = ["parent", "company"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "manager":  # as the API: a deleted user manages nothing
            kwargs["queryset"] = User.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(AssetModel)
class AssetModelAdmin(SoftDeletedCatalogueAdmin):
    form = catalogue_form(AssetModel, catalogue_serializers.AssetModelWriteSerializer)
    list_display = ["name", "model_number", "manufacturer", "category"]
    list_select_related = ["manufacturer", "category"]
    search_fields = ["name", "model_number"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "manufacturer":  # as the API: only live manufacturers
            kwargs["queryset"] = Manufacturer.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
