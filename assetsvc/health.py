"""Health endpoints for load balancers and monitoring, outside ``/api/v1`` (no token, no rate limit, nothing
secret in the answer):

* ``GET /health``: liveness. The process answers; nothing else is touched (a database outage must not make an
  orchestrator restart healthy web processes).
* ``GET /health/ready``: readiness. The database answers a query, the cache (the rate limiter's counters) stores
  and reads a value, and every check an upper app registers in the ``readiness_checks`` store passes
  (``notifications`` registers its backlog: how many notifications wait and how old the oldest is). 200 when every
  critical check passes (``status`` "degraded" when a non-critical one fails: the cache, or the backlog, which is
  the task workers' business and no reason to take a healthy web node out of a load balancer), else 503; each check
  says what it found, never an error text that could carry a host name or a password. Each process reuses its
  answer for ``HEALTH_READY_CACHE_SECONDS`` (default 2): the endpoint is unthrottled and runs several queries.
* ``GET /health/worker``: the task workers, for monitoring (issue 25): the checks upper apps register in the
  ``worker_checks`` store (the notification backlog); 503 when one fails, so an alert fires while the web nodes
  stay in service.

Small enough to own: a library's plugin set (disk, memory, storage, celery) would answer questions this service
does not ask, while the one it must answer (the notification backlog) is ours either way.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from assetsvc.conf import app_settings
from assetsvc.registry import entries, register_entry

logger = logging.getLogger("assetsvc.health")

#: A check: ``() -> {"ok": bool, ...details}``; it must not raise (a raise counts as a failure).
Check = Callable[[], dict[str, Any]]


def register_readiness_check(name: str, check: Check) -> None:
    """Add a readiness check (called from an app's ``ready()``)."""
    register_entry("readiness_checks", name, check)


def register_worker_check(name: str, check: Check) -> None:
    """Add a check of ``/health/worker`` (called from an app's ``ready()``)."""
    register_entry("worker_checks", name, check)


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


_answer_lock = threading.Lock()
_answer: tuple[float, dict[str, Any], int] | None = None  # (monotonic time, body, status) of the last readiness


def _readiness() -> tuple[dict[str, Any], int]:
    checks = {"database": _timed(check_database), "cache": _timed(check_cache)}
    for name, check in entries("readiness_checks").items():
        checks[name] = _timed(check)
    ready_ = all(result.get("ok") for result in checks.values() if result.get("critical", True))
    degraded = not all(result.get("ok") for result in checks.values())
    status = "unavailable" if not ready_ else "degraded" if degraded else "ok"
    return {"status": status, "checks": checks}, 200 if ready_ else 503


@require_GET
@never_cache
def ready(request: HttpRequest) -> JsonResponse:
    """The readiness answer, computed at most once per ``HEALTH_READY_CACHE_SECONDS`` per process (one caller
    computes it while the others wait for it), so a flood of probes costs a few queries a second at most."""
    global _answer
    seconds = float(app_settings.HEALTH_READY_CACHE_SECONDS)
    with _answer_lock:
        if _answer is None or seconds <= 0 or time.monotonic() - _answer[0] >= seconds:
            body, status = _readiness()
            _answer = (time.monotonic(), body, status)
        _, body, status = _answer
    return JsonResponse(body, status=status)


@require_GET
@never_cache
def worker(request: HttpRequest) -> JsonResponse:
    checks = {name: _timed(check) for name, check in entries("worker_checks").items()}
    ok = all(result.get("ok") for result in checks.values())
    return JsonResponse({"status": "ok" if ok else "unavailable", "checks": checks}, status=200 if ok else 503)
