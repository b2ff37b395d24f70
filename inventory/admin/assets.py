"""The asset admin (docs/back-office.md). Assets are saved by ``asset_create``/``asset_update`` while the form
validates (a refusal is a form error); their assignment, counters and audit dates are read-only here; checkout,
checkin and audit are buttons on the asset's page and admin actions calling ``inventory.services.assets`` (delete and
restore are actions too); labels with the asset's QR code are printed from both; HISTORY is the action log."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AdminDateWidget
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from accounts.models import User
from assetsvc.admin_services import (
    ServiceAdminMixin,
    ServiceModelForm,
    SoftDeleteAdminMixin,
)
from assetsvc.admin_site import PickerChoiceField
from assetsvc.site import get_site_settings
from inventory import labels
from inventory.admin import custom_values as admin_custom_values
from inventory.admin.base import (
    RELATED_ONLY,
    ActionLogHistoryMixin,
    CheckoutForm,
    PickerForm,
    ScopedAdminMixin,
    TargetPickerForm,
    _autocomplete,
    action_form_page,
    admin_link,
    object_form_page,
    render_with_request,
    report_each,
    shown_target,
)
from inventory.admin.filters import (
    AcceptanceFilter,
    AuditDueFilter,
    CheckinDueFilter,
    StatusTypeFilter,
    WarrantyFilter,
)
from inventory.admin.maintenances import maintenances_of
from inventory.admin.transfer import CsvImportExportMixin
from inventory.models import (
    Asset,
    AssetModel,
    Location,
    StatusLabel,
)
from inventory.services import assets as services

SERVICE_OWNED = ["assigned_user", "assigned_asset", "assigned_location", "last_checkout", "last_checkin",
                 "expected_checkin", "last_audit_date", "next_audit_date", "checkin_counter", "checkout_counter",
                 "requests_counter", "deleted_at", "created_by", "created_at", "updated_at"]


EDITABLE = ["asset_tag", "name", "serial", "model", "status", "company", "supplier", "location", "rtd_location",
            "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod", "requestable"]


class AssetAdminForm(admin_custom_values.CustomValuesFormMixin, ServiceModelForm):
    """Saved by ``asset_create`` (every filled field) or ``asset_update`` (the changed ones); the purchase cost and
    warranty limits are the model's (``Asset.clean``), shared with the API. The custom fields of the model's fieldset
    are form fields too (``inventory.admin.custom_values``), written by the same call."""

    class Meta:
        model = Asset
        fields = EDITABLE

    def service_data(self) -> dict:
        own = self.model_field_names()
        if self.adding:
            return {name: value for name, value in self.cleaned_data.items() if value is not None and name in own}
        return {name: self.cleaned_data[name] for name in self.changed_data if name in own & set(self.cleaned_data)}

    def extra_post_clean(self) -> None:
        self.read_custom_values()

    def call_service(self, data: dict) -> Asset:
        if self.adding:
            return services.asset_create(actor=self.actor, data=data, custom=self.custom)
        return services.asset_update(asset=self.instance, actor=self.actor, data=data, custom=self.custom)


class AssignedFilter(admin.SimpleListFilter):
    """Assets checked out (to anyone or anything) or not."""

    title = "assigned"
    parameter_name = "assigned"

    def lookups(self, request, model_admin):
        return [("yes", "Checked out"), ("no", "Not checked out")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.checked_out()
        if self.value() == "no":
            return queryset.exclude(pk__in=queryset.checked_out().values("pk"))
        return queryset


class AssetCheckoutForm(TargetPickerForm):
    """The asset page's "Check out" form: one target (a user, an asset or a location, each picked by autocomplete
    among the rows the admin may see; the page shows the chosen kind's picker only), a note and an expected checkin
    date."""

    TARGET_FIELDS = {"user": "assigned_user", "asset": "assigned_asset", "location": "assigned_location"}

    assigned_user = PickerChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True),
                                      required=False, label="User", widget=_autocomplete("assigned_user"))
    assigned_asset = PickerChoiceField(Asset.objects.alive(), required=False, label="Asset",
                                       widget=_autocomplete("assigned_asset"))
    assigned_location = PickerChoiceField(Location.objects.all(), required=False, label="Location",
                                          widget=_autocomplete("assigned_location"))
    expected_checkin = forms.DateField(required=False, widget=AdminDateWidget)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["note"].required = get_site_settings().require_checkinout_notes


class AssetCheckinForm(PickerForm):
    """The asset page's "Check in" form (and the list action's), as ``POST /hardware/{id}/checkin``: the status the
    asset gets (empty: it keeps its own), the location it goes to (empty: its default location), and the note, which
    the site may require."""

    status = forms.ModelChoiceField(StatusLabel.objects.order_by("name"), required=False, label="Status",
                                    help_text="Empty: the asset keeps its status.")
    location = PickerChoiceField(Location.objects.all(), required=False, label="Location",
                                 widget=_autocomplete("location"),
                                 help_text="Empty: the asset goes back to its default location.")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if get_site_settings().require_checkinout_notes:
            self.fields["note"].required = True
            self.fields["note"].help_text = "The site settings require a note on every checkin."


class AssetAuditForm(PickerForm):
    """The asset page's "Audit" form: a note and the next audit date (empty: today plus the site's interval)."""

    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    next_audit_date = forms.DateField(required=False, widget=AdminDateWidget,
                                      help_text="Empty: today plus the audit interval of the site settings.")


#: Rows of the lookup's short list (more: a link to the searched list).
LOOKUP_ROWS = 20


@admin.register(Asset)
class AssetAdmin(SoftDeleteAdminMixin, CsvImportExportMixin, ActionLogHistoryMixin, ScopedAdminMixin, ServiceAdminMixin,
                 admin.ModelAdmin):
    csv_kind = "asset"
    """Assets: saved by ``asset_create``/``asset_update`` (the status too), checked out, in and audited from the list
    (actions) and from the asset's page (buttons, each a form page calling the same service as the API), labels
    printed from both; the HISTORY page is the asset's action log."""

    form = AssetAdminForm
    log_item_type = "asset"
    change_form_template = "admin/inventory/asset/change_form.html"
    list_display = ["asset_tag", "name", "model", "status", "company", "assigned_target", "location", "deleted_at"]
    list_filter = ["status", "company", ("location", RELATED_ONLY), ("model", RELATED_ONLY),
                   ("model__category", RELATED_ONLY), AssignedFilter, StatusTypeFilter, AuditDueFilter,
                   CheckinDueFilter, WarrantyFilter, AcceptanceFilter]
    search_fields = ["asset_tag", "name", "serial", "order_number"]
    list_select_related = ["model", "status", "company", "location", "assigned_user", "assigned_asset",
                           "assigned_location"]
    readonly_fields = [*SERVICE_OWNED, "recent_activity", "maintenances"]
    autocomplete_fields = ["model", "status", "company", "location", "rtd_location", "supplier"]
    actions = ["checkout_selected", "checkin_selected", "audit_selected", "print_labels", "delete_selected_assets",
               "restore_selected", "export_selected_csv", "export_selected_xlsx"]
    bulk_delete_action = "delete_selected_assets"

    @admin.display(description="maintenances")
    def maintenances(self, obj: Asset) -> SafeString | str:
        return maintenances_of(obj)

    @admin.display(description="assigned to")
    def assigned_target(self, obj: Asset) -> SafeString | str:
        return admin_link(shown_target(obj.assigned_target))

    @admin.display(description="assigned user")
    def assigned_user_shown(self, obj: Asset) -> SafeString | str:
        return admin_link(shown_target(obj.assigned_user))

    @admin.display(description="assigned asset")
    def assigned_asset_shown(self, obj: Asset) -> SafeString | str:
        return admin_link(shown_target(obj.assigned_asset))

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return SERVICE_OWNED
        # the holder as the API shows it: null when another company's user or asset (issue 25)
        shown = {"assigned_user": "assigned_user_shown", "assigned_asset": "assigned_asset_shown"}
        return [shown.get(name, name) for name in self.readonly_fields]

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is None:
            return fields
        shown = {"assigned_user": "assigned_user_shown", "assigned_asset": "assigned_asset_shown"}
        return list(dict.fromkeys(shown.get(name, name) for name in fields))

    def changelist_view(self, request, extra_context=None):
        return render_with_request(request, super().changelist_view, extra_context)

    def get_form(self, request, obj=None, **kwargs):
        kwargs.setdefault("form", admin_custom_values.form_class(self.form, request, obj))
        return super().get_form(request, obj, **kwargs)

    def get_fieldsets(self, request, obj=None):
        return admin_custom_values.with_custom_section(super().get_fieldsets(request, obj))

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "model":  # as the API: a deleted model takes no new assets
            kwargs["queryset"] = AssetModel.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_search_results(self, request, queryset, search_term):
        # the autocomplete's labels name the model of an asset without a name (Asset.picker_label): one query
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.select_related("model"), may_have_duplicates

    def delete_item(self, request, obj: Asset) -> None:
        services.asset_delete(asset=obj, actor=request.user)

    def restore_item(self, request, obj: Asset) -> None:
        services.asset_restore(asset=obj, actor=request.user)

    # --- the asset page's buttons ---------------------------------------------------------------------------------

    def get_urls(self):
        info = f"{self.opts.app_label}_{self.opts.model_name}"
        wrap = self.admin_site.admin_view
        return [
            path("labels/", wrap(self.labels_view), name=f"{info}_labels"),
            path("lookup/", wrap(self.lookup_view), name=f"{info}_lookup"),
            path("<path:object_id>/checkout/", wrap(self.checkout_view), name=f"{info}_checkout"),
            path("<path:object_id>/checkin/", wrap(self.checkin_view), name=f"{info}_checkin"),
            path("<path:object_id>/audit/", wrap(self.audit_view), name=f"{info}_audit"),
            *super().get_urls(),
        ]

    def checkout_view(self, request, object_id):
        def apply(asset: Asset, data: dict[str, Any]) -> str:
            services.asset_checkout(asset=asset, target=data["target"], actor=request.user, note=data["note"],
                                    expected_checkin=data["expected_checkin"])
            return f"{asset} checked out to {data['target']}."

        return object_form_page(self, request, object_id, form_class=AssetCheckoutForm, title="Check out",
                                submit="Check out", apply=apply)

    def checkin_view(self, request, object_id):
        def apply(asset: Asset, data: dict[str, Any]) -> str:
            services.asset_checkin(asset=asset, actor=request.user, note=data["note"], status=data["status"],
                                   location=data["location"])
            return f"{asset} checked in."

        return object_form_page(self, request, object_id, form_class=AssetCheckinForm, title="Check in",
                                submit="Check in", apply=apply)

    def audit_view(self, request, object_id):
        def apply(asset: Asset, data: dict[str, Any]) -> str:
            audited, _log = services.asset_audit(asset=asset, actor=request.user, note=data["note"],
                                                 next_audit_date=data["next_audit_date"])
            return f"{asset} audited; next audit on {audited.next_audit_date:%Y-%m-%d}."

        return object_form_page(self, request, object_id, form_class=AssetAuditForm, title="Audit", submit="Audit",
                                apply=apply)

    # --- the tag or serial box of every page ----------------------------------------------------------------------

    def lookup_view(self, request):
        """``lookup/?q=TAG``: the header's box (a barcode scanner types the tag and Enter). The asset whose tag is
        ``q`` (ignoring case) opens; else the one whose serial is ``q``; several with that serial give a short
        list; none leads to the list searched for ``q`` with a message. Only assets the user may see are looked at
        (company separation), deleted ones too (their page says so)."""
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        text = request.GET.get("q", "").strip()[:255]
        changelist = reverse("admin:inventory_asset_changelist")
        if not text:
            return HttpResponseRedirect(changelist)
        visible = self.get_queryset(request).select_related("model", "status")
        found = list(visible.filter(asset_tag__iexact=text)[:2])
        if not found:
            found = list(visible.filter(serial__iexact=text).order_by("deleted_at", "asset_tag")[:LOOKUP_ROWS + 1])
        if len(found) == 1:
            return HttpResponseRedirect(reverse("admin:inventory_asset_change", args=[found[0].pk]))
        if not found:
            self.message_user(request, f"No asset has the tag or serial “{text}”; the list below is searched for it.",
                              level=messages.WARNING)
            return HttpResponseRedirect(f"{changelist}?{urlencode({'q': text})}")
        context = {**self.admin_site.each_context(request), "title": f"Assets with the serial “{text}”",
                   "opts": self.opts, "assets": found[:LOOKUP_ROWS], "more": len(found) > LOOKUP_ROWS,
                   "search_url": f"{changelist}?{urlencode({'q': text})}"}
        return TemplateResponse(request, "admin/inventory/asset/lookup.html", context)

    # --- labels ---------------------------------------------------------------------------------------------------

    def labels_view(self, request):
        """``labels/?ids=1,2,3&sheet=l7160``: a printable page of the visible assets among ``ids``, laid out on the
        chosen label sheet (tag, name, model and the QR code of ``GET hardware/{id}/qr``)."""
        ids = [int(part) for part in request.GET.get("ids", "").split(",") if part.strip().isdigit()]
        sheet = labels.LABEL_SHEETS.get(request.GET.get("sheet", ""), labels.LABEL_SHEETS[labels.DEFAULT_LABEL_SHEET])
        assets = list(self.get_queryset(request).filter(pk__in=ids).select_related("model").order_by("asset_tag"))
        cells = [{"asset": asset, "model": asset.model.name if asset.model_id else "",
                  "qr": mark_safe(labels.asset_qr_svg_inline(  # noqa: S308 (segno's own markup)
                      asset, request.build_absolute_uri(labels.admin_path(asset))))} for asset in assets]
        pages = [cells[start:start + sheet.per_page] for start in range(0, len(cells), sheet.per_page)]
        context = {**self.admin_site.each_context(request), "title": "Asset labels", "opts": self.opts,
                   "sheet": sheet, "sheets": labels.LABEL_SHEETS.values(), "pages": pages, "count": len(cells),
                   "ids": ",".join(str(asset.pk) for asset in assets)}
        return TemplateResponse(request, "admin/inventory/asset/labels.html", context)

    @admin.action(description="Print labels of selected assets")
    def print_labels(self, request, queryset):
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return HttpResponseRedirect(f"{reverse('admin:inventory_asset_labels')}?ids={ids}")

    # --- list actions ---------------------------------------------------------------------------------------------

    @admin.action(description="Check out selected assets…")
    def checkout_selected(self, request, queryset):
        def apply(data: dict[str, Any]) -> None:
            report_each(self, request, queryset,
                        lambda a: services.asset_checkout(asset=a, target=data["target"], actor=request.user,
                                                          note=data["note"]),
                        "checked out")

        return action_form_page(self, request, queryset, CheckoutForm, action="checkout_selected",
                                title="Check out assets", submit="Check out", apply=apply,
                                intro="Check out these assets to one user, asset or location:")

    @admin.action(description="Check in selected assets…")
    def checkin_selected(self, request, queryset):
        return action_form_page(
            self, request, queryset, AssetCheckinForm, action="checkin_selected", title="Check in assets",
            submit="Check in", intro="Check these assets back in:",
            apply=lambda data: report_each(self, request, queryset,
                                           lambda a: services.asset_checkin(asset=a, actor=request.user,
                                                                            note=data["note"], status=data["status"],
                                                                            location=data["location"]),
                                           "checked in"))

    @admin.action(description="Audit selected assets")
    def audit_selected(self, request, queryset):
        report_each(self, request, queryset, lambda a: services.asset_audit(asset=a, actor=request.user), "audited")

    @admin.action(description="Delete selected assets (soft)", permissions=["delete"])
    def delete_selected_assets(self, request, queryset):
        self.delete_selected_items(request, queryset)
