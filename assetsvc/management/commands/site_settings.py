"""``manage.py site_settings show`` / ``site_settings set KEY VALUE``: validated like the admin form."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import models

from assetsvc.api.inputs import parse_flag
from assetsvc.forms import SiteSettingsForm
from assetsvc.models import SiteSettings


def editable_fields() -> list[models.Field]:
    return [f for f in SiteSettings._meta.concrete_fields if f.editable and f.name not in {"id", "updated_at"}]


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
                value = getattr(settings_obj, field.attname)
                if isinstance(value, bool):
                    value = "true" if value else "false"
                self.stdout.write(f"{field.name} = {value}")
            return
        key, raw = options["key"], options["value"]
        fields = {f.name: f for f in editable_fields()}
        if key not in fields:
            raise CommandError(f"Unknown setting {key!r}. Known: {', '.join(sorted(fields))}")
        field = fields[key]
        data = {f.name: getattr(settings_obj, f.attname) for f in editable_fields()}
        if isinstance(field, models.BooleanField):
            flag = False if raw.strip() == "" else parse_flag(raw)
            if flag is not None:
                data[key] = flag
            else:
                raise CommandError(f"{key} takes a boolean (true/false/1/0/yes/no/on/off), got {raw!r}")
        else:
            data[key] = raw.strip()
        # Checkboxes: the form treats a missing or False value as unchecked.
        data = {k: v for k, v in data.items() if v is not False}
        form = SiteSettingsForm(data=data, instance=settings_obj)
        if not form.is_valid():
            problems = "; ".join(f"{name}: {' '.join(errs)}" for name, errs in form.errors.items())
            raise CommandError(f"Invalid value: {problems}")
        form.save()
        value = getattr(form.instance, field.attname)
        if isinstance(value, bool):
            value = "true" if value else "false"
        self.stdout.write(f"{key} = {value}")
