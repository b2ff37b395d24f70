"""Middleware for ``/api/v1``: JSON errors for anything DRF does not handle, the per-user rate limit, the refusal of
plain HTTP, and the limit on request bodies (every path)."""

from __future__ import annotations

import io
import logging
import math
import re
import time

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpResponse
from django_ratelimit.core import get_usage

from assetsvc.api.exceptions import (
    BAD_CONTENT_LENGTH,
    BODY_TOO_LARGE,
    SERVER_ERROR,
    body_refusal,
    json_error,
    too_many_requests,
)
from assetsvc.api.outages import DATABASE_UNAVAILABLE, is_database_outage
from assetsvc.client_address import client_address, forwarded_proto_believed
from assetsvc.conf import app_settings
from assetsvc.registry import hook
from assetsvc.request_meta import reset_request_meta, set_request_meta
from assetsvc.site import close_request_scope, open_request_scope

logger = logging.getLogger("assetsvc.api")
API_PREFIX = "/api/"


def is_api_request(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


#: A file upload (issue 27: ``POST /api/v1/<kind>/<id>/files``, ``/users/<id>/upload``): its body may be as large as
#: ``UPLOAD_MAX_MB`` plus room for the multipart framing, even when ``API_MAX_BODY_MB`` is smaller.
UPLOAD_PATH = re.compile(r"^/api/v1/[a-z-]+/[^/]+/(?:files|upload)/?$")


def body_limit_mb(request, api: bool) -> int:
    if not api:
        return app_settings.ADMIN_MAX_BODY_MB
    if request.method == "POST" and UPLOAD_PATH.match(request.path_info):
        return max(app_settings.API_MAX_BODY_MB, int(getattr(settings, "UPLOAD_MAX_MB", 0)) + 1)
    return app_settings.API_MAX_BODY_MB


def client_ip(request) -> str:
    """The caller's address by ``TRUSTED_PROXIES`` (``assetsvc.client_address``): the one answer that both the
    action log and the anonymous rate-limit bucket use, computed once per request."""
    if not hasattr(request, "_assetsvc_client_ip"):
        request._assetsvc_client_ip = client_address(request.META, app_settings.TRUSTED_PROXIES)
    return request._assetsvc_client_ip


class ApiErrorMiddleware:
    """Outermost: opens the per-request settings scope and turns an unhandled exception under ``/api/`` into the 500
    envelope (no internals)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = open_request_scope()
        path = request.path_info
        if path.startswith("/api/v1/") and path.endswith("/") and len(path) > len("/api/v1/"):
            request.path_info = path.rstrip("/") or path  # trailing slash optional (API-CONTRACT.md §1)
        try:
            return self.get_response(request)
        finally:
            close_request_scope(token)

    def process_exception(self, request, exception):
        if not is_api_request(request):
            return None
        refused = body_refusal(exception)  # Django's form caps met outside DRF: 413, not 500
        if refused is not None:
            return json_error(refused[0]["message"], refused[1])
        logger.exception("Unhandled error on %s %s", request.method, request.path_info)
        return json_error(SERVER_ERROR, 500)


class RequestMetaMiddleware:
    """Records where every request came from (address, user agent, ``api`` or ``gui`` for the admin) for the
    action-log rows it writes, so no view can forget it (``assetsvc.request_meta``); drops an ``X-Forwarded-Proto``
    that did not come from a trusted proxy."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "HTTP_X_FORWARDED_PROTO" in request.META and \
                not forwarded_proto_believed(request.META, app_settings.TRUSTED_PROXIES):
            del request.META["HTTP_X_FORWARDED_PROTO"]  # before SecurityMiddleware and is_secure() read it
        token = set_request_meta(
            remote_ip=client_ip(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            # SCIM provisioning (/scim/v2/, issue 30) is a machine client like the API
            action_source="api" if is_api_request(request) or request.path_info.startswith("/scim/") else "gui",
        )
        try:
            return self.get_response(request)
        finally:
            reset_request_meta(token)


def rate_limit_key(group: str, request) -> str:
    """Per authenticated user across all their tokens; per client IP (behind trusted proxies, the forwarded one)
    without a valid token."""
    result = hook("bearer_resolver")(request)
    if result.user is not None:
        return f"user:{result.user.pk}"
    return f"ip:{client_ip(request)}"


#: Seconds between two warnings that the rate limiter runs open (one per process, not one per request).
OPEN_WARNING_EVERY = 60.0


class ApiRateLimitMiddleware:
    """Counts every ``/api/v1`` request before it is processed (fixed 60-second window, django-ratelimit counter in
    the Django cache: Redis with ``REDIS_URL``, so all worker processes share it) and adds the limit headers to
    every answer; past the limit, answers 429 with ``Retry-After``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path_info.startswith("/api/v1"):
            return self.get_response(request)
        limit = app_settings.API_THROTTLE_PER_MINUTE
        try:
            usage = get_usage(request, group="api", key=rate_limit_key, rate=f"{limit}/m", increment=True)
        except DatabaseError as exc:
            if not is_database_outage(exc):
                raise
            # The token lookup met an outage of the database: its 503 envelope, with the headers of a request that
            # could not be counted (every /api/v1 answer carries them).
            logger.warning("Database unavailable on %s: %s", request.path_info, type(exc).__name__)
            return self.uncounted(json_error(DATABASE_UNAVAILABLE, 503), limit)
        except Exception as exc:  # noqa: BLE001 - the counter's store (Redis) is down: fail open, loudly
            return self.unlimited(request, limit, exc)
        if usage is None:  # RATELIMIT_ENABLE off
            return self.get_response(request)
        now = time.time()
        # django-ratelimit's window ends at the whole second int(now) + time_left and still counts during that
        # second, so the counter resets one second later.
        reset_at = int(now) + usage["time_left"] + 1
        reset_in = max(1, math.ceil(reset_at - now))
        remaining = max(0, limit - usage["count"])
        if usage["should_limit"]:
            response = too_many_requests()
            response["Retry-After"] = str(reset_in)
            remaining = 0
        else:
            response = self.get_response(request)
        response["X-RateLimit-Limit"] = str(limit)
        response["X-RateLimit-Remaining"] = str(remaining)
        response["X-RateLimit-Reset"] = str(reset_in)
        response["X-RateLimit-Reset-Timestamp"] = str(reset_at)
        return response

    _warned_at = 0.0

    def unlimited(self, request, limit: int, exc: Exception):
        """The counter cannot be reached (Redis down): the request is served unlimited rather than refused, and the
        operator is told (a warning a minute per process). Refusing every API call because a cache is down would
        turn a cache outage into a full outage; the limit protects the service, it is not what it is for
        (docs/operations.md). The headers say the limit and that nothing was counted (``Remaining`` = the limit)."""
        now = time.monotonic()
        if now - ApiRateLimitMiddleware._warned_at >= OPEN_WARNING_EVERY:
            ApiRateLimitMiddleware._warned_at = now
            logger.warning("Rate limiter unavailable (%s): serving /api/v1 without limits until its cache is back",
                           type(exc).__name__)
        return self.uncounted(self.get_response(request), limit)

    @staticmethod
    def uncounted(response, limit: int):
        """The limit headers of a request that was not counted: the whole limit remains."""
        response["X-RateLimit-Limit"] = str(limit)
        response["X-RateLimit-Remaining"] = str(limit)
        response["X-RateLimit-Reset"] = "60"
        response["X-RateLimit-Reset-Timestamp"] = str(int(time.time()) + 60)
        return response


class ApiTlsMiddleware:
    """With ``APP_FORCE_TLS``, refuses ``/api/`` over plain HTTP (403, not a redirect: the token has already crossed
    in clear text). It sits inside ``ApiRateLimitMiddleware`` so the refusal is counted and carries the rate-limit
    headers like every other ``/api/v1`` answer (API-CONTRACT.md §5)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if is_api_request(request) and settings.APP_FORCE_TLS and not request.is_secure():
            return json_error("HTTPS is required for the API.", 403)
        return self.get_response(request)


MB = 1024 * 1024
#: How much of a body without ``Content-Length`` is read at a time.
CHUNK = 64 * 1024


class RequestBodyLimitMiddleware:
    """Limits every request body before anything reads it (issue 25): ``API_MAX_BODY_MB`` under ``/api/`` (the 413
    error envelope; a file upload may reach ``UPLOAD_MAX_MB`` + 1), ``ADMIN_MAX_BODY_MB`` elsewhere (the admin; a
    plain 413). A ``Content-Length`` above the limit is
    refused without reading a byte. A body without one (``Transfer-Encoding: chunked``, which Django would read as
    empty) is read here up to the limit and refused past it, else handed on as if it had come with its length.

    It sits inside the rate-limit and TLS middleware, so an API refusal is counted and carries the limit headers,
    and before the session, CSRF and view layers, the first that could read the body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        api = is_api_request(request)
        limit_mb = body_limit_mb(request, api)
        limit = limit_mb * MB
        announced = request.META.get("CONTENT_LENGTH", "")
        if announced.strip():
            if not announced.strip().isdigit():
                return self.refuse(api, BAD_CONTENT_LENGTH, 400)
            if int(announced) > limit:
                return self.refuse(api, BODY_TOO_LARGE.format(limit=limit_mb), 413)
        elif "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            body = self.read_bounded(request.META.get("wsgi.input"), limit)
            if body is None:
                return self.refuse(api, BODY_TOO_LARGE.format(limit=limit_mb), 413)
            # Django sized the request's stream from the missing Content-Length (0: nothing); give it the body.
            request._stream = io.BytesIO(body)
            request.META["CONTENT_LENGTH"] = str(len(body))
        return self.get_response(request)

    @staticmethod
    def read_bounded(stream, limit: int) -> bytes | None:
        """At most ``limit`` bytes of ``stream``, or None when it holds more (only ``limit`` + 1 are ever read)."""
        if stream is None:
            return b""
        parts: list[bytes] = []
        size = 0
        while size <= limit:
            part = stream.read(min(CHUNK, limit + 1 - size))
            if not part:
                return b"".join(parts)
            parts.append(part)
            size += len(part)
        return None

    @staticmethod
    def refuse(api: bool, message: str, status_code: int):
        if api:
            return json_error(message, status_code)
        return HttpResponse(message, status=status_code, content_type="text/plain; charset=utf-8")
