"""Checkout requests in the back office: who asked for which asset or model, and their note to IT. An administrator
fulfils a request (the asset, or an available asset of the requested model, is checked out to the requester by the
same checkout service as the API's, in one transaction with closing the request) or declines it; requests are written
only by those services, the requester's API calls and the employees' pages."""

from __future__ import annotations

from django.contrib import admin
from django.utils.text import Truncator

from assetsvc.admin_services import ReadOnlyModelAdmin
from inventory.admin.base import ScopedAdminMixin, admin_link, report_each
from inventory.models import CheckoutRequest
from inventory.services import requests as services


class OpenFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("open", "Open"), ("fulfilled", "Fulfilled"), ("canceled", "Canceled")]

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.open()
        if self.value() == "fulfilled":
            return queryset.filter(fulfilled_at__isnull=False)
        if self.value() == "canceled":
            return queryset.filter(canceled_at__isnull=False)
        return queryset


@admin.register(CheckoutRequest)
class CheckoutRequestAdmin(ScopedAdminMixin, ReadOnlyModelAdmin):
    list_display = ["item_link", "requester", "created_at", "state", "note_excerpt", "fulfilled_by"]
    list_filter = [OpenFilter]
    list_select_related = ["asset", "asset__model", "model", "user", "fulfilled_by"]
    search_fields = ["asset__asset_tag", "asset__name", "model__name", "user__username", "user__first_name",
                     "user__last_name", "note"]
    actions = ["fulfil_selected", "decline_selected"]
    date_hierarchy = "created_at"

    @admin.display(description="asset or model", ordering="asset__asset_tag")
    def item_link(self, obj: CheckoutRequest):
        return admin_link(obj.asset if obj.asset_id is not None else obj.model)

    @admin.display(description="note")
    def note_excerpt(self, obj: CheckoutRequest) -> str:
        return Truncator(obj.note).chars(80) if obj.note else "—"

    @admin.display(description="requested by", ordering="user__username")
    def requester(self, obj: CheckoutRequest):
        return admin_link(obj.user)

    @admin.display(description="state")
    def state(self, obj: CheckoutRequest) -> str:
        return obj.state

    @admin.action(description="Check out to the requester")
    def fulfil_selected(self, request, queryset):
        report_each(self, request, queryset.select_related("asset", "model", "user"),
                    lambda item: services.request_fulfil(request=item, actor=request.user), "fulfilled")

    @admin.action(description="Decline selected requests")
    def decline_selected(self, request, queryset):
        report_each(self, request, queryset,
                    lambda item: services.request_decline(request=item, actor=request.user), "declined")
