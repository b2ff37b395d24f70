"""TEMPORARY stand-in for main's mail queue (reverted before merging main)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

from assetsvc.conf import app_settings
from notifications.models import OutboundMail


def queue_mail(*, to: str, subject: str, template: str, context: dict[str, Any], event: str, user=None,
               company_id: int | None = None, dedupe_key: str | None = None) -> OutboundMail | None:
    if dedupe_key and OutboundMail.objects.filter(dedupe_key=dedupe_key).exists():
        return None
    context = {**context, "site_name": app_settings.SITE_NAME, "site_url": settings.SITE_URL}
    return OutboundMail.objects.create(
        to=to, subject=subject, event=event, user=user, company_id=company_id, dedupe_key=dedupe_key,
        text_body=render_to_string(f"mail/{template}.txt", context),
        html_body=render_to_string(f"mail/{template}.html", context))
