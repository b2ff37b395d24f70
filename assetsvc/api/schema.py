"""OpenAPI post-processing: every operation documents the error answers it can give (API-CONTRACT.md §2).

drf-spectacular describes the success answer of each view. The errors come from one place
(:mod:`assetsvc.api.exceptions`), for every operation alike, so they are added here once instead of on each view:

- ``200`` may carry the error envelope instead of the success shape: in the default ``API_ERROR_STATUS=compat`` mode
  validation, not-found and state errors answer HTTP 200 with ``{"status":"error",...}``, as Snipe-IT does (an
  operation whose success is not JSON, such as an image, gets the envelope as a second, ``application/json``,
  content of its 200);
- ``401`` (no or bad token), ``403`` (permission), ``422`` (validation in ``http`` mode; malformed JSON in both),
  ``404`` and ``409`` (not found and state errors in ``http`` mode), ``405`` (the path is another route's),
  ``503`` (database unreachable) carry the error envelope; ``415`` too, on operations with a request body;
- ``429`` (rate limit) carries only ``{"message": ...}``, as the specification says;
- ``400`` carries the error envelope on lists that take ``cursor`` (a cursor they cannot follow, in both modes), and
  on the operations that declare a 400 of their own (a query parameter of an opt-in feature, such as the format of
  ``hardware/{id}/qr``: ``assetsvc.api.exceptions.BadQueryParameter``).
"""

from __future__ import annotations

from typing import Any

ERROR_ENVELOPE = "ErrorEnvelope"
RATE_LIMITED = "RateLimited"

_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Snipe-IT's error envelope. ``messages`` is the text, or ``{field: [texts]}`` for a validation "
                   "error; ``payload`` is null or, for some state errors, the record concerned.",
    "properties": {
        "status": {"type": "string", "enum": ["error"]},
        "message": {"type": "string"},
        "messages": {"anyOf": [
            {"type": "string"},
            {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        ]},
        "payload": {"nullable": True},
    },
    "required": ["status", "messages", "payload"],
}

_RATE_LIMITED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The rate limit's answer (with ``Retry-After``).",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
}

_ERRORS = {
    "401": "Unauthenticated: no token, or an invalid, expired or revoked one.",
    "403": "Insufficient permissions.",
    "405": "Method not allowed: the path matches another route (a tag ending in ``/checkout`` is read by GET).",
    "404": "Not found (``API_ERROR_STATUS=http``; ``compat`` answers 200 with the error envelope).",
    "409": "A state error (``API_ERROR_STATUS=http``), or the row is locked by another change: try again.",
    "422": "Validation error (``API_ERROR_STATUS=http``) or malformed JSON.",
    "503": "The database cannot be reached.",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def document_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular ``POSTPROCESSING_HOOKS`` entry: add the error answers to every operation."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas[ERROR_ENVELOPE] = _ERROR_SCHEMA
    schemas[RATE_LIMITED] = _RATE_LIMITED_SCHEMA
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            content = responses.get("200", {}).get("content", {})
            ok = content.get("application/json")
            if ok is not None and "schema" in ok:
                ok["schema"] = {"anyOf": [ok["schema"], _ref(ERROR_ENVELOPE)]}
            elif content and ok is None:
                content["application/json"] = {"schema": _ref(ERROR_ENVELOPE)}
            if "400" in responses and not responses["400"].get("content"):
                responses["400"] = _json(ERROR_ENVELOPE, responses["400"].get("description", "Bad request."))
            for code, description in _ERRORS.items():
                responses.setdefault(code, _json(ERROR_ENVELOPE, description))
            if any(parameter.get("name") == "cursor" for parameter in operation.get("parameters", ())):
                responses.setdefault("400", _json(ERROR_ENVELOPE, "A ``cursor`` the list cannot follow: malformed, "
                                                  "of another sort order, with ``offset``, or in a sort order a cursor "
                                                  "cannot walk."))
            if "requestBody" in operation:
                responses.setdefault("415", _json(ERROR_ENVELOPE, "Unsupported media type."))
            responses.setdefault("429", _json(RATE_LIMITED, "Too many requests."))
    return result
