"""Each user's page lists what they hold (``HoldingsUserAdmin``, the user admin of ``accounts`` extended from
here with the holdings registry)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import display_for_value
from django.db import models
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts import admin as accounts_admin  # noqa: F401  (registers the user admin HoldingsUserAdmin extends)
from accounts.holdings import user_holdings as registered_holdings
from accounts.models import User
from assetsvc.admin_services import current_request
from inventory.admin.base import ScopedAdminMixin, render_with_request


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
