"""Admin: the read-only delivery log, and the site settings page with the webhook test action and warnings."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse

from assetsvc.admin import SiteSettingsAdmin
from assetsvc.admin_services import ReadOnlyModelAdmin
from assetsvc.models import SiteSettings
from notifications.config import get_webhook_config
from notifications.delivery import send_test_message
from notifications.models import WebhookDelivery


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyModelAdmin):
    """Every attempt, newest first; written only by the delivery workers (``in progress`` while posting,
    ``interrupted`` when a worker stopped mid-delivery: not sent again)."""

    list_display = ["created_at", "event", "platform", "endpoint", "state", "success", "status_code", "latency_ms",
                    "error"]
    list_filter = ["state", "success", "event", "platform"]
    search_fields = ["endpoint", "error"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]


def report_test_result(request, config, result) -> None:
    """The test action's message: success, or ``failed: <status>/<error class>`` and nothing more.

    The endpoint may point anywhere the server can reach, so the answer's body and the exception text are never
    shown: they would tell internal services and ports apart (CVE-2026-114064). The full reason is in the server log.
    """
    for warning in config.warnings():
        messages.warning(request, warning)
    if result.success:
        messages.success(request, f"Your {config.app_name} integration works! The endpoint answered "
                                  f"{result.status_code}.")
    elif not config.enabled:
        messages.error(request, "No webhook endpoint is configured.")
    elif result.error == "InvalidConfiguration":
        messages.error(request, "The test message was not sent: " + " ".join(config.errors()))
    else:
        messages.error(request, f"The test message to the {config.app_name} endpoint failed: {result.reason}")


class WebhookSiteSettingsAdmin(SiteSettingsAdmin):
    """The foundation's settings page plus a "Send test message" button and the webhook warnings."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.send_test_view)
        return [path("send-test-webhook/", view, name="assetsvc_sitesettings_send_test_webhook"), *super().get_urls()]

    def send_test_view(self, request):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        config = get_webhook_config()
        report_test_result(request, config, send_test_message(config))
        return HttpResponseRedirect(reverse("admin:assetsvc_sitesettings_change", args=[SiteSettings.load().pk]))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        config = get_webhook_config()
        extra_context = {
            **(extra_context or {}),
            "webhook_warnings": config.warnings() + config.errors(),
            "webhook_from_environment": sorted(f"WEBHOOK_{name.upper()}" for name in config.from_environment),
            "webhook_test_url": reverse("admin:assetsvc_sitesettings_send_test_webhook"),
        }
        return super().change_view(request, object_id, form_url, extra_context)


admin.site.unregister(SiteSettings)
admin.site.register(SiteSettings, WebhookSiteSettingsAdmin)
