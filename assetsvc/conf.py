"""``app_settings``: the service's own knobs (``settings.ASSETSVC``), read at call time so tests can override them."""

from __future__ import annotations

from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    "API_THROTTLE_PER_MINUTE": 120,
    "API_TOKEN_EXPIRATION_YEARS": 15,
    "MAX_RESULTS": 500,
    "API_MAX_BODY_MB": 10,
    "ADMIN_MAX_BODY_MB": 55,
    "API_ERROR_STATUS": "compat",
    "API_DATE_FORMAT": "iso",
    "TRUSTED_PROXIES": "",
    "WEBHOOK_ENDPOINT": "",
    "WEBHOOK_CHANNEL": "",
    "WEBHOOK_BOTNAME": "",
    "WEBHOOK_PLATFORM": "",
    "WEBHOOK_SECRET": "",
    "WEBHOOK_EVENTS": "",
    "WEBHOOK_TIMEOUT": 5,
    "WEBHOOK_LOG_RETENTION_DAYS": 90,
    "HEALTH_READY_CACHE_SECONDS": 2,
    "SITE_NAME": "Asset management",
}


class AppSettings:
    def __getattr__(self, name: str) -> Any:
        if name not in DEFAULTS:
            raise AttributeError(name)
        return getattr(settings, "ASSETSVC", {}).get(name, DEFAULTS[name])


app_settings = AppSettings()
