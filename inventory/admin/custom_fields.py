"""The custom field and fieldset admins (docs/custom-fields.md), through ``inventory.services.custom_fields``."""

from __future__ import annotations

from django.contrib import admin

from assetsvc.admin_services import (
    ServiceAdminMixin,
    ServiceModelForm,
)
from inventory.admin.catalogue import SharedCatalogueAdminMixin, api_form
from inventory.api.custom_fields import serializers as custom_field_serializers
from inventory.models import (
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
)
from inventory.services import custom_fields as custom_field_services


class CustomFieldForm(ServiceModelForm):
    """A custom field: validated by the API's write serializer, saved by ``custom_field_create``/``_update``."""

    def call_service(self, data: dict):
        if self.adding:
            return custom_field_services.custom_field_create(data=data, actor=self.actor)
        return custom_field_services.custom_field_update(field=self.instance, data=data, actor=self.actor)


class CustomFieldsetForm(ServiceModelForm):
    def call_service(self, data: dict):
        if self.adding:
            return custom_field_services.custom_fieldset_create(data=data, actor=self.actor)
        return custom_field_services.custom_fieldset_update(fieldset=self.instance, data=data, actor=self.actor)


@admin.register(CustomField)
class CustomFieldAdmin(SharedCatalogueAdminMixin, ServiceAdminMixin, admin.ModelAdmin):
    """The column name is fixed at creation (read-only here); a field in a fieldset cannot be deleted."""

    form = api_form(CustomField, custom_field_serializers.CustomFieldWriteSerializer, base=CustomFieldForm)
    list_display = ["name", "db_column_name", "element", "format", "field_encrypted", "is_unique"]
    search_fields = ["name", "db_column_name"]
    readonly_fields = ["db_column_name", "created_by", "created_at", "updated_at"]

    def delete_item(self, request, obj) -> None:
        custom_field_services.custom_field_delete(field=obj, actor=request.user)


class CustomFieldsetFieldInline(admin.TabularInline):
    """The set's fields with their order and required flag, saved as a whole by ``custom_fieldset_set_fields``."""

    model = CustomFieldsetField
    fields = ["field", "order", "required"]
    extra = 1
    ordering = ["order", "id"]


@admin.register(CustomFieldset)
class CustomFieldsetAdmin(SharedCatalogueAdminMixin, ServiceAdminMixin, admin.ModelAdmin):
    """A fieldset that has fields or is used by a model cannot be deleted."""

    form = api_form(CustomFieldset, custom_field_serializers.CustomFieldsetWriteSerializer, base=CustomFieldsetForm)
    inlines = [CustomFieldsetFieldInline]
    list_display = ["name", "created_at"]
    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at", "updated_at"]

    def delete_item(self, request, obj) -> None:
        custom_field_services.custom_fieldset_delete(fieldset=obj, actor=request.user)

    def save_formset(self, request, form, formset, change) -> None:
        """The inline's rows go to the service as one list (never raw saves): kept rows, new rows, minus deleted."""
        rows = []
        for row in formset.forms:
            data = getattr(row, "cleaned_data", None) or {}
            if not data or data.get("DELETE") or data.get("field") is None:
                continue
            rows.append((data["field"], bool(data.get("required")), int(data.get("order") or 0)))
        if not change:  # a new set keeps the fields it received for ``auto_add_to_fieldsets``
            listed = {field.pk for field, _, _ in rows}
            rows += [(m.field, m.required, m.order) for m in form.instance.memberships.select_related("field")
                     if m.field_id not in listed]
        custom_field_services.custom_fieldset_set_fields(fieldset=form.instance, rows=rows, actor=request.user)
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
