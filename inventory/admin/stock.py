"""Accessories, consumables and components: validated by the API's write serializers and saved, deleted and
restored by ``inventory.services.stock``; their units are checked out, and accessory checkout rows and component
installation rows checked in, by ``inventory.services.checkout`` (the same log row and webhook signal as the API)."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import display_for_value, unquote
from django.db import models
from django.db.models import F
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.models import User
from assetsvc.admin_services import (
    SERVICE_ERRORS,
    ReadOnlyModelAdmin,
    ServiceAdminMixin,
    ServiceModelForm,
    SoftDeleteAdminMixin,
    error_text,
)
from assetsvc.admin_site import PickerChoiceField
from inventory.admin.base import (
    RELATED_ONLY,
    ActionLogHistoryMixin,
    CheckinForm,
    CheckoutForm,
    ScopedAdminMixin,
    _autocomplete,
    action_form_page,
    admin_link,
    object_form_page,
)
from inventory.admin.catalogue import api_form
from inventory.admin.filters import LowStockFilter
from inventory.admin.transfer import CsvImportExportMixin
from inventory.api.stock import serializers as stock_serializers
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    Component,
    ComponentAssignment,
    Consumable,
    Manufacturer,
)
from inventory.services import stock
from inventory.services.checkout import item_checkin, item_checkout


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
    #: The services' names of the quantity (the API's), shown beside this form's field.
    SERVICE_FIELD_NAMES: ClassVar[dict[str, str]] = {"checkout_qty": "quantity", "assigned_qty": "quantity"}


class ConsumableCheckoutForm(StockCheckoutForm):
    """Consumables are handed to a user only."""

    user = PickerChoiceField(User.objects.filter(deleted_at__isnull=True, is_active=True),
                                  widget=_autocomplete("assigned_user"))
    asset = None
    location = None

    def clean(self) -> dict[str, Any]:
        data = forms.Form.clean(self)
        data["target"] = data.get("user")
        return data


STOCK_OWNED = ["created_by", "created_at", "updated_at", "deleted_at"]


class StockAdmin(SoftDeleteAdminMixin, CsvImportExportMixin, ActionLogHistoryMixin, ScopedAdminMixin, ServiceAdminMixin,
                 admin.ModelAdmin):
    """What the accessory and consumable admins share; each declares its kind, form and checkout form.

    The list annotates the units out with the kind's subquery (as the API's list), so a page is one query whatever
    its length and "units out" / "remaining" sort in the database. Deleted rows are listed with the filter "deleted"
    and can be restored. Who holds what is a read-only table on the item's page, not an inline: nothing of it is posted
    back with the item's form, and rows change only by checkout and checkin."""

    kind: ClassVar[stock.StockKind]
    checkout_form: ClassVar[type[forms.Form]] = StockCheckoutForm
    checkout_intro: ClassVar[str] = "Check out units of these items to one user, asset or location:"
    list_display = ["name", "category", "company", "qty", "units_out", "remaining", "location", "deleted_at"]
    list_filter = [("category", RELATED_ONLY), "company", ("manufacturer", RELATED_ONLY), ("supplier", RELATED_ONLY),
                   ("location", RELATED_ONLY), LowStockFilter]
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


class ComponentCheckoutForm(StockCheckoutForm):
    """Components are installed into an asset only (a live one; the service checks it again under the lock)."""

    asset = PickerChoiceField(Asset.objects.alive(), widget=_autocomplete("assigned_asset"))
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
