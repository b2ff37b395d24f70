from django.contrib import admin

from companies.models import Company


@admin.register(Company)
class CompanyAdmin(admin.ModelAdmin):
    """Companies in the settings UI (super users only). Deleting goes through the API's rule-9 guard; the admin's own
    delete would fail on the protected foreign keys anyway, so it is not offered."""

    list_display = ["name", "email", "phone", "created_at"]
    search_fields = ["name", "email"]
    readonly_fields = ["created_by", "created_at", "updated_at"]
    fields = ["name", "phone", "fax", "email", "tag_color", "notes", "created_by", "created_at", "updated_at"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        from companies import services

        data = {field: form.cleaned_data.get(field) for field in services.WRITABLE_FIELDS}
        if change:
            saved = services.company_update(actor=request.user, company=obj, data=data)
        else:
            saved = services.company_create(actor=request.user, data=data)
        obj.pk = saved.pk
