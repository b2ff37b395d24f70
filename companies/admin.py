"""Companies in the settings UI (super users only), saved and deleted through ``companies.services`` with the API's
``CompanyWriteSerializer`` validating the input: a company that still has items or users cannot be deleted (rule 9,
the API's message), and every change is logged."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from assetsvc.admin_services import ServiceAdminMixin, ServiceModelForm
from companies import services
from companies.api.serializers import CompanyWriteSerializer
from companies.models import Company


class CompanyForm(ServiceModelForm):
    api_serializer = CompanyWriteSerializer

    class Meta:
        model = Company
        fields = list(services.WRITABLE_FIELDS)

    def call_service(self, data: dict[str, Any]) -> Company:
        if self.adding:
            return services.company_create(actor=self.actor, data=data)
        return services.company_update(actor=self.actor, company=self.instance, data=data)


@admin.register(Company)
class CompanyAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = CompanyForm
    list_display = ["name", "email", "phone", "created_at"]
    search_fields = ["name", "email"]
    readonly_fields = ["created_by", "created_at", "updated_at"]
    fields = ["name", "phone", "fax", "email", "tag_color", "notes", "created_by", "created_at", "updated_at"]

    def delete_item(self, request, obj: Company) -> None:
        services.company_delete(actor=request.user, company=obj)
