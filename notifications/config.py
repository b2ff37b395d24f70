"""The effective webhook configuration: each ``WEBHOOK_*`` environment variable, when set, overrides its site
setting (API-CONTRACT.md §8), field by field.

The site settings are validated by their admin form; the environment is not, so the effective configuration is
validated again here (``errors``) and a notification under an invalid configuration is logged as a failed delivery
without any request (an ``ftp://`` endpoint, a channel without ``#``, an unknown platform).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from assetsvc.conf import app_settings
from assetsvc.models import PLATFORMS_WITH_CHANNEL, WebhookPlatform
from assetsvc.site import get_site_settings

#: Bot name sent when none is configured (Snipe-IT's default, reference §10.1).
DEFAULT_BOTNAME = "Snipe-Bot"
#: The channel shown for the kinds that have none (specification, Events / Configuration).
NO_CHANNEL = "#NA"

PLATFORM_NAMES = {
    WebhookPlatform.SLACK: "Slack",
    WebhookPlatform.GENERAL: "General Webhook",
    WebhookPlatform.GOOGLE: "Google Workspaces",
    WebhookPlatform.MICROSOFT: "Microsoft Teams",
}

_url_validator = URLValidator(schemes=["http", "https"])


def needs_channel(platform: str) -> bool:
    return platform in PLATFORMS_WITH_CHANNEL


def is_deprecated_card_endpoint(platform: str, endpoint: str) -> bool:
    """A card-kind endpoint whose path lacks the segment ``workflows`` is the deprecated connector form."""
    if platform != WebhookPlatform.MICROSOFT or not endpoint:
        return False
    return "workflows" not in urlsplit(endpoint).path.split("/")


@dataclass(frozen=True)
class WebhookConfig:
    """What a notification uses: the platform, the endpoint, the channel and bot name as sent."""

    platform: str
    endpoint: str
    channel: str
    botname: str
    #: Names of the fields whose value comes from the environment (shown by the admin).
    from_environment: frozenset[str] = field(default_factory=frozenset)

    @property
    def enabled(self) -> bool:
        """Notifications are on iff an endpoint is set (reference §10.2)."""
        return bool(self.endpoint)

    @property
    def effective_channel(self) -> str:
        """The channel as shown and sent: ``#NA`` for the kinds without channels."""
        return self.channel if needs_channel(self.platform) else NO_CHANNEL

    @property
    def effective_botname(self) -> str:
        return self.botname or DEFAULT_BOTNAME

    @property
    def app_name(self) -> str:
        return PLATFORM_NAMES.get(self.platform, self.platform)

    def errors(self) -> list[str]:
        """Why nothing can be sent with this configuration (empty when it is valid or disabled)."""
        if not self.enabled:
            return []
        problems = []
        if self.platform not in WebhookPlatform.values:
            problems.append(f"Unknown webhook platform {self.platform!r}; use one of "
                            f"{', '.join(WebhookPlatform.values)}.")
        try:
            _url_validator(self.endpoint)
        except ValidationError:
            problems.append("The webhook endpoint must be an http:// or https:// URL.")
        if needs_channel(self.platform):
            if not self.channel:
                problems.append("This platform needs a channel (starting with '#').")
            elif not self.channel.startswith("#"):
                problems.append("The channel must start with '#'.")
        return problems

    def warnings(self) -> list[str]:
        if is_deprecated_card_endpoint(self.platform, self.endpoint):
            return ["The Microsoft Teams endpoint has no 'workflows' path segment: this connector URL form is "
                    "deprecated; create a Workflows webhook and use its URL."]
        return []


def get_webhook_config() -> WebhookConfig:
    """The configuration in force now (site settings read through the per-request scope, never cached longer)."""
    site = get_site_settings()
    values = {
        "platform": site.webhook_platform,
        "endpoint": site.webhook_endpoint.strip(),
        "channel": site.webhook_channel.strip(),
        "botname": site.webhook_botname.strip(),
    }
    overridden = set()
    for name in values:
        env_value = (getattr(app_settings, f"WEBHOOK_{name.upper()}") or "").strip()
        if env_value:
            values[name] = env_value.lower() if name == "platform" else env_value
            overridden.add(name)
    return WebhookConfig(**values, from_environment=frozenset(overridden))
