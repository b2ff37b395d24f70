"""The one place error bodies are built (API-CONTRACT.md §2).

Every error under ``/api/v1`` is ``{"status":"error","message":..,"messages":..,"payload":null}``; the status code of
validation, not-found and state errors follows ``API_ERROR_STATUS`` (``compat``: 200 as Snipe-IT; ``http``: 422, 404
and 409). Views raise; they never build an error body.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import OperationalError
from django.http import Http404, JsonResponse
from django_ratelimit.exceptions import Ratelimited
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.settings import api_settings as drf_settings

from assetsvc.api.outages import DATABASE_UNAVAILABLE, is_database_outage
from assetsvc.conf import app_settings
from assetsvc.exceptions import DomainError

logger = logging.getLogger(__name__)

UNAUTHENTICATED = "Unauthenticated."
INVALID_TOKEN = "The token is invalid or has expired."
FORBIDDEN = "Insufficient permissions."
ENDPOINT_NOT_FOUND = "404 endpoint not found."
METHOD_NOT_ALLOWED = "Method not allowed"
INVALID_JSON = "Invalid JSON"
SERVER_ERROR = "An unexpected error occurred."
TOO_MANY_REQUESTS = "Too Many Requests"
BUSY = "The item is busy; try again."
BODY_TOO_LARGE = "The request body is too large (at most {limit} MB)."
TOO_MANY_FIELDS = "The request body has too many fields (at most {limit})."
BAD_CONTENT_LENGTH = "The Content-Length header is invalid."


class BadQueryParameter(exceptions.APIException):
    """A query parameter the list cannot honour (``cursor``; docs/decisions.md "Issue 13: keyset pagination"): HTTP
    400 in both ``API_ERROR_STATUS`` modes, with the envelope's ``messages`` as ``{parameter: [text]}``. Only
    parameters of opt-in features raise it: Snipe-IT's own parameters stay forgiving (a bad ``limit`` or ``sort``
    falls back)."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.message = message


class BatchRefused(exceptions.ValidationError):
    """A batch request refused as a whole (API-CONTRACT.md §12): the validation envelope plus ``results``, one error
    row per asset id (or none when the ids themselves are wrong). ``detail`` is ``{field: [texts]}`` or a text."""

    def __init__(self, detail: Any, results: list[dict[str, Any]]) -> None:
        super().__init__(detail)
        self.message_text = detail if isinstance(detail, str) else None
        self.results = results


