"""Django admin for inventory, the back office (docs/back-office.md). Assets go through the same services as the API
(STYLE.md §2): they are saved by ``asset_create``/``asset_update`` while the form validates (a refusal is a form
error; the status is edited this way), their assignment, counters and audit dates are read-only here, and checkout,
checkin and audit are buttons on the asset's page and admin actions calling ``inventory.services.assets`` (delete and
restore are actions too); labels with the asset's QR code are printed from both; HISTORY is the action log.
Catalogue entries are validated by the API's write serializers and saved, deleted and restored by
``inventory.services.catalogue``. Accessories, consumables and components are validated by the API's write
serializers and saved, deleted and restored by ``inventory.services.stock``; their units are checked out, and accessory
checkout rows and component installation rows checked in, by ``inventory.services.checkout`` (the same log row and
webhook
signal as the API). Licenses are saved by ``inventory.services.licenses`` and deleted and restored by
``inventory.services.stock``; their
seats are checked out and in by ``item_checkout`` (a free seat) and ``inventory.services.licenses.seat_update`` (a
given seat,
as the API's seat PATCH). The action log is in ``activity.admin``.

Company separation reads every row through ``restrict(user)`` as the API does (``ScopedAdminMixin``). Super users and
administrators (the ``admin`` key) sign in (docs/decisions.md); a super user sees every company, an administrator with
a company only theirs when separation is on. Each user's page lists what they hold
(``HoldingsUserAdmin``, the user admin of ``accounts`` extended from here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import display_for_value, unquote
from django.contrib.admin.widgets import AdminDateWidget, AutocompleteSelect
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from accounts import admin as accounts_admin  # noqa: F401  (registers the user admin HoldingsUserAdmin extends)
from accounts.holdings import user_holdings as registered_holdings
from accounts.models import User
from activity.models import ActionLog
from assetsvc.admin_services import (
    SERVICE_ERRORS,
    ReadOnlyModelAdmin,
    ServiceAdminMixin,
    ServiceModelForm,
    current_request,
    error_text,
    restricted,
)
from assetsvc.api.fields import visible_reference
from assetsvc.scoping import limiting_company_id
from assetsvc.site import get_site_settings
from companies.querysets import may_change_catalogue_record
from inventory import admin_custom_values, labels
from inventory.admin_csv import CsvImportExportMixin
from inventory.api.catalogue import serializers as catalogue_serializers
from inventory.api.custom_fields import serializers as custom_field_serializers
from inventory.api.licenses import serializers as license_serializers
from inventory.api.reports import activity_rows
from inventory.api.stock import serializers as stock_serializers
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    AssetModel,
    Category,
    Component,
    ComponentAssignment,
    Consumable,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
    License,
    LicenseSeat,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.services import assets as services
from inventory.services import catalogue as catalogue_services
from inventory.services import custom_fields as custom_field_services
from inventory.services import licenses, stock
from inventory.services.checkout import Target, item_checkin, item_checkout

SERVICE_OWNED = ["assigned_user", "assigned_asset", "assigned_location", "last_checkout", "last_checkin",
                 "expected_checkin", "last_audit_date", "next_audit_date", "checkin_counter", "checkout_counter",
                 "requests_counter", "deleted_at", "created_by", "created_at", "updated_at"]
RELATED_ONLY = admin.RelatedOnlyFieldListFilter
EDITABLE = ["asset_tag", "name", "serial", "model", "status", "company", "supplier", "location", "rtd_location",
            "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod", "requestable"]


class AssetAdminForm(admin_custom_values.CustomValuesFormMixin, ServiceModelForm):
    """Saved by ``asset_create`` (every filled field) or ``asset_update`` (the changed ones); the purchase cost and
    warranty limits are the model's (``Asset.clean``), shared with the API. The custom fields of the model's fieldset
    are form fields too (``inventory.admin_custom_values``), written by the same call."""

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


def _autocomplete(field_name: str) -> AutocompleteSelect:
    """An autocomplete picker backed by the admin of the asset field's related model (its search fields, and its
    ``get_queryset``, so company separation applies to the suggestions too)."""
    return AutocompleteSelect(Asset._meta.get_field(field_name), admin.site)


class PickerForm(forms.Form):
    """A form of an admin action or page: given the acting ``user``, its row pickers offer only the rows that user
    may see (company separation; a row of another company is then an invalid choice)."""

    def __init__(self, *args: Any, user: User | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if user is not None:
            restrict_choices(self, user)


class CheckoutForm(PickerForm):
    """Target of the "check out" admin action: exactly one of user, asset or location."""

    user = forms.ModelChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True), required=False,
                                  widget=_autocomplete("assigned_user"))
    asset = forms.ModelChoiceField(Asset.objects.alive(), required=False, widget=_autocomplete("assigned_asset"))
    location = forms.ModelChoiceField(Location.objects.all(), required=False, widget=_autocomplete("assigned_location"))
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def clean(self):
        data = super().clean()
        chosen = [data.get(key) for key in ("user", "asset", "location") if data.get(key) is not None]
        if len(chosen) != 1:
            raise ValidationError("Choose exactly one target: a user, an asset or a location.")
        data["target"] = chosen[0]
        return data


def restrict_choices(form: forms.Form, user: User) -> None:
    """Company separation for a form's row pickers: each choice among rows of a scoped model is limited to the
    rows ``user`` may see (a target of another company is then an invalid choice)."""
    for field in form.fields.values():
        if getattr(field, "queryset", None) is not None:
            field.queryset = restricted(field.queryset, user)


def action_form_page(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: models.QuerySet,
                     form_class: type[forms.Form], *, action: str, title: str, intro: str, submit: str,
                     apply: Callable[[dict[str, Any]], None]) -> TemplateResponse | None:
    """The intermediate page of an admin action that needs input (a checkout's target, a checkin's note): the form,
    and once it is posted back valid with "apply", ``apply(cleaned_data)``. None sends the admin back to the list,
    where the messages ``apply`` left (one per refused row, one count of the done ones) are shown."""
    applying = "apply" in request.POST
    form = form_class(request.POST if applying else None, user=request.user)
    if applying and form.is_valid():
        apply(form.cleaned_data)
        return None
    context = {**model_admin.admin_site.each_context(request), "title": title, "intro": intro, "submit": submit,
               "form": form, "items": queryset, "action": action, "opts": model_admin.model._meta,
               "action_checkbox_name": ACTION_CHECKBOX_NAME}
    return TemplateResponse(request, "admin/inventory/action_form.html", context)


class ScopedAdminMixin:
    """Company separation in the admin, as in the API (STYLE.md §3): the changelist, change pages, autocomplete
    answers (Django's autocomplete reads the related admin's ``get_queryset``), actions, labels and history read rows
    through ``restrict(request.user)``, and foreign key choices are restricted the same way. Super users see every
    company; an administrator (the ``admin`` key, docs/decisions.md) with a company sees theirs only when separation
    is on.

    The company picker: companies are super users' business (an administrator has no right on the company admin,
    whose autocomplete would refuse them), so for anyone else it is a plain select of the companies they may see
    (their own, with separation on), and the services apply rule 7 on top. The list's company filter, which would
    name every company, is left out for a user limited to one."""

    def get_queryset(self, request):
        return restricted(super().get_queryset(request), request.user)

    def get_autocomplete_fields(self, request):
        fields = list(super().get_autocomplete_fields(request))
        return fields if request.user.is_superuser else [name for name in fields if name != "company"]

    def get_list_filter(self, request):
        filters = list(super().get_list_filter(request))
        if request.user.is_superuser or limiting_company_id(request.user) is None:  # rule 2 first: no settings read
            return filters
        return [item for item in filters if (item[0] if isinstance(item, list | tuple) else item) != "company"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        formfield = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if getattr(formfield, "queryset", None) is not None:
            formfield.queryset = restricted(formfield.queryset, request.user)
        return formfield


def render_with_request(request: HttpRequest, view: Callable[..., Any], *args: Any) -> Any:
    """``view(request, *args)`` rendered while ``current_request`` holds ``request``: read-only display callables
    get only the object, and the rows they list depend on who asks (company separation)."""
    token = current_request.set(request)
    try:
        response = view(request, *args)
        if hasattr(response, "render"):
            response.render()
        return response
    finally:
        current_request.reset(token)


def report_each(model_admin: admin.ModelAdmin, request: HttpRequest, items, call: Callable[[Any], Any],
                done: str) -> int:
    """Call ``call(item)`` for each item, each in its own transaction, and leave one message with the counts: "3
    assets checked out." or "2 assets checked out; 1 refused: A-1: That asset is already checked in." (a warning; an
    error when nothing was done). Returns how many were done."""
    count, refused = 0, []
    for item in items:
        try:
            with transaction.atomic():
                call(item)
        except SERVICE_ERRORS as exc:
            refused.append(f"{item}: {error_text(exc)}")
        else:
            count += 1
    opts = model_admin.opts
    summary = f"{count} {opts.verbose_name if count == 1 else opts.verbose_name_plural} {done}"
    if not refused:
        model_admin.message_user(request, f"{summary}.", level=messages.SUCCESS)
    else:
        level = messages.WARNING if count else messages.ERROR
        model_admin.message_user(request, f"{summary}; {len(refused)} refused: {'; '.join(refused)}", level=level)
    return count


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


class AssetCheckoutForm(PickerForm):
    """The asset page's "Check out" form: one target (a user, an asset or a location, each picked by autocomplete
    among the rows the admin may see), a note and an expected checkin date."""

    TARGET_FIELDS = {"user": "assigned_user", "asset": "assigned_asset", "location": "assigned_location"}

    checkout_to_type = forms.ChoiceField(label="Check out to", initial="user", widget=forms.RadioSelect,
                                         choices=[("user", "User"), ("asset", "Asset"), ("location", "Location")])
    assigned_user = forms.ModelChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True),
                                           required=False, label="User", widget=_autocomplete("assigned_user"))
    assigned_asset = forms.ModelChoiceField(Asset.objects.alive(), required=False, label="Asset",
                                            widget=_autocomplete("assigned_asset"))
    assigned_location = forms.ModelChoiceField(Location.objects.all(), required=False, label="Location",
                                               widget=_autocomplete("assigned_location"))
    expected_checkin = forms.DateField(required=False, widget=AdminDateWidget)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["note"].required = get_site_settings().require_checkinout_notes

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        field = self.TARGET_FIELDS.get(data.get("checkout_to_type", ""))
        if field is not None:
            if data.get(field) is None:
                self.add_error(field, "Choose whom or what the asset goes to.")
            data["target"] = data.get(field)
        return data


class AssetCheckinForm(PickerForm):
    """The asset page's "Check in" form (and the list action's): the note, which the site may require."""

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


def log_rows(request: HttpRequest, logs) -> list[dict[str, Any]]:
    """Action log rows as the admin shows them (the API's activity rows: names resolved, another company's people
    hidden): date, actor, action, item, target, note."""
    logs = list(logs)
    rows = activity_rows(logs, limiting_company_id(request.user))
    shown = []
    for log, row in zip(logs, rows, strict=True):
        target = row["target"]
        shown.append({"date": log.action_date or log.created_at, "action": row["action_type"],
                      "actor": row["admin"]["name"] if row["admin"] else "-",
                      "item": f"{row['item']['type']}: {row['item']['name'] or row['item']['id']}",
                      "target": f"{target['type']}: {target['name'] or target['id']}" if target else "-",
                      "note": row["note"] or "", "changes": row["log_meta"]})
    return shown


LOG_TABLE = ("<table><thead><tr><th>Date</th><th>Actor</th><th>Action</th><th>Item</th><th>Target</th><th>Note</th>"
             "</tr></thead><tbody>{}</tbody></table>")
#: How many rows of the action log the asset's change page shows (the history page shows them all).
RECENT_LOG_ROWS = 10


def object_form_page(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, *,
                     form_class: type[PickerForm], title: str, submit: str,
                     apply: Callable[[Any, dict[str, Any]], str]):
    """A form page of one item (the buttons of its change page): on a valid post, ``apply(item, cleaned_data)``
    calls the service and returns the success message, and the admin goes back to the item's page; a refusal is an
    error message on the same page, and nothing is written."""
    obj = model_admin.get_object(request, unquote(object_id))
    opts = model_admin.opts
    if obj is None:
        return model_admin._get_obj_does_not_exist_redirect(request, opts, object_id)
    if not model_admin.has_change_permission(request, obj):
        raise PermissionDenied
    posted = request.method == "POST"
    form = form_class(request.POST if posted else None, user=request.user)
    if posted and form.is_valid():
        try:
            message = apply(obj, form.cleaned_data)
        except SERVICE_ERRORS as exc:
            model_admin.message_user(request, f"{obj}: {error_text(exc)}", level=messages.ERROR)
        else:
            model_admin.message_user(request, message, level=messages.SUCCESS)
            return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
    context = {**model_admin.admin_site.each_context(request), "title": f"{title}: {obj}", "subtitle": None,
               "form": form, "original": obj, "opts": opts, "submit": submit, "media": model_admin.media + form.media}
    return TemplateResponse(request, "admin/inventory/object_form.html", context)


class ActionLogHistoryMixin:
    """The HISTORY page of an item is its action log, newest first (Snipe-IT's history tab), instead of Django's
    admin log (the services write the action log; Django's log has no rows for them); the change page shows the
    latest rows read-only ("latest activity"). ``log_item_type`` is the item's type in the log."""

    log_item_type: ClassVar[str]

    def _logs(self, request, obj):
        return (ActionLog.objects.restrict(request.user).for_item(self.log_item_type, obj.pk)
                .select_related("created_by", "location").order_by("-created_at", "-id"))

    @admin.display(description="latest activity")
    def recent_activity(self, obj) -> SafeString | str:
        request = current_request.get()
        if request is None or obj.pk is None:
            return "-"
        rows = log_rows(request, self._logs(request, obj)[:RECENT_LOG_ROWS])
        if not rows:
            return "-"
        cells = [(display_for_value(row["date"], "-"), row["actor"], row["action"], row["item"], row["target"],
                  row["note"] or "-") for row in rows]
        opts = self.opts
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_history", args=[obj.pk])
        return format_html('{}<p><a href="{}">Whole history…</a></p>',
                           format_html(LOG_TABLE, format_html_join(
                               "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                               cells)), url)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return render_with_request(request, super().changeform_view, object_id, form_url, extra_context)

    def history_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        context = {**self.admin_site.each_context(request), "title": f"History: {obj}", "subtitle": None,
                   "object": obj, "opts": self.opts, "rows": log_rows(request, self._logs(request, obj)),
                   **(extra_context or {})}
        return TemplateResponse(request, "admin/inventory/history.html", context)


@admin.register(Asset)
class AssetAdmin(CsvImportExportMixin, ActionLogHistoryMixin, ScopedAdminMixin, ServiceAdminMixin, admin.ModelAdmin):
    csv_kind = "asset"
    """Assets: saved by ``asset_create``/``asset_update`` (the status too), checked out, in and audited from the list
    (actions) and from the asset's page (buttons, each a form page calling the same service as the API), labels
    printed from both; the HISTORY page is the asset's action log."""

    form = AssetAdminForm
    log_item_type = "asset"
    change_form_template = "admin/inventory/asset/change_form.html"
    list_display = ["asset_tag", "name", "model", "status", "company", "assigned_target", "location", "deleted_at"]
    list_filter = ["status", "company", ("location", RELATED_ONLY), ("model", RELATED_ONLY),
                   ("model__category", RELATED_ONLY), AssignedFilter, ("deleted_at", admin.EmptyFieldListFilter)]
    search_fields = ["asset_tag", "name", "serial", "order_number"]
    list_select_related = ["model", "status", "company", "location", "assigned_user", "assigned_asset",
                           "assigned_location"]
    readonly_fields = [*SERVICE_OWNED, "recent_activity"]
    autocomplete_fields = ["model", "status", "company", "location", "rtd_location", "supplier"]
    actions = ["checkout_selected", "checkin_selected", "audit_selected", "print_labels", "delete_selected_assets",
               "restore_selected", "export_selected_csv", "export_selected_xlsx"]
    bulk_delete_action = "delete_selected_assets"

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
            services.asset_checkin(asset=asset, actor=request.user, note=data["note"])
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
                                                                            note=data["note"]),
                                           "checked in"))

    @admin.action(description="Audit selected assets")
    def audit_selected(self, request, queryset):
        report_each(self, request, queryset, lambda a: services.asset_audit(asset=a, actor=request.user), "audited")

    @admin.action(description="Delete selected assets (soft)", permissions=["delete"])
    def delete_selected_assets(self, request, queryset):
        self.delete_selected_items(request, queryset)


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
    form = api_form(StatusLabel, catalogue_serializers.StatusLabelWriteSerializer)
    list_display = ["name", "type"]


@admin.register(Category)
class CategoryAdmin(CatalogueAdmin):
    form = api_form(Category, catalogue_serializers.CategoryWriteSerializer)
    list_display = ["name", "category_type"]


@admin.register(Manufacturer)
class ManufacturerAdmin(SoftDeletedCatalogueAdmin):
    form = api_form(Manufacturer, catalogue_serializers.ManufacturerWriteSerializer)
    list_display = ["name", "url", "support_email"]


@admin.register(Supplier)
class SupplierAdmin(CatalogueAdmin):
    form = api_form(Supplier, catalogue_serializers.SupplierWriteSerializer)
    list_display = ["name", "contact", "email"]


@admin.register(Location)
class LocationAdmin(CatalogueAdmin):
    form = api_form(Location, catalogue_serializers.LocationWriteSerializer)
    list_display = ["name", "parent", "company"]
    list_select_related = ["parent", "company"]

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


# --- custom fields and fieldsets (docs/custom-fields.md) -----------------------------------------------------------


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


# --- accessories and consumables ----------------------------------------------------------------------------------


class StockForm(ServiceModelForm):
    """An accessory or a consumable: validated by the API's write serializer, saved by ``stock_create`` /
    ``stock_update``, so the service's rules (qty never below the units out, a category of the kind's type, rule 7 for
    the company) refuse here with the API's messages."""

    def call_service(self, data: dict) -> models.Model:
        if self.adding:
            return stock.stock_create(model=self._meta.model, data=data, actor=self.actor)
        return stock.stock_update(item=self.instance, data=data, actor=self.actor)


class StockCheckoutForm(CheckoutForm):
    """Target of "check out units": one user, asset or location, and how many units each selected item hands out
    (the service compares them with what remains, under the item's lock)."""

    quantity = forms.IntegerField(initial=1)
    field_order = ["user", "asset", "location", "quantity", "note"]


class ConsumableCheckoutForm(StockCheckoutForm):
    """Consumables are handed to a user only."""

    user = forms.ModelChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True),
                                  widget=_autocomplete("assigned_user"))
    asset = None
    location = None

    def clean(self) -> dict[str, Any]:
        data = forms.Form.clean(self)
        data["target"] = data.get("user")
        return data


