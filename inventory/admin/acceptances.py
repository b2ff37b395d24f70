"""Checkout acceptances in the back office (issue 29), read-only: who was asked to accept which item, and what they
answered. Rows are written only by the checkout and checkin services and the acceptance page
(``inventory.services.acceptance``); the signed EULA's PDF is the person's stored file (``activity``'s files admin
downloads it with the usual checks)."""

from __future__ import annotations

from django.contrib import admin
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

from assetsvc.admin_services import ReadOnlyModelAdmin
from inventory.admin.base import ScopedAdminMixin, admin_link
from inventory.models import CheckoutAcceptance

ITEM_MODELS = {"asset": "asset", "accessory": "accessory", "consumable": "consumable", "component": "component",
               "license": "license"}


@admin.register(CheckoutAcceptance)
class CheckoutAcceptanceAdmin(ScopedAdminMixin, ReadOnlyModelAdmin):
    list_display = ["item", "person", "state", "created_at", "answered_at"]
    list_filter = ["state", "item_type", "company"]
    list_select_related = ["user", "checkout_log", "company"]
    search_fields = ["user__username", "user__first_name", "user__last_name", "checkout_log__item_name"]
    date_hierarchy = "created_at"
    fields = ["item", "person", "state", "company", "created_at", "answered_at", "note", "remote_ip", "user_agent",
              "eula_sha256", "eula_text", "signed_file", "checkout_log"]
    readonly_fields = fields

    @admin.display(description="item", ordering="item_type")
    def item(self, obj: CheckoutAcceptance):
        name = (obj.checkout_log.item_name if obj.checkout_log_id and obj.checkout_log.item_name
                else f"#{obj.item_id}")
        text = f"{obj.item_type} {name}"
        try:
            url = reverse(f"admin:inventory_{ITEM_MODELS[obj.item_type]}_change", args=[obj.item_id])
        except (KeyError, NoReverseMatch):
            return text
        return format_html('<a href="{}">{}</a>', url, text)

    @admin.display(description="person", ordering="user__username")
    def person(self, obj: CheckoutAcceptance):
        return admin_link(obj.user)
