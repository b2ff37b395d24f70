"""List filters the start page links to (issue 28): each dashboard number opens its list filtered by one of these,
with the dashboard's own definition (``inventory/selectors/dashboard.py``), so the list shows exactly what was
counted. The parameter names are part of the links: ``status_type``, ``audit``, ``checkin``, ``warranty``,
``acceptance`` on assets,
``attention`` on licenses, ``stock`` on accessories, consumables and components."""

from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from assetsvc.site import get_site_settings
from inventory.models import CheckoutAcceptance, asset_acceptance_exists
from inventory.selectors import dashboard
from inventory.selectors.charts import META_STATUSES


class StatusTypeFilter(admin.SimpleListFilter):
    """Snipe-IT's status types: ready to deploy, deployed (checked out, whatever the label), pending, ..."""

    title = "status type"
    parameter_name = "status_type"

    def lookups(self, request, model_admin):
        return [(key, label) for key, label, _condition in META_STATUSES]

    def queryset(self, request, queryset):
        conditions = {key: condition for key, _label, condition in META_STATUSES}
        if self.value() in conditions:
            return queryset.filter(conditions[self.value()])
        return queryset


class _DueFilter(admin.SimpleListFilter):
    condition = staticmethod(dashboard.audits_condition)
    window_setting = "audit_warning_days"

    def lookups(self, request, model_admin):
        return [("due", "Due"), ("overdue", "Overdue")]

    def queryset(self, request, queryset):
        if self.value() in {"due", "overdue"}:
            window = getattr(get_site_settings(), self.window_setting)
            return queryset.filter(self.condition(self.value(), timezone.localdate(), window))
        return queryset


class AuditDueFilter(_DueFilter):
    """Audits due (next audit date from today to the site's warning days ahead) or overdue (before today)."""

    title = "audit"
    parameter_name = "audit"


class CheckinDueFilter(_DueFilter):
    """Checked-out assets whose expected check-in is due (within the site's due days) or overdue."""

    title = "expected check-in"
    parameter_name = "checkin"
    condition = staticmethod(dashboard.checkins_condition)
    window_setting = "due_checkin_days"


class WarrantyFilter(admin.SimpleListFilter):
    title = "warranty"
    parameter_name = "warranty"

    def lookups(self, request, model_admin):
        return [("ending", f"Ends within {dashboard.EXPIRY_WINDOW_DAYS} days")]

    def queryset(self, request, queryset):
        if self.value() == "ending":
            return dashboard.with_warranty_end(queryset).filter(dashboard.warranty_ending(timezone.localdate()))
        return queryset


class LicenseAttentionFilter(admin.SimpleListFilter):
    title = "needs attention"
    parameter_name = "attention"

    def lookups(self, request, model_admin):
        return [("expiring", f"Expires within {dashboard.EXPIRY_WINDOW_DAYS} days"), ("full", "No free seat")]

    def queryset(self, request, queryset):
        if self.value() == "expiring":
            return queryset.filter(dashboard.licenses_expiring(timezone.localdate()))
        if self.value() == "full":
            return dashboard.licenses_full(queryset)
        return queryset


class LowStockFilter(admin.SimpleListFilter):
    """Items with a minimum quantity whose remaining units are at or below it."""

    title = "stock"
    parameter_name = "stock"

    def lookups(self, request, model_admin):
        return [("low", "At or below the minimum")]

    def queryset(self, request, queryset):
        if self.value() == "low":
            return queryset.filter(pk__in=dashboard.low_stock(queryset.model._default_manager.all()).values("pk"))
        return queryset


class AcceptanceFilter(admin.SimpleListFilter):
    """Issue 29: assets awaiting their person's acceptance, accepted by their current holder, or declined (ever)."""

    title = "acceptance"
    parameter_name = "acceptance"

    def lookups(self, request, model_admin):
        return [("awaiting", "Awaiting acceptance"), ("accepted", "Accepted"), ("declined", "Declined")]

    def queryset(self, request, queryset):
        state = CheckoutAcceptance.State
        if self.value() == "awaiting":
            return queryset.filter(asset_acceptance_exists(state.PENDING))
        if self.value() == "accepted":
            return queryset.filter(asset_acceptance_exists(state.ACCEPTED, holder=True))
        if self.value() == "declined":
            return queryset.filter(asset_acceptance_exists(state.DECLINED))
        return queryset
