"""The effective webhook configuration: each ``WEBHOOK_*`` environment variable, when set, overrides its site
setting (API-CONTRACT.md §8), field by field.

The site settings are validated by their admin form; the environment is not, so the effective configuration is
validated again here (``errors``) and a notification under an invalid configuration is logged as a failed delivery
without any request (an ``ftp://`` endpoint, a missing channel, an unknown platform, a ``WEBHOOK_SECRET`` shorter
than 16 characters, an unknown name in ``WEBHOOK_EVENTS``). The secret is never part of a message or a ``repr``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from assetsvc.conf import app_settings
from assetsvc.crypto import Undecryptable
from assetsvc.models import (
    PLATFORMS_WITH_CHANNEL,
    WEBHOOK_SECRET_MAX,
    WEBHOOK_SECRET_MIN,
    WebhookPlatform,
    parse_webhook_events,
    register_webhook_events,
)
from assetsvc.site import get_site_settings
from notifications.events import EVENTS, default_event_names

# The settings validate event names against this registry, read at call time (events added later are known).
register_webhook_events(lambda: list(EVENTS), default_event_names)

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

SECRET_UNDECRYPTABLE = ("The saved webhook secret cannot be decrypted with FIELD_ENCRYPTION_KEY (the key it was "
                        "written with is no longer configured): add that key back, or save the secret again "
                        "(nothing is sent until then).")


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
    #: The event names that are sent (API-CONTRACT.md §8a); a disabled event enqueues nothing.
    events: frozenset[str] = field(default_factory=lambda: frozenset(default_event_names()))
    #: The signing secret in force ("" = unsigned). Write-only: kept out of ``repr`` and of every message.
    secret: str = field(default="", repr=False)
    #: Problems the site settings' validation did not see (names, never values): the ``WEBHOOK_*`` values, and a
    #: saved secret no configured key decrypts.
    environment_errors: tuple[str, ...] = ()

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
        if needs_channel(self.platform) and not self.channel:
            problems.append("This platform needs a channel.")
        problems.extend(self.environment_errors)
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
    problems: list[str] = []
    secret, secret_problem = effective_secret(site)
    if secret_problem:
        problems.append(secret_problem)
    if (app_settings.WEBHOOK_SECRET or "").strip():
        overridden.add("secret")
    env_events = (app_settings.WEBHOOK_EVENTS or "").strip()
    if env_events:
        overridden.add("events")
        try:
            events = parse_webhook_events(env_events)
        except ValueError as exc:
            problems.append(f"WEBHOOK_EVENTS: {exc}")
            events = [name.strip() for name in env_events.split(",") if name.strip() in EVENTS]
    else:
        events = _saved_events(site.webhook_events)
    return WebhookConfig(**values, from_environment=frozenset(overridden), events=frozenset(events), secret=secret,
                         environment_errors=tuple(problems))


def _saved_events(value: str | None) -> list[str]:
    """The saved list; a name no longer in the registry is skipped (it cannot be sent)."""
    if value is None:
        return default_event_names()
    return [name.strip() for name in value.split(",") if name.strip() in EVENTS]


def effective_secret(site=None) -> tuple[str, str]:
    """``(secret, problem)``: ``WEBHOOK_SECRET`` when non-empty, else the saved secret. A ``WEBHOOK_SECRET`` of the
    wrong length gives ``("", problem)``; the problem names the variable, never its value."""
    env_secret = (app_settings.WEBHOOK_SECRET or "").strip()
    if env_secret:
        if not WEBHOOK_SECRET_MIN <= len(env_secret) <= WEBHOOK_SECRET_MAX:
            return "", (f"WEBHOOK_SECRET must be {WEBHOOK_SECRET_MIN} to {WEBHOOK_SECRET_MAX} characters long "
                        "(the configuration is invalid: nothing is sent).")
        return env_secret, ""
    site = site if site is not None else get_site_settings()
    if isinstance(site.webhook_secret, Undecryptable):
        # Never "no secret": that would send unsigned deliveries a receiver then refuses (issue 25).
        return "", SECRET_UNDECRYPTABLE
    return (site.webhook_secret or "").strip(), ""


def event_choices() -> list[str]:
    """Every event name, in the registry's order (what ``webhook_events`` may list)."""
    return list(EVENTS)
