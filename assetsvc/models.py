"""The site settings singleton: what Snipe-IT keeps in its one-row ``settings`` table."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, URLValidator
from django.db import models

from assetsvc.crypto import EncryptedTextField, Undecryptable


class WebhookPlatform(models.TextChoices):
    SLACK = "slack", "Channel-based chat (Slack)"
    MICROSOFT = "microsoft", "Card-based workflow chat (Microsoft Teams)"
    GOOGLE = "google", "Space-based chat (Google Chat)"
    GENERAL = "general", "General webhook"


#: Platforms whose payload carries a channel, which must then be set (any non-empty text, API-CONTRACT.md §8).
class TwoFactorPolicy(models.TextChoices):
    """Who must sign in to the admin with a second factor (issue 30; docs/directory.md)."""

    OPTIONAL = "optional", "Optional: anyone may enrol, nobody is forced"
    ADMINS = "admins", "Required for everyone who may use the admin"
    EVERYONE = "everyone", "Required for everyone"


PLATFORMS_WITH_CHANNEL = {WebhookPlatform.SLACK, WebhookPlatform.GENERAL}

#: Bounds of ``webhook_secret`` after trimming (API-CONTRACT.md §8a); empty means deliveries are not signed.
WEBHOOK_SECRET_MIN = 16
WEBHOOK_SECRET_MAX = 255
WEBHOOK_SECRET_TOO_SHORT = f"webhook_secret must be at least {WEBHOOK_SECRET_MIN} characters (or empty)."

# The event registry lives in ``notifications`` (a higher layer): it registers its names here when it is loaded,
# so the settings are validated against the registry in force (events added later are picked up).
_event_names: Callable[[], list[str]] = list
_default_event_names: Callable[[], list[str]] = list


def register_webhook_events(all_names: Callable[[], list[str]], default_names: Callable[[], list[str]]) -> None:
    """Called by ``notifications.config`` at import: the event names known, and those sent by default."""
    global _event_names, _default_event_names
    _event_names, _default_event_names = all_names, default_names


def parse_webhook_events(value: str | None) -> list[str]:
    """A comma-separated event list in the registry's order (``None``: the default list); ``ValueError`` names
    the unknown events. Spaces around names, order and duplicates do not matter; an empty value is no event."""
    if value is None:
        return list(_default_event_names())
    wanted = {name.strip() for name in value.split(",") if name.strip()}
    known = list(_event_names())
    unknown = sorted(wanted - set(known))
    if unknown:
        raise ValueError(f"Unknown webhook event(s): {', '.join(unknown)}. Known: {', '.join(known)}")
    return [name for name in known if name in wanted]


class SiteSettings(models.Model):
    """One row (pk=1) of site-wide settings, edited in the Django admin or with ``manage.py site_settings``.

    Read once per request through :func:`assetsvc.site.get_site_settings`, never cached across requests, so a
    change takes effect on the next request of every server process.
    """

    full_multiple_companies_support = models.BooleanField(
        default=False, help_text="Strict separation: users of a company see and manage only that company's items."
    )
    audit_interval = models.PositiveIntegerField(
        default=12,
        validators=[MinValueValidator(1), MaxValueValidator(1200)],
        help_text="Months until the next audit, when an audit does not give next_audit_date.",
    )
    audit_warning_days = models.PositiveIntegerField(
        default=14, validators=[MaxValueValidator(3650)], help_text="Days ahead an audit counts as due."
    )
    due_checkin_days = models.PositiveIntegerField(
        default=14, validators=[MaxValueValidator(3650)], help_text="Days ahead an expected check-in counts as due."
    )
    webhook_platform = models.CharField(max_length=16, choices=WebhookPlatform.choices, default=WebhookPlatform.SLACK)
    webhook_endpoint = models.CharField(
        max_length=2000,
        blank=True,
        default="",
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="HTTP(S) URL notifications are posted to; empty disables notifications.",
    )
    webhook_channel = models.CharField(
        max_length=255, blank=True, default="",
        help_text="Channel (channel-based and general kinds; the other kinds have none and show #NA)",
    )
    webhook_botname = models.CharField(max_length=255, blank=True, default="")
    #: Write-only: never shown (the admin and ``site_settings show`` mask it), never logged. Stored encrypted with
    #: ``FIELD_ENCRYPTION_KEY`` (issue 25); reads as :class:`assetsvc.crypto.Undecryptable` when no key opens it.
    webhook_secret = EncryptedTextField(
        max_length=WEBHOOK_SECRET_MAX, blank=True, default="",
        help_text=f"Signing secret, {WEBHOOK_SECRET_MIN} to {WEBHOOK_SECRET_MAX} characters; empty: deliveries are "
                  "not signed.",
    )
    #: Comma-separated event names in the registry's order; NULL: the default events; empty: no event.
    webhook_events = models.TextField(null=True, blank=True, default=None,
                                      help_text="Events that are sent (empty: none).")
    auto_increment_assets = models.BooleanField(default=False, help_text="Generate asset tags when none is given.")
    auto_increment_prefix = models.CharField(max_length=50, blank=True, default="")
    zerofill_count = models.PositiveIntegerField(default=5, validators=[MaxValueValidator(40)])
    next_auto_tag_base = models.PositiveBigIntegerField(default=1)
    unique_serial = models.BooleanField(default=False, help_text="Refuse two assets with the same serial.")
    show_archived_in_list = models.BooleanField(default=False, help_text="List archived assets by default.")
    require_checkinout_notes = models.BooleanField(default=False, help_text="A note is required on checkout/checkin.")
    # E-mail (issue 29): Snipe-IT's names.
    alert_email = models.CharField(
        max_length=2000, blank=True, default="",
        help_text="Addresses (comma-separated) that receive the daily alert digest of manage.py send_alerts.",
    )
    alerts_enabled = models.BooleanField(default=True, help_text="Send the daily alert digest to alert_email.")
    alert_interval = models.PositiveIntegerField(
        default=30, validators=[MinValueValidator(1), MaxValueValidator(3650)],
        help_text="Days ahead a warranty or a license expiry is listed in the alert digest.",
    )
    reminder_interval = models.PositiveIntegerField(
        default=7, validators=[MinValueValidator(1), MaxValueValidator(3650)],
        help_text="Days between two reminders to one person of their overdue check-ins and unaccepted items.",
    )
    default_eula_text = models.TextField(
        blank=True, default="",
        help_text="The EULA of categories that use the default one; shown on the acceptance page and signed.",
    )
    two_factor = models.CharField(
        max_length=16, choices=TwoFactorPolicy.choices, default=TwoFactorPolicy.OPTIONAL,
        help_text="Two-factor sign-in (TOTP): who must enrol before using the admin.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "site settings"
        verbose_name_plural = "site settings"

    def __str__(self) -> str:
        return "Site settings"

    def save(self, *args, **kwargs) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        errors: dict[str, str] = {}
        if self.webhook_endpoint and self.webhook_platform in PLATFORMS_WITH_CHANNEL and not self.webhook_channel:
            errors["webhook_channel"] = "This platform needs a channel."
        if not isinstance(self.webhook_secret, Undecryptable):  # kept as stored (issue 25)
            self.webhook_secret = (self.webhook_secret or "").strip()
        if self.webhook_secret and len(self.webhook_secret) < WEBHOOK_SECRET_MIN:
            errors["webhook_secret"] = WEBHOOK_SECRET_TOO_SHORT
        elif len(self.webhook_secret or "") > WEBHOOK_SECRET_MAX:
            errors["webhook_secret"] = f"webhook_secret must be at most {WEBHOOK_SECRET_MAX} characters."
        if self.webhook_events is not None:
            try:
                self.webhook_events = ",".join(parse_webhook_events(self.webhook_events))
            except ValueError as exc:
                errors["webhook_events"] = str(exc)
        if errors:
            raise ValidationError(errors)

    @classmethod
    def load(cls) -> SiteSettings:
        obj = cls.objects.filter(pk=1).first()
        if obj is None:
            obj, _ = cls.objects.get_or_create(pk=1)
        return obj
