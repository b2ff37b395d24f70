"""``manage.py site_settings show`` / ``site_settings set KEY VALUE``: validated like the admin form.

``webhook_secret`` is write-only (shown ``********`` when saved), ``webhook_events`` is shown as the effective list
(registry order, no spaces), and the channel of the kinds without one is shown ``#NA`` (API-CONTRACT.md §8a).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import models

from assetsvc.api.inputs import parse_flag
from assetsvc.forms import SiteSettingsForm
from assetsvc.models import (
    PLATFORMS_WITH_CHANNEL,
    WEBHOOK_SECRET_MIN,
    WEBHOOK_SECRET_TOO_SHORT,
    SiteSettings,
    parse_webhook_events,
)

MASK = "********"
#: The channel shown for the kinds that have none.
NO_CHANNEL = "#NA"


def editable_fields() -> list[models.Field]:
    return [f for f in SiteSettings._meta.concrete_fields if f.editable and f.name not in {"id", "updated_at"}]


def shown(settings_obj: SiteSettings, field: models.Field) -> str:
    """A setting as printed: booleans as true/false, the secret masked, the events and channel as in force."""
    value = getattr(settings_obj, field.attname)
    if field.name == "webhook_secret":
        return MASK if value else ""
    if field.name == "webhook_events":
        return ",".join(parse_webhook_events(value))
    if field.name == "webhook_channel" and settings_obj.webhook_platform not in PLATFORMS_WITH_CHANNEL:
        return NO_CHANNEL
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


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
        if options["action"] == "show":
            for field in editable_fields():
                self.stdout.write(f"{field.name} = {shown(settings_obj, field)}")
            return
        key, raw = options["key"], options["value"]
        fields = {f.name: f for f in editable_fields()}
        if key not in fields:
            raise CommandError(f"Unknown setting {key!r}. Known: {', '.join(sorted(fields))}")
        field = fields[key]
        data = {f.name: getattr(settings_obj, f.attname) for f in editable_fields()}
        events = settings_obj.webhook_events  # None: the default list, "": no event
        if isinstance(field, models.BooleanField):
            flag = False if raw.strip() == "" else parse_flag(raw)
            if flag is not None:
                data[key] = flag
            else:
                raise CommandError(f"{key} takes a boolean (true/false/1/0/yes/no/on/off), got {raw!r}")
        elif key == "webhook_secret":
            # Never echoed, not even in an error.
            if raw.strip() and len(raw.strip()) < WEBHOOK_SECRET_MIN:
                raise CommandError(f"Invalid value: {WEBHOOK_SECRET_TOO_SHORT}")
            data[key] = raw.strip()
        elif key == "webhook_events":
            try:
                events = ",".join(parse_webhook_events(raw))
            except ValueError as exc:
                raise CommandError(f"Invalid value: webhook_events: {exc}") from exc
            data[key] = events
        else:
            data[key] = raw.strip()
        # Checkboxes: the form treats a missing or False value as unchecked.
        data = {k: v for k, v in data.items() if v is not False}
        form = SiteSettingsForm(data=data, instance=settings_obj)
        if not form.is_valid():
            problems = "; ".join(f"{name}: {' '.join(errs)}" for name, errs in form.errors.items())
            raise CommandError(f"Invalid value: {problems}")
        form.instance.webhook_events = events  # the form would read "" (no event) as None (the default list)
        form.save()
        self.stdout.write(f"{key} = {shown(form.instance, field)}")
