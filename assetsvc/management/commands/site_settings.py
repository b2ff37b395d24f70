"""``manage.py site_settings show`` / ``site_settings set KEY VALUE``: validated like the admin form.

``webhook_secret`` is write-only (shown ``********`` when saved), ``webhook_events`` is shown as the effective list
(registry order, no spaces), and the channel of the kinds without one is shown ``#NA`` (API-CONTRACT.md §8a). A
webhook setting a non-empty ``WEBHOOK_*`` variable overrides is shown as in force, with the variable and the saved
value (issue 25).
"""

from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import models

from assetsvc.api.inputs import parse_flag
from assetsvc.crypto import Undecryptable
from assetsvc.models import (
    PLATFORMS_WITH_CHANNEL,
    WEBHOOK_SECRET_MAX,
    WEBHOOK_SECRET_MIN,
    WEBHOOK_SECRET_TOO_SHORT,
    SiteSettings,
    WebhookPlatform,
    parse_webhook_events,
)
from assetsvc.site import WEBHOOK_VARIABLES, webhook_overrides
from assetsvc.site_settings import site_settings_fields, site_settings_update

MASK = "********"
#: The channel shown for the kinds that have none.
NO_CHANNEL = "#NA"


def shown(settings_obj: SiteSettings, field: models.Field, overrides: dict[str, str] | None = None) -> str:
    """A setting as printed: booleans as true/false, the secret masked, the events and channel as in force.

    With ``overrides`` (:func:`assetsvc.site.webhook_overrides`), a webhook setting a ``WEBHOOK_*`` variable
    overrides is printed as in force, with its source and the saved value: ``webhook_endpoint = https://...
    (from WEBHOOK_ENDPOINT; saved: "")`` (issue 25)."""
    if overrides and field.name in overrides:
        saved = json.dumps(shown(settings_obj, field), ensure_ascii=False)
        return f"{in_force(settings_obj, field.name, overrides)} (from {WEBHOOK_VARIABLES[field.name]}; saved: {saved})"
    value = getattr(settings_obj, field.attname)
    if field.name == "webhook_secret":
        if isinstance(value, Undecryptable):
            return f"{MASK} (cannot be decrypted with FIELD_ENCRYPTION_KEY: add its key back or set it again)"
        return MASK if value else ""
    if field.name == "webhook_events":
        return ",".join(parse_webhook_events(value))
    platform = (overrides or {}).get("webhook_platform", settings_obj.webhook_platform)
    if field.name == "webhook_channel" and platform not in PLATFORMS_WITH_CHANNEL:
        return NO_CHANNEL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and ("\n" in value or "\r" in value):  # one line per setting (the default EULA)
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def in_force(settings_obj: SiteSettings, name: str, overrides: dict[str, str]) -> str:
    """The value of an overridden webhook setting as in force (masked for the secret; the problem of an invalid one)."""
    value = overrides[name]
    platform = overrides.get("webhook_platform", settings_obj.webhook_platform)
    if name == "webhook_secret":
        valid = WEBHOOK_SECRET_MIN <= len(value) <= WEBHOOK_SECRET_MAX
        return MASK if valid else f"{MASK} (invalid: {WEBHOOK_SECRET_MIN} to {WEBHOOK_SECRET_MAX} characters needed)"
    if name == "webhook_events":
        try:
            return ",".join(parse_webhook_events(value))
        except ValueError as exc:
            return f"{value} (invalid: {exc})"
    if name == "webhook_channel" and platform not in PLATFORMS_WITH_CHANNEL:
        return NO_CHANNEL
    if name == "webhook_platform" and value not in WebhookPlatform.values:
        return f"{value} (invalid: use one of {', '.join(WebhookPlatform.values)})"
    return value


class Command(BaseCommand):
    help = "Show or change the site settings (the same validation as the admin page)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("show", help="print every setting as 'key = value'")
        setter = sub.add_parser("set", help="change one setting")
        setter.add_argument("key")
        setter.add_argument("value", nargs="?", default="", help="empty clears an optional setting")

    def handle(self, *args, **options):
        settings_obj = SiteSettings.load()
        overrides = webhook_overrides()
        if options["action"] == "show":
            for field in site_settings_fields():
                self.stdout.write(f"{field.name} = {shown(settings_obj, field, overrides)}")
            return
        key, raw = options["key"], options["value"]
        fields = {f.name: f for f in site_settings_fields()}
        if key not in fields:
            raise CommandError(f"Unknown setting {key!r}. Known: {', '.join(sorted(fields))}")
        field = fields[key]
        if isinstance(field, models.BooleanField):
            flag = False if raw.strip() == "" else parse_flag(raw)
            if flag is None:
                raise CommandError(f"{key} takes a boolean (true/false/1/0/yes/no/on/off), got {raw!r}")
            value = flag
        elif key == "webhook_secret":
            # Never echoed, not even in an error.
            if raw.strip() and len(raw.strip()) < WEBHOOK_SECRET_MIN:
                raise CommandError(f"Invalid value: {WEBHOOK_SECRET_TOO_SHORT}")
            value = raw.strip()
        elif key == "webhook_events":
            try:
                value = ",".join(parse_webhook_events(raw))
            except ValueError as exc:
                raise CommandError(f"Invalid value: webhook_events: {exc}") from exc
        else:
            value = raw.strip()
        try:
            saved = site_settings_update({key: value})
        except ValidationError as exc:
            problems = "; ".join(f"{name}: {' '.join(errs)}" for name, errs in exc.message_dict.items())
            raise CommandError(f"Invalid value: {problems}") from exc
        line = f"{key} = {shown(saved, field)}"
        if key in overrides:
            line += f" (saved; {WEBHOOK_VARIABLES[key]} overrides it: {in_force(saved, key, overrides)})"
        self.stdout.write(line)
