"""Admin: the read-only delivery log, and the site settings page with the webhook test action and warnings."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import escape

from assetsvc.admin import SiteSettingsAdmin
from assetsvc.admin_services import ReadOnlyModelAdmin
from assetsvc.crypto import Undecryptable
from assetsvc.forms import SiteSettingsForm
from assetsvc.models import PLATFORMS_WITH_CHANNEL, SiteSettings, WebhookPlatform, parse_webhook_events
from notifications import mail
from notifications.config import NO_CHANNEL, WebhookConfig, get_webhook_config, needs_channel
from notifications.delivery import deliver, make_job, outcome_of_test_message, sample_details, send_test_message
from notifications.events import EVENTS, TEST_EVENT
from notifications.models import OutboundMail, WebhookDelivery

#: How the secret is shown: never its value, not even its length.
MASK = "********"


class OutcomeFilter(admin.SimpleListFilter):
    title = "outcome"
    parameter_name = "outcome"

    def lookups(self, request, model_admin):
        return [("success", "success"), ("failure", "failure")]

    def queryset(self, request, queryset):
        if self.value() == "success":
            return queryset.filter(success=True)
        if self.value() == "failure":
            return queryset.filter(success=False)
        return queryset


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyModelAdmin):
    """Every attempt, newest first; written only by the delivery workers (``in progress`` while posting,
    ``interrupted`` when a worker stopped mid-delivery: not sent again). Neither the signing secret nor the
    signature headers are stored (API-CONTRACT.md §8a)."""

    list_display = ["created_at", "event", "endpoint_host", "outcome", "latency_ms", "delivery_id", "state"]
    list_filter = ["event", OutcomeFilter, "state", "platform"]
    search_fields = ["endpoint", "error", "reason", "delivery_id"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    @admin.display(description="endpoint host", ordering="endpoint")
    def endpoint_host(self, obj: WebhookDelivery) -> str:
        try:
            return urlsplit(obj.endpoint).hostname or ""
        except ValueError:
            return ""

    @admin.display(description="status")
    def outcome(self, obj: WebhookDelivery) -> str:
        """The answer's status, or the error class when there was none (``ConnectionError``, ...), with the reason
        of an event that could not be sent (``InvalidConfiguration: This platform needs a channel.``)."""
        if obj.status_code is not None:
            return str(obj.status_code)
        if obj.error and obj.reason:
            return f"{obj.error}: {obj.reason}"
        return obj.error or obj.get_state_display()

    def changelist_view(self, request, extra_context=None):
        for warning in invalid_configuration_warnings(get_webhook_config()):
            messages.warning(request, warning)
        return super().changelist_view(request, extra_context)


class WebhookSettingsForm(SiteSettingsForm):
    """The settings form with the write-only secret (a password input never filled in: blank keeps the saved one,
    the checkbox clears it) and the event list as checkboxes (API-CONTRACT.md §8a)."""

    webhook_secret = forms.CharField(
        required=False, strip=True, max_length=255,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Signing secret, 16 to 255 characters. Left blank, the saved secret is kept; it is never shown.",
    )
    clear_webhook_secret = forms.BooleanField(required=False, label="Remove the secret (deliveries unsigned)")
    webhook_events = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Events sent",
        help_text="A disabled event enqueues nothing. The test message is always available.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["webhook_events"].choices = [(name, name) for name in EVENTS]
        self.initial["webhook_events"] = parse_webhook_events(self.instance.webhook_events)
        self.initial["webhook_secret"] = ""
        saved = self.instance.webhook_secret
        self.fields["webhook_secret"].help_text += (
            " A secret is saved, but it cannot be decrypted with FIELD_ENCRYPTION_KEY: enter it again."
            if isinstance(saved, Undecryptable) else " A secret is saved." if saved else " No secret is saved.")
        if self.instance.webhook_platform not in PLATFORMS_WITH_CHANNEL:
            self.initial["webhook_channel"] = NO_CHANNEL
        # Issue 25: beside each field a WEBHOOK_* variable overrides, what is in force instead (the admin renders help
        # texts as HTML: the values are escaped).
        for row in effective_rows(get_webhook_config(), self.instance):
            if row["variable"] and row["setting"] in self.fields:
                field = self.fields[row["setting"]]
                field.help_text = (f"Overridden by {row['variable']} (in force: {escape(row['value'])}); the saved "
                                   f"value below applies when the variable is unset. {field.help_text}")

    def clean_webhook_secret(self) -> str:
        if self.data.get("clear_webhook_secret") in {"on", "true", "1", True}:
            return ""
        value = self.cleaned_data.get("webhook_secret") or ""
        if value:
            return value
        saved = SiteSettings.objects.filter(pk=1).values_list("webhook_secret", flat=True).first()
        return "" if saved is None else saved  # an unreadable one (Undecryptable) is written back as stored

    def clean_webhook_channel(self) -> str:
        value = self.cleaned_data.get("webhook_channel") or ""
        if value == NO_CHANNEL and self.instance.pk and self.instance.webhook_platform not in PLATFORMS_WITH_CHANNEL:
            return SiteSettings.objects.filter(pk=1).values_list("webhook_channel", flat=True).first() or ""
        return value

    def clean_webhook_events(self) -> str:
        return ",".join(parse_webhook_events(",".join(self.cleaned_data.get("webhook_events") or [])))


def invalid_configuration_warnings(config: WebhookConfig) -> list[str]:
    """The warning the admin's webhook pages show while nothing can be sent (issue 25: it was silent)."""
    errors = config.errors()
    return [f"The webhook configuration is invalid, nothing is sent: {' '.join(errors)}"] if errors else []


