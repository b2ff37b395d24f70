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
