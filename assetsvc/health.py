"""Health endpoints for load balancers and monitoring, outside ``/api/v1`` (no token, no rate limit, nothing
secret in the answer):

* ``GET /health``: liveness. The process answers; nothing else is touched (a database outage must not make an
  orchestrator restart healthy web processes).
* ``GET /health/ready``: readiness. The database answers a query, the cache (the rate limiter's counters) stores
  and reads a value, and every check an upper app registers in the ``readiness_checks`` store passes
  (``notifications`` registers its backlog: how many notifications wait and how old the oldest is). 200 when every
  critical check passes (``status`` "degraded" when a non-critical one, the cache, fails), else 503; each check says
  what it found, never an error text that could carry a host name or a password.

Small enough to own: a library's plugin set (disk, memory, storage, celery) would answer questions this service
does not ask, while the one it must answer (the notification backlog) is ours either way.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from assetsvc.registry import entries, register_entry

logger = logging.getLogger("assetsvc.health")

#: A check: ``() -> {"ok": bool, ...details}``; it must not raise (a raise counts as a failure).
Check = Callable[[], dict[str, Any]]


def register_readiness_check(name: str, check: Check) -> None:
    """Add a readiness check (called from an app's ``ready()``)."""
    register_entry("readiness_checks", name, check)


def _timed(check: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    started = time.monotonic()
    try:
        result = dict(check())
    except Exception as exc:  # noqa: BLE001 - any failure is "not ready"; the reason goes to the server log only
        logger.warning("Readiness check failed: %s", type(exc).__name__, exc_info=True)
        result = {"ok": False, "error": type(exc).__name__}
    result["ms"] = round((time.monotonic() - started) * 1000, 1)
    return result


def check_database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"ok": True, "vendor": connection.vendor}


def check_cache() -> dict[str, Any]:
    """Not critical: without its cache the rate limiter serves requests unlimited (docs/operations.md), so a cache
    outage is "degraded", and taking every instance out of a load balancer for it would be a full outage."""
    key, value = "health:ready", uuid.uuid4().hex
    try:
        cache.set(key, value, timeout=10)
        ok = cache.get(key) == value
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        logger.warning("Cache check failed: %s", type(exc).__name__)
        return {"ok": False, "critical": False, "error": type(exc).__name__}
    return {"ok": ok, "critical": False}


@require_GET
@never_cache
def live(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@require_GET
@never_cache
def ready(request: HttpRequest) -> JsonResponse:
    checks = {"database": _timed(check_database), "cache": _timed(check_cache)}
    for name, check in entries("readiness_checks").items():
        checks[name] = _timed(check)
    ready_ = all(result.get("ok") for result in checks.values() if result.get("critical", True))
    degraded = not all(result.get("ok") for result in checks.values())
    status = "unavailable" if not ready_ else "degraded" if degraded else "ok"
    return JsonResponse({"status": status, "checks": checks}, status=200 if ready_ else 503)