def effective_rows(config: WebhookConfig, site: SiteSettings) -> list[dict[str, str]]:
    """The webhook configuration in force, one row per setting: ``setting``, ``label``, ``value`` (the secret
    masked), ``source`` (``environment: WEBHOOK_*``, ``saved setting`` or why there is none) and ``variable`` (the
    overriding variable, or "") (issue 25: the page showed the saved values only)."""
    env = config.from_environment

    def row(name: str, label: str, value: str, source: str = "saved setting") -> dict[str, str]:
        variable = f"WEBHOOK_{name.upper()}" if name in env else ""
        return {"setting": f"webhook_{name}", "label": label, "value": value,
                "source": f"environment: {variable}" if variable else source, "variable": variable}

    try:
        platform = WebhookPlatform(config.platform).label
    except ValueError:
        platform = f"{config.platform} (unknown)"
    if not needs_channel(config.platform):
        channel = {**row("channel", "channel", NO_CHANNEL), "source": "this platform has no channel"}
    else:
        channel = row("channel", "channel", config.channel or "none")
    saved_secret = site.webhook_secret
    if "secret" in env:
        secret = row("secret", "signing secret", MASK)
    elif isinstance(saved_secret, Undecryptable):
        secret = row("secret", "signing secret", MASK, "saved setting, which cannot be decrypted: nothing is sent")
    elif saved_secret:
        secret = row("secret", "signing secret", MASK)
    else:
        secret = row("secret", "signing secret", "none", "deliveries are not signed")
    events = [name for name in EVENTS if name in config.events]
    return [
        row("platform", "platform", platform),
        row("endpoint", "endpoint", config.endpoint or "none", "saved setting" if config.endpoint
            else "no endpoint: notifications are off"),
        channel,
        row("botname", "bot name", config.effective_botname,
            "saved setting" if config.botname else "default (no bot name saved)"),
        secret,
        row("events", "events sent", ", ".join(events) or "none",
            "default" if site.webhook_events is None else "saved setting"),
    ]


class _SampleValues(dict):
    def __missing__(self, key: str) -> str:
        return f"Sample {key.replace('_', ' ')}"


SAMPLE_VALUES = _SampleValues(asset_tag="ASSET-0001", asset_name="Sample laptop", target_name="Sample User",
                              admin_name="Sample Admin", accessory_name="Sample keyboard",
                              consumable_name="Sample toner", license_name="Sample license", name="Sample item")


def sample_text(event_name: str) -> str:
    """The text of ``event_name`` rendered from its template with sample values."""
    return EVENTS[event_name].template.format_map(SAMPLE_VALUES)


def report_test_result(request, config, result) -> None:
    """The test action's messages: the configuration's warnings, then
    :func:`notifications.delivery.outcome_of_test_message`."""
    for warning in config.warnings():
        messages.warning(request, warning)
    (messages.success if result.success else messages.error)(request, outcome_of_test_message(config, result))


