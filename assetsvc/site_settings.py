"""Changing the site settings outside the admin page: ``manage.py site_settings set`` and ``/api/v1/settings``
(issue 27), both through :func:`site_settings_update`, which validates with the admin page's form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from assetsvc.forms import SiteSettingsForm
from assetsvc.models import SiteSettings, parse_webhook_events
from assetsvc.site import forget_site_settings


def site_settings_fields() -> list[models.Field]:
    """The settings a person may change: every editable column but the key and the timestamp."""
    return [f for f in SiteSettings._meta.concrete_fields if f.editable and f.name not in {"id", "updated_at"}]


def site_settings_update(changes: Mapping[str, Any]) -> SiteSettings:
    """Change the settings named in ``changes`` and keep every other one as saved; the one write of the settings
    outside the admin page (``manage.py site_settings set``, ``PATCH /api/v1/settings``).

    ``changes`` holds typed values (booleans, numbers, text; ``webhook_events`` a comma-separated text, None for the
    default list, "" for none). They are validated by :class:`assetsvc.forms.SiteSettingsForm`, as the admin page
    validates; a refused value raises ``ValidationError`` (``{setting: [texts]}``) and nothing is written. The row
    is locked while it changes, so two writers of different settings do not undo each other. The saved webhook
    secret is kept unless ``changes`` names it (an unreadable one is written back as it is stored)."""
    with transaction.atomic():
        SiteSettings.load()  # the row exists from here on
        row = SiteSettings.objects.select_for_update().get(pk=1)
        stored_secret = row.webhook_secret
        events = changes.get("webhook_events", row.webhook_events)
        data = {field.name: getattr(row, field.attname) for field in site_settings_fields()}
        data.update(changes)
        # Checkboxes: the form reads a missing value as unchecked (and False as checked).
        form = SiteSettingsForm(data={k: v for k, v in data.items() if v is not False}, instance=row)
        if not form.is_valid():
            raise ValidationError(form.errors.as_data())
        # The form reads "" (no event) as None (the default list): the events are set as given, in registry order.
        form.instance.webhook_events = None if events is None else ",".join(parse_webhook_events(events))
        if "webhook_secret" not in changes:
            form.instance.webhook_secret = stored_secret
        form.save()
    forget_site_settings()
    return form.instance
