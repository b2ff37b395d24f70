"""Per-request access to :class:`assetsvc.models.SiteSettings`.

Inside a request the row is read at most once (the middleware opens a request scope); outside a request (commands,
tests, background delivery) every call reads the database, so nothing is ever stale across requests or processes.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assetsvc.models import SiteSettings

_request_scope: ContextVar[dict | None] = ContextVar("assetsvc_site_settings", default=None)


def open_request_scope():
    return _request_scope.set({})


def close_request_scope(token) -> None:
    _request_scope.reset(token)


def get_site_settings() -> SiteSettings:
    from assetsvc.models import SiteSettings

    scope = _request_scope.get()
    if scope is None:
        return SiteSettings.load()
    if "settings" not in scope:
        scope["settings"] = SiteSettings.load()
    return scope["settings"]


def remember_site_settings(settings_row: SiteSettings) -> None:
    """Use ``settings_row`` for the rest of this request (read by the caller together with other data, e.g. with
    the bearer token in one query); outside a request this does nothing."""
    scope = _request_scope.get()
    if scope is not None:
        scope["settings"] = settings_row


def forget_site_settings() -> None:
    """Drop the copy of this request (after the settings were changed within it)."""
    scope = _request_scope.get()
    if scope is not None:
        scope.pop("settings", None)


def site_settings_reencrypt_secret() -> tuple[int, int]:
    """Encrypt the saved webhook secret again with the first key of ``FIELD_ENCRYPTION_KEY`` (after a key rotation,
    with ``manage.py reencrypt_custom_values``); returns ``(rewritten, unreadable)``, each 0 or 1. A secret no
    configured key opens is left as it is stored."""
    from django.db import transaction

    from assetsvc.crypto import Undecryptable
    from assetsvc.models import SiteSettings

    with transaction.atomic():
        row = SiteSettings.objects.select_for_update().filter(pk=1).first()
        if row is not None and isinstance(row.webhook_secret, Undecryptable):
            return 0, 1
        if row is None or not row.webhook_secret:
            return 0, 0
        row.save(update_fields=["webhook_secret"])  # the field encrypts with the first key
    forget_site_settings()
    return 1, 0


#: The site settings an environment variable overrides, field by field, when it is non-empty (API-CONTRACT.md §8,
#: §8a). Read here, below ``notifications``, so ``site_settings show`` can print what is in force (issue 25).
WEBHOOK_VARIABLES = {
    "webhook_platform": "WEBHOOK_PLATFORM",
    "webhook_endpoint": "WEBHOOK_ENDPOINT",
    "webhook_channel": "WEBHOOK_CHANNEL",
    "webhook_botname": "WEBHOOK_BOTNAME",
    "webhook_secret": "WEBHOOK_SECRET",
    "webhook_events": "WEBHOOK_EVENTS",
}


def webhook_overrides() -> dict[str, str]:
    """``{setting name: value}`` of the non-empty ``WEBHOOK_*`` variables (the platform lower-cased), unvalidated."""
    from assetsvc.conf import app_settings

    overrides = {}
    for name, variable in WEBHOOK_VARIABLES.items():
        value = (getattr(app_settings, variable) or "").strip()
        if value:
            overrides[name] = value.lower() if name == "webhook_platform" else value
    return overrides

