from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from assetsvc.models import PLATFORMS_WITH_CHANNEL, SiteSettings
from assetsvc.site import WEBHOOK_VARIABLES, webhook_overrides


class SiteSettingsForm(forms.ModelForm):
    """The one validation of site settings, shared by the admin page and ``manage.py site_settings set``."""

    class Meta:
        model = SiteSettings
        exclude: list[str] = []

    def clean_alert_email(self) -> str:
        """Comma-separated addresses, each checked; kept as ``a@x, b@y`` (spaces and empty entries dropped)."""
        addresses = split_addresses(self.cleaned_data.get("alert_email") or "")
        bad = []
        for address in addresses:
            try:
                validate_email(address)
            except ValidationError:
                bad.append(address)
        if bad:
            raise ValidationError(f"Not an e-mail address: {', '.join(bad)}.")
        return ", ".join(addresses)

    def clean(self):
        """Issue 25: the channel rule on the configuration in force. A ``WEBHOOK_PLATFORM`` or ``WEBHOOK_ENDPOINT``
        in the environment can make a channel necessary that the saved values alone do not (the general platform
        with no channel dropped every notification); the form refuses that, as the model refuses it for saved
        values (``SiteSettings.clean``). Other problems of the environment's values cannot be fixed here: the
        settings page shows them as warnings."""
        cleaned = super().clean()
        overrides = webhook_overrides()
        from_environment = [name for name in ("webhook_platform", "webhook_endpoint") if name in overrides]
        if not from_environment or "webhook_channel" not in cleaned:
            return cleaned  # no override (the model's rule covers it), or the channel is already in error
        platform = overrides.get("webhook_platform", cleaned.get("webhook_platform"))
        endpoint = overrides.get("webhook_endpoint", (cleaned.get("webhook_endpoint") or "").strip())
        channel = overrides.get("webhook_channel", (cleaned.get("webhook_channel") or "").strip())
        if endpoint and platform in PLATFORMS_WITH_CHANNEL and not channel:
            variables = " and ".join(WEBHOOK_VARIABLES[name] for name in from_environment)
            verb = "are" if len(from_environment) > 1 else "is"
            self.add_error("webhook_channel", f"This platform needs a channel ({variables} {verb} set in the "
                                              "environment).")
        return cleaned


def split_addresses(value: str) -> list[str]:
    """The addresses of a comma- (or semicolon-) separated list, in order, without blanks or repeats."""
    seen: list[str] = []
    for part in value.replace(";", ",").split(","):
        address = part.strip()
        if address and address.lower() not in {a.lower() for a in seen}:
            seen.append(address)
    return seen