class WebhookSiteSettingsAdmin(SiteSettingsAdmin):
    """The foundation's settings page plus a "Send test message" button and the webhook warnings."""

    form = WebhookSettingsForm
    fieldsets = [
        *[fieldset for fieldset in SiteSettingsAdmin.fieldsets if fieldset[0] != "Notifications"],
        ("Notifications", {"fields": ["webhook_platform", "webhook_endpoint", "webhook_channel", "webhook_botname",
                                      "webhook_secret", "clear_webhook_secret", "webhook_events"]}),
    ]

    def get_urls(self):
        view = self.admin_site.admin_view(self.send_test_view)
        mail_view = self.admin_site.admin_view(self.send_test_mail_view)
        return [path("send-test-webhook/", view, name="assetsvc_sitesettings_send_test_webhook"),
                path("send-test-mail/", mail_view, name="assetsvc_sitesettings_send_test_mail"),
                *super().get_urls()]

    def send_test_mail_view(self, request):
        """Send a test mail to the signed-in person's address now (``POST /settings/mailtest`` does the same)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        back = HttpResponseRedirect(reverse("admin:assetsvc_sitesettings_change", args=[SiteSettings.load().pk]))
        if not request.user.email:
            messages.error(request, "Your account has no e-mail address: set one to receive the test mail.")
            return back
        ok, text = mail.send_test_mail(request.user.email, user=request.user)
        (messages.success if ok else messages.error)(request, text)
        return back

    def send_test_view(self, request):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        config = get_webhook_config()
        event = request.POST.get("event") or TEST_EVENT
        if event == TEST_EVENT:
            result = send_test_message(config)
        elif event in EVENTS and event in config.events:
            # The sample of an enabled event, rendered from its template with sample values.
            result = send_test_message(config) if not config.enabled else deliver(
                make_job(event, config, sample_text(event), {**sample_details(), "event": event}))
        else:
            messages.error(request, "The test message was not sent: that event is not enabled.")
            return HttpResponseRedirect(reverse("admin:assetsvc_sitesettings_change",
                                                args=[SiteSettings.load().pk]))
        report_test_result(request, config, result)
        return HttpResponseRedirect(reverse("admin:assetsvc_sitesettings_change", args=[SiteSettings.load().pk]))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        config = get_webhook_config()
        extra_context = {
            **(extra_context or {}),
            "webhook_warnings": config.warnings() + invalid_configuration_warnings(config),
            "webhook_from_environment": sorted(f"WEBHOOK_{name.upper()}" for name in config.from_environment),
            "webhook_effective": effective_rows(config, SiteSettings.load()),
            "webhook_test_url": reverse("admin:assetsvc_sitesettings_send_test_webhook"),
            "webhook_test_events": [name for name in EVENTS if name in config.events],
            "mail_test_url": reverse("admin:assetsvc_sitesettings_send_test_mail"),
        }
        return super().change_view(request, object_id, form_url, extra_context)


admin.site.unregister(SiteSettings)
admin.site.register(SiteSettings, WebhookSiteSettingsAdmin)


@admin.register(OutboundMail)
class OutboundMailAdmin(ReadOnlyModelAdmin):
    """The mail log (issue 29): every mail, newest first, with its attempts and the last error; written by the
    services that queue mail and by the task workers. A company administrator sees only their company's mails
    (company separation); an ``uncertain`` or ``failed`` mail can be sent again by a person who decides to."""

    list_display = ["created_at", "to", "subject", "event", "status", "attempts", "last_error_short", "sent_at"]
    list_filter = ["status", "event", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["to", "subject", "message_id"]
    date_hierarchy = "created_at"
    readonly_fields = ["created_at", "event", "to", "user", "company", "subject", "status", "attempts",
                       "last_error", "next_attempt_at", "handed_over_at", "sent_at", "message_id", "dedupe_key",
                       "text_body"]
    exclude = ["html_body"]
    actions = ["send_again"]

    def get_queryset(self, request):
        return super().get_queryset(request).restrict(request.user).defer("text_body", "html_body")

    @admin.display(description="last error", ordering="last_error")
    def last_error_short(self, obj: OutboundMail) -> str:
        return obj.last_error[:80]

    @admin.action(description="Send the selected failed or uncertain mails again")
    def send_again(self, request, queryset):
        if not self.has_view_permission(request) or not request.user.is_superuser:
            raise PermissionDenied
        count = mail.send_again(list(queryset.values_list("pk", flat=True)))
        messages.info(request, f"{count} mail(s) queued again; only failed or uncertain mails are sent again.")