class CheckinForm(PickerForm):
    """Input of "check in": a note (the site may require one, as for the API) and how many units of each row come
    back; empty returns all of them."""

    quantity = forms.IntegerField(required=False, help_text="Units to return from each row; empty returns them all.")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


def shown_target(obj: Target | None) -> Target | None:
    """``obj`` (a holder) unless separation hides it from the caller of the page being rendered (another company's
    user or asset: issue 25); read-only display callables get only the object, so the request comes from
    ``current_request`` (:func:`render_with_request`)."""
    request = current_request.get()
    if obj is None or request is None or isinstance(obj, Location):
        return obj
    return visible_reference(obj, limiting_company_id(request.user))


def admin_link(obj: Target | None) -> SafeString | str:
    """A checkout target as "<type>: <link to its admin page>", so the holder is one click away."""
    if obj is None:
        return "-"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('{}: <a href="{}">{}</a>', opts.verbose_name, url,
                       obj.full_name if isinstance(obj, User) else str(obj))


STOCK_OWNED = ["created_by", "created_at", "updated_at", "deleted_at"]


class StockAdmin(CsvImportExportMixin, ActionLogHistoryMixin, ScopedAdminMixin, ServiceAdminMixin, admin.ModelAdmin):
    """What the accessory and consumable admins share; each declares its kind, form and checkout form.

    The list annotates the units out with the kind's subquery (as the API's list), so a page is one query whatever
    its length and "units out" / "remaining" sort in the database. Deleted rows stay listed (filter "deleted at") and
    can be restored. Who holds what is a read-only table on the item's page, not an inline: nothing of it is posted
    back with the item's form, and rows change only by checkout and checkin."""

    kind: ClassVar[stock.StockKind]
    checkout_form: ClassVar[type[forms.Form]] = StockCheckoutForm
    checkout_intro: ClassVar[str] = "Check out units of these items to one user, asset or location:"
    list_display = ["name", "category", "company", "qty", "units_out", "remaining", "location", "deleted_at"]
    list_filter = [("category", RELATED_ONLY), "company", ("manufacturer", RELATED_ONLY), ("supplier", RELATED_ONLY),
                   ("location", RELATED_ONLY), ("deleted_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "model_number", "order_number", "category__name", "manufacturer__name", "supplier__name"]
    list_select_related = ["category", "company", "location"]
    autocomplete_fields = ["category", "company", "manufacturer", "supplier", "location"]
    actions = ["checkout_selected", "export_selected_csv", "export_selected_xlsx"]
    change_form_template = "admin/inventory/stock_change_form.html"

    @property
    def log_item_type(self) -> str:
        return self.kind.item_type

    def get_queryset(self, request):
        return (super().get_queryset(request).annotate(units_out=self.kind.assigned_subquery())
                .annotate(remaining_units=F(self.kind.total_field) - F("units_out")))

    def get_readonly_fields(self, request, obj=None):
        # A new item has nothing out yet.
        return STOCK_OWNED if obj is None else ["units_out", "remaining", "holders", "recent_activity", *STOCK_OWNED]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "manufacturer":  # as the API: only live manufacturers
            kwargs["queryset"] = Manufacturer.objects.filter(deleted_at__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="units out", ordering="units_out")
    def units_out(self, obj) -> int:
        return obj.units_out

    @admin.display(description="remaining", ordering="remaining_units")
    def remaining(self, obj) -> int:
        return max(obj.remaining_units, 0)

    @admin.display(description="who holds what")
    def holders(self, obj) -> SafeString | str:
        """Every assignment row of the item (holder, units, note, by, when), newest first; for a kind checked in by
        row, a link to its rows' list, where they are checked in."""
        kind = self.kind
        rows = (kind.assignment_model._default_manager.filter(**{kind.item_field: obj})
                .select_related("created_by", *kind.assignment_target_fields.values()))
        cells = [(admin_link(kind.assignment_target(row)), row.assigned_qty, row.note or "-",
                  row.created_by.full_name if row.created_by else "-", display_for_value(row.created_at, "-"))
                 for row in rows]
        if not cells:
            return "-"
        table = format_html(
            "<table><thead><tr><th>Holder</th><th>Units</th><th>Note</th><th>By</th><th>When</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", cells))
        if not kind.returnable:
            return table
        opts = kind.assignment_model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        return format_html('{}<p><a href="{}?{}__id__exact={}">Check units in…</a></p>', table, url, kind.item_field,
                           obj.pk)

    def checkin_url(self, obj) -> str | None:
        """Where the item's units are checked in: its assignment rows' list (none for a kind used up)."""
        if not self.kind.returnable:
            return None
        opts = self.kind.assignment_model._meta
        return (f"{reverse(f'admin:{opts.app_label}_{opts.model_name}_changelist')}"
                f"?{self.kind.item_field}__id__exact={obj.pk}")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        extra = {"checkin_url": self.checkin_url(obj) if obj is not None else None,
                 "checkout_label": self.checkout_button}
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        info = f"{self.opts.app_label}_{self.opts.model_name}"
        return [path("<path:object_id>/checkout/", self.admin_site.admin_view(self.checkout_view),
                     name=f"{info}_checkout"), *super().get_urls()]

    #: The text of the change page's checkout button.
    checkout_button: ClassVar[str] = "Check out units"

    def checkout_view(self, request, object_id):
        """The item's "check out" button: the kind's checkout form for this one item, through ``item_checkout``."""
        def apply(item, data: dict[str, Any]) -> str:
            item_checkout(kind=self.kind, item=item, target=data["target"], actor=request.user,
                          quantity=data["quantity"], note=data["note"])
            return f"{item}: checked out to {data['target']}."

        return object_form_page(self, request, object_id, form_class=self.checkout_form, title=self.checkout_button,
                                submit="Check out", apply=apply)

    def delete_item(self, request, obj) -> None:
        stock.stock_delete(item=obj, actor=request.user)

    def restore_item(self, request, obj) -> None:
        stock.stock_restore(item=obj, actor=request.user)

    @admin.action(description="Check out units of selected %(verbose_name_plural)s…")
    def checkout_selected(self, request, queryset):
        def apply(data: dict[str, Any]) -> None:
            self._each(request, queryset,
                       lambda _request, item: item_checkout(kind=self.kind, item=item, target=data["target"],
                                                            actor=request.user, quantity=data["quantity"],
                                                            note=data["note"]),
                       "checked out")

        return action_form_page(self, request, queryset, self.checkout_form, action="checkout_selected",
                                title=f"Check out {self.opts.verbose_name_plural}", intro=self.checkout_intro,
                                submit="Check out", apply=apply)


@admin.register(Accessory)
class AccessoryAdmin(StockAdmin):
    csv_kind = "accessory"
    form = api_form(Accessory, stock_serializers.AccessoryWriteSerializer, StockForm)
    kind = stock.ACCESSORY


@admin.register(Consumable)
class ConsumableAdmin(StockAdmin):
    csv_kind = "consumable"
    form = api_form(Consumable, stock_serializers.ConsumableWriteSerializer, StockForm)
    kind = stock.CONSUMABLE
    checkout_form = ConsumableCheckoutForm
    checkout_intro = "Hand units of these consumables to one user:"
    checkout_button = "Hand out units"
    search_fields = [*StockAdmin.search_fields, "item_no"]


@admin.register(AccessoryCheckout)
class AccessoryCheckoutAdmin(ScopedAdminMixin, ReadOnlyModelAdmin):
    """Accessory units out, one row per checkout: written and removed only by checkout and checkin. The one action
    checks selected rows in through ``item_checkin`` (the same log row and signal as ``POST accessories/{id}/checkin``);
    a refused row is an error message and the others go on."""

    #: The kind whose rows these are, and the texts of the checkin page ("done" counts the rows checked in).
    kind: ClassVar[stock.StockKind] = stock.ACCESSORY
    checkin_texts: ClassVar[dict[str, str]] = {"title": "Check in accessories",
                                               "intro": "Check these accessory units back in:",
                                               "done": "{done} checkout rows checked in."}
    list_display = ["accessory", "holder", "assigned_qty", "note", "created_by", "created_at"]
    list_filter = [("accessory", RELATED_ONLY)]
    list_select_related = ["accessory", "assigned_user", "assigned_asset", "assigned_location", "created_by"]
    search_fields = ["accessory__name", "assigned_user__username", "assigned_user__first_name",
                     "assigned_user__last_name", "assigned_asset__asset_tag", "assigned_asset__name",
                     "assigned_location__name", "note"]
    actions = ["checkin_selected"]

    @admin.display(description="holder")
    def holder(self, row) -> SafeString | str:
        return admin_link(self.kind.assignment_target(row))

    @admin.action(description="Check in selected checkout rows…")
    def checkin_selected(self, request, queryset):
        def apply(data: dict[str, Any]) -> None:
            done = 0
            for row in queryset:
                try:
                    item_checkin(kind=self.kind, item=getattr(row, self.kind.item_field), actor=request.user,
                                 assignment=row, quantity=data["quantity"], note=data["note"])
                except SERVICE_ERRORS as exc:
                    self.message_user(request, f"{row}: {error_text(exc)}", level=messages.ERROR)
                else:
                    done += 1
            if done:
                self.message_user(request, self.checkin_texts["done"].format(done=done), level=messages.SUCCESS)

        return action_form_page(self, request, queryset, CheckinForm, action="checkin_selected",
                                title=self.checkin_texts["title"], intro=self.checkin_texts["intro"],
                                submit="Check in", apply=apply)


# --- components -----------------------------------------------------------------------------------------------------


class ComponentCheckoutForm(StockCheckoutForm):
    """Components are installed into an asset only (a live one; the service checks it again under the lock)."""

    asset = forms.ModelChoiceField(Asset.objects.alive(), widget=_autocomplete("assigned_asset"))
    user = None
    location = None

    def clean(self) -> dict[str, Any]:
        data = forms.Form.clean(self)
        data["target"] = data.get("asset")
        return data


@admin.register(Component)
class ComponentAdmin(StockAdmin):
    """As the accessory admin: validated by the API's write serializer, saved, deleted and restored by
    ``inventory.services.stock`` (a component with units installed cannot be deleted), units installed by
    ``inventory.services.checkout`` with the API's log row (components send no notifications)."""
    csv_kind = "component"

    form = api_form(Component, stock_serializers.ComponentWriteSerializer, StockForm)
    kind = stock.COMPONENT
    checkout_form = ComponentCheckoutForm
    checkout_intro = "Install units of these components into one asset:"
    checkout_button = "Install units"
    search_fields = [*StockAdmin.search_fields, "serial"]


@admin.register(ComponentAssignment)
class ComponentAssignmentAdmin(AccessoryCheckoutAdmin):
    """Component units installed in assets, one row per installation (Snipe-IT's ``components_assets``): written and
    removed only by checkout and checkin. The action takes selected rows out through ``item_checkin`` (all their
    units, or as many as asked), as ``POST components/{id}/checkin``."""

    kind = stock.COMPONENT
    checkin_texts: ClassVar[dict[str, str]] = {"title": "Check in components",
                                               "intro": "Take these component units out of their assets:",
                                               "done": "{done} installation rows checked in."}
    list_display = ["component", "holder", "assigned_qty", "note", "created_by", "created_at"]
    list_filter = [("component", RELATED_ONLY)]
    list_select_related = ["component", "assigned_asset", "created_by"]
    search_fields = ["component__name", "component__serial", "assigned_asset__asset_tag", "assigned_asset__name",
                     "note"]


# --- licenses -------------------------------------------------------------------------------------------------------


class LicenseForm(ServiceModelForm):
    """A license: validated by the API's write serializer, saved by ``license_create`` / ``license_update``, so seats
    follow ``seats`` (never below the assigned ones) with the API's messages. The product key is an ordinary field
    here: only super users and administrators sign in to the admin, and ``admin`` passes ``licenses.keys``."""

    def call_service(self, data: dict) -> License:
        if self.adding:
            return licenses.license_create(data=data, actor=self.actor)
        return licenses.license_update(item=self.instance, data=data, actor=self.actor)


class LicenseCheckoutForm(CheckoutForm):
    """One free seat of each selected license goes to one user or one asset."""

    location = None
    quantity = forms.IntegerField(initial=1, min_value=1, max_value=1, widget=forms.HiddenInput)


@admin.register(License)
class LicenseAdmin(StockAdmin):
    """Licenses as a stock whose units are seats: "units out" are the assigned seats and "remaining" the free ones
    (the kind's subquery), deletes and restores by the stock services, and the checkout action hands out the first
    free seat of each license. The change page shows every seat and links to the seat list, where given seats are
    checked out and in."""
    csv_kind = "license"

    form = api_form(License, license_serializers.LicenseWriteSerializer, LicenseForm)
    kind = licenses.LICENSE
    checkout_form = LicenseCheckoutForm
    checkout_intro = "Check out one free seat of each of these licenses to one user or asset:"
    list_display = ["name", "category", "company", "seats", "units_out", "remaining", "expiration_date",
                    "reassignable", "deleted_at"]
    list_filter = [("category", RELATED_ONLY), "company", ("manufacturer", RELATED_ONLY), ("supplier", RELATED_ONLY),
                   "reassignable", "maintained", ("deleted_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "serial", "order_number", "purchase_order", "license_name", "license_email",
                     "category__name", "manufacturer__name", "supplier__name"]
    list_select_related = ["category", "company"]
    autocomplete_fields = ["category", "company", "manufacturer", "supplier"]

    checkout_button = "Check out a seat"

    def checkin_url(self, obj) -> str:
        return f"{reverse('admin:inventory_licenseseat_changelist')}?license__id__exact={obj.pk}"

    @admin.display(description="seats")
    def holders(self, obj) -> SafeString | str:
        """Every seat of the license (holder, notes, last change) in id order, and a link to check them out or in."""
        rows = LicenseSeat.objects.filter(license=obj).select_related("assigned_user", "assigned_asset")
        cells = [(seat.pk, admin_link(seat.assigned_target), seat.notes or "-", display_for_value(seat.updated_at, "-"))
                 for seat in rows]
        opts = LicenseSeat._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        return format_html(
            "<table><thead><tr><th>Seat</th><th>Holder</th><th>Notes</th><th>Changed</th></tr></thead>"
            '<tbody>{}</tbody></table><p><a href="{}?license__id__exact={}">Check seats out or in…</a></p>',
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", cells), url, obj.pk)


class SeatCheckoutForm(CheckoutForm):
    """A seat goes to one user or one asset."""

    location = None


class SeatCheckinForm(CheckinForm):
    quantity = None


@admin.register(LicenseSeat)
class LicenseSeatAdmin(ScopedAdminMixin, ReadOnlyModelAdmin):
    """License seats, written only by the license's services: the actions check selected seats out to one user or
    asset, or in, through ``seat_update`` (the API's seat PATCH: the same lock, rules, log rows and signals); a
    refused seat is an error message and the others go on."""

    list_display = ["__str__", "license", "holder", "notes", "updated_at"]
    list_filter = [("license", RELATED_ONLY)]
    list_select_related = ["license", "assigned_user", "assigned_asset"]
    search_fields = ["license__name", "assigned_user__username", "assigned_user__first_name",
                     "assigned_user__last_name", "assigned_asset__asset_tag", "assigned_asset__name", "notes"]
    actions = ["checkout_selected", "checkin_selected"]

    @admin.display(description="holder")
    def holder(self, seat: LicenseSeat) -> SafeString | str:
        return admin_link(seat.assigned_target)

    def _seats_each(self, request, queryset, target: Target | None, note: str, done: str) -> None:
        count = 0
        for seat in queryset:
            try:
                licenses.seat_update(license=seat.license_id, seat=seat, target=target, actor=request.user,
                                     note=note)
            except SERVICE_ERRORS as exc:
                self.message_user(request, f"{seat}: {error_text(exc)}", level=messages.ERROR)
            else:
                count += 1
        if count:
            self.message_user(request, f"{count} seats {done}.", level=messages.SUCCESS)

    @admin.action(description="Check out selected seats…")
    def checkout_selected(self, request, queryset):
        return action_form_page(self, request, queryset, SeatCheckoutForm, action="checkout_selected",
                                title="Check out license seats", intro="Check these seats out to one user or asset:",
                                submit="Check out",
                                apply=lambda data: self._seats_each(request, queryset, data["target"], data["note"],
                                                                    "checked out"))

    @admin.action(description="Check in selected seats…")
    def checkin_selected(self, request, queryset):
        return action_form_page(self, request, queryset, SeatCheckinForm, action="checkin_selected",
                                title="Check in license seats", intro="Check these seats back in:", submit="Check in",
                                apply=lambda data: self._seats_each(request, queryset, None, data["note"],
                                                                    "checked in"))


# --- users: what each one holds -------------------------------------------------------------------------------------


def _link(obj: models.Model, text: str) -> SafeString:
    opts = obj._meta
    return format_html('<a href="{}">{}</a>', reverse(f"admin:{opts.app_label}_{opts.model_name}_change",
                                                      args=[obj.pk]), text)


def user_holdings(viewer: User, user: User) -> list[tuple[str, list[tuple[SafeString, str, str]]]]:
    """What ``user`` holds, by kind, among the rows ``viewer`` may see: (kind, [(link, units, since)]). The rows come
    from the user-holdings registry (``accounts.holdings``: the same rows the user record counts and the delete guard
    refuses on); components are installed in assets, never handed to users."""
    held = {holding.name: holding for holding in registered_holdings()}

    def rows(name: str) -> models.QuerySet:
        return held[name].held_by(user).restrict(viewer)

    assets = rows("assets").select_related("model").order_by("asset_tag")
    accessories = rows("accessories").select_related("accessory").order_by("-created_at")
    consumables = rows("consumables").select_related("consumable").order_by("-created_at")
    seats = rows("licenses").select_related("license").order_by("pk")
    return [
        ("Assets", [(_link(a, f"{a.asset_tag} {a.name or (a.model.name if a.model_id else '')}".strip()), "1",
                     display_for_value(a.last_checkout, "-")) for a in assets]),
        ("Accessories", [(_link(row.accessory, str(row.accessory)), str(row.assigned_qty),
                          display_for_value(row.created_at, "-")) for row in accessories]),
        ("Consumables", [(_link(row.consumable, str(row.consumable)), str(row.assigned_qty),
                          display_for_value(row.created_at, "-")) for row in consumables]),
        ("License seats", [(_link(seat.license, f"{seat.license} (seat {seat.pk})"), "1",
                            display_for_value(seat.updated_at, "-")) for seat in seats]),
    ]


_RegisteredUserAdmin = type(admin.site._registry[User])


class HoldingsUserAdmin(ScopedAdminMixin, _RegisteredUserAdmin):
    """The user admin of ``accounts`` (registered there), with what the user holds on their page: assets, accessory
    units, consumables and license seats, read-only. Added here because only inventory knows these kinds (the lower
    layer imports nothing above it). Users are listed and suggested within the admin's company, as in the API."""

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "holdings"] if obj is not None else fields

    def get_fieldsets(self, request, obj=None):
        fieldsets = list(super().get_fieldsets(request, obj))
        return [*fieldsets, ("Holds", {"fields": ["holdings"]})] if obj is not None else fieldsets

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return render_with_request(request, super().changeform_view, object_id, form_url, extra_context)

    @admin.display(description="what this user holds")
    def holdings(self, obj: User) -> SafeString | str:
        request = current_request.get()
        if request is None or obj.pk is None:
            return "-"
        sections = [(kind, rows) for kind, rows in user_holdings(request.user, obj) if rows]
        if not sections:
            return "Nothing checked out."
        return format_html_join(
            "", "<h4>{} ({})</h4><table><thead><tr><th>Item</th><th>Units</th><th>Since</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            ((kind, len(rows), format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", rows))
             for kind, rows in sections))


admin.site.unregister(User)
admin.site.register(User, HoldingsUserAdmin)