def error_messages(exc: Exception) -> Any:
    """The envelope's ``messages`` of an expected error (a domain error, a field error), for answers that report
    several outcomes in one body (a batch's rows); None for any other exception, which the caller re-raises."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    if isinstance(exc, DomainError):
        return exc.messages
    if isinstance(exc, exceptions.ValidationError):
        return _flatten(exc.detail)
    if isinstance(exc, OperationalError) and "lock" in str(exc).lower():
        return BUSY
    return None


def error_body(message: str, messages: Any = None, payload: Any = None) -> dict[str, Any]:
    return {"status": "error", "message": message, "messages": message if messages is None else messages,
            "payload": payload}


def _status_for(kind: str, view: Any = None) -> int:
    """The HTTP status of a validation (``invalid``), ``not_found`` or ``conflict`` error under ``API_ERROR_STATUS``.
    A view whose ``not_found_status`` is set answers not-found with it in both modes (the token routes: the contract
    fixes 404 there, whichever way the id was not found)."""
    if kind == "not_found" and getattr(view, "not_found_status", None):
        return view.not_found_status
    if app_settings.API_ERROR_STATUS != "http":
        return status.HTTP_200_OK
    return {"invalid": 422, "not_found": 404, "conflict": 409}[kind]


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF error details to Snipe-IT's ``{field: [messages]}`` (nested keys joined with dots)."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if key == drf_settings.NON_FIELD_ERRORS_KEY:
                name = prefix or "general"
            for k, v in _flatten(value, name).items():
                out.setdefault(k, []).extend(v)
    elif isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            out.setdefault(prefix or "general", []).extend(str(item) for item in detail)
        else:
            for index, item in enumerate(detail):
                for k, v in _flatten(item, f"{prefix}.{index}" if prefix else str(index)).items():
                    out.setdefault(k, []).extend(v)
    else:
        out.setdefault(prefix or "general", []).append(str(detail))
    return out


def validation_response(messages: dict[str, list[str]]) -> Response:
    first = next((texts[0] for texts in messages.values() if texts), "The given data was invalid.")
    return Response(error_body(first, messages), status=_status_for("invalid"))


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, Ratelimited):  # before PermissionDenied, which it subclasses
        return Response({"message": TOO_MANY_REQUESTS}, status=429)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    refused = body_refusal(exc)
    if refused is not None:
        return Response(refused[0], status=refused[1])
    if isinstance(exc, BadQueryParameter):
        return Response(error_body(exc.message, {exc.parameter: [exc.message]}), status=exc.status_code)
    if isinstance(exc, DomainError):
        return Response(error_body(exc.message, exc.messages, exc.payload),
                        status=_status_for(exc.kind, context.get("view")))
    if isinstance(exc, exceptions.NotAuthenticated):
        return Response(error_body(UNAUTHENTICATED), status=401, headers={"WWW-Authenticate": 'Bearer realm="api"'})
    if isinstance(exc, exceptions.AuthenticationFailed):
        return Response(error_body(INVALID_TOKEN), status=401, headers={"WWW-Authenticate": 'Bearer realm="api"'})
    if isinstance(exc, exceptions.PermissionDenied):
        return Response(error_body(FORBIDDEN), status=403)
    if isinstance(exc, exceptions.ParseError):
        return Response(error_body(INVALID_JSON), status=422)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return Response(error_body(f"Unsupported media type: {exc.detail}"), status=415)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return Response(error_body(METHOD_NOT_ALLOWED), status=405)
    if isinstance(exc, exceptions.NotFound):
        detail = str(exc.detail)
        message = ENDPOINT_NOT_FOUND if detail in {"Not found.", "No Asset matches the given query."} else detail
        return Response(error_body(message), status=_status_for("not_found", context.get("view")))
    if isinstance(exc, exceptions.Throttled):
        return Response({"message": TOO_MANY_REQUESTS}, status=429)
    if isinstance(exc, BatchRefused):
        if exc.message_text is not None:
            body = error_body(exc.message_text)
        else:
            messages = _flatten(exc.detail)
            body = error_body(next(iter(messages.values()))[0], messages)
        return Response({**body, "results": exc.results}, status=_status_for("invalid"))
    if isinstance(exc, exceptions.ValidationError):
        return validation_response(_flatten(exc.detail))
    if is_database_outage(exc):
        logger.warning("Database unavailable on %s: %s", context.get("request") and context["request"].path,
                       type(exc).__name__)
        return Response(error_body(DATABASE_UNAVAILABLE), status=503)
    if isinstance(exc, OperationalError) and "lock" in str(exc).lower():
        # No Retry-After: the specification keeps it for 429 alone; the message already says to try again. The
        # database's first line says which wait gave up (a lock timeout, a deadlock), for operators and drills.
        logger.warning("Answered busy on %s: %s", context.get("request") and context["request"].path,
                       str(exc).strip().splitlines()[0][:300])
        return Response(error_body(BUSY, payload=None), status=409)
    if isinstance(exc, exceptions.APIException):
        return Response(error_body(str(exc.detail)), status=exc.status_code)
    return None  # unhandled: ApiErrorMiddleware answers the 500 envelope


def body_refusal(exc: Exception) -> tuple[dict[str, Any], int] | None:
    """Django's own refusals of a body (issue 25): form data above ``DATA_UPLOAD_MAX_MEMORY_SIZE`` or with more than
    ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` fields. Both are 413 envelopes, never a 500. ``RequestBodyLimitMiddleware``
    refuses larger bodies before this; these remain for a form whose parsing meets Django's caps."""
    if isinstance(exc, RequestDataTooBig):
        limit = (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0) // (1024 * 1024) or 1
        return error_body(BODY_TOO_LARGE.format(limit=limit)), 413
    if isinstance(exc, TooManyFieldsSent):
        return error_body(TOO_MANY_FIELDS.format(limit=settings.DATA_UPLOAD_MAX_NUMBER_FIELDS)), 413
    return None


def json_error(message: str, status_code: int, **headers: str) -> JsonResponse:
    """An error envelope outside DRF (middleware, URL resolver handlers)."""
    response = JsonResponse(error_body(message), status=status_code)
    for key, value in headers.items():
        response[key.replace("_", "-")] = value
    return response


def too_many_requests() -> JsonResponse:
    """The specification's 429 body: only ``message``."""
    return JsonResponse({"message": TOO_MANY_REQUESTS}, status=429)
