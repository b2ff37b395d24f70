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

Two more hooks run after it: :func:`canonical_paths` names each path as Snipe-IT does (``/api/v1/users/me``, not
the router's optional ``/``), and :func:`attach_examples` gives every operation examples built from its own schema
(so they cannot drift from it): the request body, the success answer, and the error answers with the service's real
messages (docs/api-docs.md).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from assetsvc.api.examples import RECORDED_ANSWERS
from assetsvc.api.exceptions import (
    ENDPOINT_NOT_FOUND,
    FORBIDDEN,
    INVALID_JSON,
    METHOD_NOT_ALLOWED,
    TOO_MANY_REQUESTS,
    UNAUTHENTICATED,
    error_body,
)
from assetsvc.api.outages import DATABASE_UNAVAILABLE

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


def canonical_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """``POSTPROCESSING_HOOKS`` entry: ``/api/v1/users/me/`` → ``/api/v1/users/me``. Routers with an optional
    trailing slash (``/?``) come out of drf-spectacular with the slash; Snipe-IT's paths have none, and both work."""
    result["paths"] = {(path.rstrip("/") or path): operations for path, operations in result.get("paths", {}).items()}
    return result


# Examples --------------------------------------------------------------------------------------------------------

#: Property values that say more than their type would (the rest follow the type, format and enum).
_NAMED_VALUES: dict[str, Any] = {
    "asset_tag": "LAP-0042", "serial": "C02XK1JHJG5J", "name": "Example", "username": "jdoe", "first_name": "Jane",
    "last_name": "Doe", "email": "jdoe@example.com", "employee_num": "E-1001", "phone": "555-0100",
    "jobtitle": "Engineer", "note": "Handed over at the front desk", "notes": "", "checkout_to_type": "user",
}
_FORMATS = {"date": "2026-03-02", "date-time": "2026-03-02T09:30:00Z", "decimal": "1234.50",
            "email": "jdoe@example.com", "uri": "https://example.com/", "uuid": "9a3e0c6e-3c1f-4b8e-9a57-0c1d2e3f4a5b",
            "ipv4": "192.0.2.10", "binary": "<file>"}
_ERROR_EXAMPLES = {
    "400": "The cursor is not valid for this list.",
    "401": UNAUTHENTICATED,
    "403": FORBIDDEN,
    "404": ENDPOINT_NOT_FOUND,
    "405": METHOD_NOT_ALLOWED,
    "409": "The item is busy; try again.",
    "415": 'Unsupported media type "text/plain" in request.',
    "422": INVALID_JSON,
    "503": DATABASE_UNAVAILABLE,
}


def _resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$ref`` and one-item ``allOf`` replaced by their target (outer keywords win)."""
    while "$ref" in schema or len(schema.get("allOf", ())) == 1:
        if "$ref" in schema:
            target: Any = document
            for part in schema["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        else:
            schema = {**_resolve(schema["allOf"][0], document), **{k: v for k, v in schema.items() if k != "allOf"}}
    return schema


def example_of(schema: dict[str, Any], document: dict[str, Any], *, writing: bool, name: str = "",
               depth: int = 0) -> Any:
    """A value that ``schema`` accepts: enums take their first value, known property names a telling value,
    everything else its type and format. ``writing`` builds a request body (no read-only properties; only the
    required ones, or the first two when none is); otherwise an answer (every property but the write-only ones, as
    the service answers every key)."""
    schema = _resolve(schema, document)
    if "example" in schema:
        return copy.deepcopy(schema["example"])
    for alternatives in ("oneOf", "anyOf"):
        if schema.get(alternatives):
            return example_of(schema[alternatives][0], document, writing=writing, name=name, depth=depth)
    if "enum" in schema:
        return next((value for value in schema["enum"] if value is not None), None)
    kind = schema.get("type")
    if kind is None or depth > 8:  # a fieldset list nests field records 8 deep
        return None if schema.get("nullable") or kind is None else {}
    if kind == "object":
        properties = {key: value for key, value in (schema.get("properties") or {}).items()
                      if not _resolve(value, document).get("readOnly" if writing else "writeOnly")}
        if writing:
            required = [key for key in schema.get("required", ()) if key in properties]
            properties = {key: properties[key] for key in (required or list(properties)[:2])}
        value = {key: example_of(item, document, writing=writing, name=key, depth=depth + 1)
                 for key, item in properties.items()}
        extra = schema.get("additionalProperties")
        if not value and isinstance(extra, dict) and extra:
            value = {"key": example_of(extra, document, writing=writing, depth=depth + 1)}
        elif "properties" not in schema and schema.get("nullable"):
            return None  # a free-form object that may be null: null says more than {}
        return value
    if kind == "array":
        return [example_of(schema.get("items", {}), document, writing=writing, name=name, depth=depth + 1)]
    if kind == "string":
        if schema.get("format") in _FORMATS:
            return _FORMATS[schema["format"]]
        return _string_example(schema, _NAMED_VALUES.get(name, "string"))
    if kind == "boolean":
        return True
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return max(1.5, schema.get("minimum", 1.5))
    return None


def _string_example(schema: dict[str, Any], preferred: str) -> str:
    """``preferred``, or the first stock value that fits the string's ``pattern`` and ``maxLength``."""
    for value in (preferred, "https://example.com/", "LAP-0042", "1", "x", ""):
        fits = len(value) <= schema.get("maxLength", len(value)) and len(value) >= schema.get("minLength", 0)
        if fits and (schema.get("pattern") is None or re.search(schema["pattern"], value)):
            return value
    return preferred


def _examples_of(media: dict[str, Any], document: dict[str, Any], *, writing: bool) -> dict[str, Any]:
    schema = media.get("schema")
    if schema is None:
        return {}
    schema = _resolve(schema, document)
    alternatives = schema.get("anyOf")
    if alternatives and alternatives[-1] == _ref(ERROR_ENVELOPE):  # document_errors' "success or error" 200
        return {"success": {"value": example_of(alternatives[0], document, writing=writing)},
                "error (API_ERROR_STATUS=compat)": {
                    "summary": "A refused change, an unknown id or a validation error in the default mode",
                    "value": error_body("Asset does not exist.")}}
    return {"example": {"value": example_of(schema, document, writing=writing)}}


def attach_examples(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """``POSTPROCESSING_HOOKS`` entry, after :func:`document_errors`: examples for each operation's JSON request
    body and answers. Examples someone wrote on a view (``OpenApiExample``) are kept."""
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None and "examples" not in body:
                body["examples"] = _examples_of(body, result, writing=True)
            recorded = RECORDED_ANSWERS.get(operation.get("operationId"))
            ok = operation.get("responses", {}).get("200", {})
            if recorded is not None:  # a shape described in words or as a free-form object: a real answer shows it
                media = ok.setdefault("content", {}).setdefault("application/json", {})
                media["examples"] = {"recorded": {"summary": "A real answer (docs/quickstart.md)", "value": recorded}}
            for code, response in operation.get("responses", {}).items():
                media = response.get("content", {}).get("application/json")
                if media is None or "examples" in media:
                    continue
                if code == "429":
                    media["examples"] = {"example": {"value": {"message": TOO_MANY_REQUESTS}}}
                elif code in _ERROR_EXAMPLES:
                    media["examples"] = {"example": {"value": error_body(_ERROR_EXAMPLES[code])}}
                else:
                    media["examples"] = _examples_of(media, result, writing=False)
    return result
