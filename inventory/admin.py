"""Django admin for inventory. Assets go through the same services as the API (STYLE.md §2): their assignment,
status, counters and audit dates are read-only here, and checkout, checkin, audit, delete and restore are admin
actions calling ``inventory.services``. Catalogue models are registered plainly; the action log is in
``activity.admin``."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse

from accounts.models import User
from assetsvc.exceptions import DomainError
from inventory import services
from inventory.models import Asset, AssetModel, Category, Location, Manufacturer, StatusLabel, Supplier

SERVICE_OWNED = ["assigned_user", "assigned_asset", "assigned_location", "last_checkout", "last_checkin",
                 "expected_checkin", "last_audit_date", "next_audit_date", "checkin_counter", "checkout_counter",
                 "requests_counter", "deleted_at", "created_by", "created_at", "updated_at"]
EDITABLE = ["asset_tag", "name", "serial", "model", "status", "company", "supplier", "location", "rtd_location",
            "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod", "requestable"]


def _error_text(exc: Exception) -> str:
    if isinstance(exc, DomainError):
        return exc.message
    if isinstance(exc, ValidationError):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in getattr(exc, "message_dict", {"": exc.messages}).items())
    return str(exc)


class AssetAdminForm(forms.ModelForm):
    class Meta:
        model = Asset
        fields = EDITABLE

    def clean_asset_tag(self):
        tag = (self.cleaned_data.get("asset_tag") or "").strip()
        clash = Asset.objects.alive().filter(asset_tag__iexact=tag)
        if self.instance.pk:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise ValidationError(services.TAG_TAKEN)
        return tag


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
class AssetAdmin(admin.ModelAdmin):
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

    @admin.display(description="assigned to")
    def assigned_target(self, obj: Asset):
        target = obj.assigned_target
        return f"{obj.assigned_type}: {target}" if target is not None else "-"

    def get_readonly_fields(self, request, obj=None):
        # The label is chosen at creation; afterwards checkout/checkin (or the API) change it.
        return [*SERVICE_OWNED, "status"] if obj is not None else SERVICE_OWNED

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # a hard delete would skip the service
        return actions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # soft delete through the "delete selected assets" action only

    def save_model(self, request, obj: Asset, form, change) -> None:
        try:
            if change:
                data = {name: form.cleaned_data[name] for name in form.changed_data if name in EDITABLE}
                services.asset_update(asset=obj, actor=request.user, data=data)
            else:
                data = {name: form.cleaned_data.get(name) for name in EDITABLE}
                data = {k: v for k, v in data.items() if v is not None}
                created = services.asset_create(actor=request.user, data=data)
                obj.pk = created.pk
        except (DomainError, ValidationError) as exc:  # a race lost after the form validated
            self.message_user(request, _error_text(exc), level=messages.ERROR)

    def _each(self, request, queryset, call, done: str) -> None:
        ok = 0
        for asset in queryset:
            try:
                call(asset)
                ok += 1
            except (DomainError, ValidationError) as exc:
                self.message_user(request, f"{asset.asset_tag}: {_error_text(exc)}", level=messages.ERROR)
        if ok:
            self.message_user(request, f"{ok} asset(s) {done}.", level=messages.SUCCESS)

    @admin.action(description="Check out selected assets…")
    def checkout_selected(self, request, queryset):
        if "apply" in request.POST:
            form = CheckoutForm(request.POST)
            if form.is_valid():
                target, note = form.cleaned_data["target"], form.cleaned_data["note"]
                self._each(request, queryset,
                           lambda a: services.asset_checkout(asset=a, target=target, actor=request.user, note=note),
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
        self._each(request, queryset, lambda a: services.asset_checkin(asset=a, actor=request.user), "checked in")

    @admin.action(description="Audit selected assets")
    def audit_selected(self, request, queryset):
        self._each(request, queryset, lambda a: services.asset_audit(asset=a, actor=request.user), "audited")

    @admin.action(description="Delete selected assets (soft)")
    def delete_selected_assets(self, request, queryset):
        self._each(request, queryset, lambda a: services.asset_delete(asset=a, actor=request.user), "deleted")

    @admin.action(description="Restore selected assets")
    def restore_selected(self, request, queryset):
        self._each(request, queryset, lambda a: services.asset_restore(asset=a, actor=request.user), "restored")


@admin.register(StatusLabel)
class StatusLabelAdmin(admin.ModelAdmin):
    list_display = ["name", "type"]
    search_fields = ["name"]


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "category_type"]
    search_fields = ["name"]


@admin.register(AssetModel)
class AssetModelAdmin(admin.ModelAdmin):
    list_display = ["name", "model_number", "manufacturer", "category"]
    list_select_related = ["manufacturer", "category"]
    search_fields = ["name", "model_number"]


for catalogue_model in (Manufacturer, Supplier, Location):
    admin.site.register(catalogue_model, search_fields=["name"])
