"""The site settings singleton: what Snipe-IT keeps in its one-row ``settings`` table."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, URLValidator
from django.db import models


class WebhookPlatform(models.TextChoices):
    SLACK = "slack", "Channel-based chat (Slack)"
    MICROSOFT = "microsoft", "Card-based workflow chat (Microsoft Teams)"
    GOOGLE = "google", "Space-based chat (Google Chat)"
    GENERAL = "general", "General webhook"


#: Platforms whose payload carries a channel, which must then be set and start with '#'.
PLATFORMS_WITH_CHANNEL = {WebhookPlatform.SLACK, WebhookPlatform.GENERAL}


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
    webhook_channel = models.CharField(max_length=255, blank=True, default="", help_text="Channel, with the leading #")
    webhook_botname = models.CharField(max_length=255, blank=True, default="")
    auto_increment_assets = models.BooleanField(default=False, help_text="Generate asset tags when none is given.")
    auto_increment_prefix = models.CharField(max_length=50, blank=True, default="")
    zerofill_count = models.PositiveIntegerField(default=5, validators=[MaxValueValidator(40)])
    next_auto_tag_base = models.PositiveBigIntegerField(default=1)
    unique_serial = models.BooleanField(default=False, help_text="Refuse two assets with the same serial.")
    show_archived_in_list = models.BooleanField(default=False, help_text="List archived assets by default.")
    require_checkinout_notes = models.BooleanField(default=False, help_text="A note is required on checkout/checkin.")
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
        if self.webhook_channel and not self.webhook_channel.startswith("#"):
            errors["webhook_channel"] = "The channel must start with '#'."
        if self.webhook_endpoint and self.webhook_platform in PLATFORMS_WITH_CHANNEL and not self.webhook_channel:
            errors["webhook_channel"] = "This platform needs a channel (starting with '#')."
        if errors:
            raise ValidationError(errors)

    @classmethod
    def load(cls) -> SiteSettings:
        obj = cls.objects.filter(pk=1).first()
        if obj is None:
            obj, _ = cls.objects.get_or_create(pk=1)
        return obj
