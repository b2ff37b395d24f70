from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.urls import reverse

from assetsvc.forms import SiteSettingsForm
from assetsvc.models import SiteSettings


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    """One page: the changelist goes straight to the single row."""

    form = SiteSettingsForm
    fieldsets = [
        ("Companies", {"fields": ["full_multiple_companies_support"]}),
        ("Audits and check-ins", {"fields": ["audit_interval", "audit_warning_days", "due_checkin_days"]}),
        ("Assets", {"fields": ["auto_increment_assets", "auto_increment_prefix", "zerofill_count",
                               "next_auto_tag_base", "unique_serial", "show_archived_in_list",
                               "require_checkinout_notes"]}),
        ("Notifications", {"fields": ["webhook_platform", "webhook_endpoint", "webhook_channel", "webhook_botname"]}),
        ("E-mail alerts and acceptance", {"fields": ["alert_email", "alerts_enabled", "alert_interval",
                                                     "reminder_interval", "default_eula_text"]}),
        ("Sign-in", {"fields": ["two_factor"]}),
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        # Super users only (docs/decisions.md): an administrator is refused here, not sent on to the change page.
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        obj = SiteSettings.load()
        return HttpResponseRedirect(reverse("admin:assetsvc_sitesettings_change", args=[obj.pk]))
