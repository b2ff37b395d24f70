"""Licenses, saved by ``inventory.services.licenses`` and deleted and restored by ``inventory.services.stock``;
their seats are checked out and in by ``item_checkout`` (a free seat) and ``inventory.services.licenses.seat_update``
(a given seat, as the API's seat PATCH)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import display_for_value
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from assetsvc.admin_services import (
    SERVICE_ERRORS,
    ReadOnlyModelAdmin,
    ServiceModelForm,
    error_text,
)
from inventory.admin.base import RELATED_ONLY, CheckinForm, CheckoutForm, ScopedAdminMixin, action_form_page, admin_link
from inventory.admin.catalogue import api_form
from inventory.admin.filters import LicenseAttentionFilter
from inventory.admin.stock import StockAdmin
from inventory.api.licenses import serializers as license_serializers
from inventory.models import (
    License,
    LicenseSeat,
)
from inventory.services import licenses
from inventory.services.checkout import Target


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
                   "reassignable", "maintained", LicenseAttentionFilter]
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
