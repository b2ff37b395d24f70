"""What ``/api/docs`` tells an API consumer about each operation: a summary, a description (what it does, who may
call it, the errors it gives) and a described tag per resource (issue 27).

Docstrings stay for developers; drf-spectacular would otherwise show them to consumers. The
:func:`describe_operations` hook replaces each operation's description with text written for the reader:

- the standard actions (list, create, retrieve, update, partial update, destroy, select list, restore, history) get
  a text built from the resource's name, so a new resource is documented the day it is routed;
- every other action is written by hand, by the app that routes it, with :func:`register_operation_texts`
  (operation id → :class:`OperationText`); a hand-written text also overrides a standard one;
- the caller's permission is read from the view itself (``permission_section`` and ``action_permissions``, the
  same lookup the permission check makes), so the text cannot drift from what is enforced;
- the error answers are listed from the operation's own responses.

``tests/api/test_api_docs.py`` fails when an operation has no summary or a consumer-facing text names a file of the
repository.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from assetsvc.api.permissions import required_permission


@dataclass(frozen=True)
class OperationText:
    summary: str
    #: What it does, in the reader's terms; the permission and error sentences are added after it.
    description: str = ""
    #: Who may call it, when the view's permission key does not say it (super users only, the caller's own data).
    access: str = ""
    #: The tags to group it under, when its path does not name the resource (``/{object_type}/{id}/files``).
    tags: tuple[str, ...] = ()


_TEXTS: dict[str, OperationText] = {}
#: Tag → description of the resource (Swagger UI shows it above the tag's operations).
_TAGS: dict[str, str] = {}


def register_operation_texts(texts: Mapping[str, OperationText | tuple[str, str] | tuple[str, str, str]]) -> None:
    """Hand-written texts, by operation id; called at import time by the module that routes the operations."""
    for operation_id, text in texts.items():
        _TEXTS[operation_id] = text if isinstance(text, OperationText) else OperationText(*text)


def register_tag_descriptions(tags: Mapping[str, str]) -> None:
    _TAGS.update(tags)


# --- the standard actions -------------------------------------------------------------------------------------------

_STANDARD: dict[str, tuple[str, str]] = {
    "list": ("List {plural}",
             "Answers a page of {plural}: ``total`` (how many match) and ``rows``. The query parameters below filter "
             "it; ``search`` looks in the usual text fields, ``sort`` and ``order`` order it, ``offset`` and "
             "``limit`` page through it."),
    "create": ("Create {a_singular}",
               "Creates {a_singular} from the fields of the body and answers ``status: success`` with the new "
               "record in ``payload``. An invalid field answers the error envelope with ``messages`` per field, and "
               "nothing is written."),
    "retrieve": ("Get {a_singular}",
                 "Answers the {singular} with this id. An id that does not exist, or that you may not see, answers "
                 "the same \"not found\" error envelope."),
    "update": ("Replace fields of {a_singular} (PUT)",
               "Changes the fields given in the body and answers the updated record in ``payload``. As in "
               "Snipe-IT, fields left out keep their values, so PUT and PATCH behave alike. An invalid field "
               "answers the error envelope with ``messages`` per field, and nothing is written."),
    "partial_update": ("Update {a_singular}",
                       "Changes the fields given in the body and answers the updated record in ``payload``. An "
                       "invalid field answers the error envelope with ``messages`` per field, and nothing is "
                       "written."),
    "destroy": ("Delete {a_singular}",
                "Deletes the {singular} and answers ``status: success``. A {singular} that is still in use (see the "
                "message) is refused with the error envelope and stays as it was."),
    "selectlist": ("Search {plural} for a picker",
                   "The short list that select boxes use: ``results`` (``id``, ``text``, ``image``) and "
                   "``pagination.more``. ``search`` narrows it; ``page`` pages through it."),
    "restore": ("Restore a deleted {singular}",
                "Brings back a soft-deleted {singular} and answers it in ``payload``. A {singular} that is not "
                "deleted, or does not exist, answers the error envelope."),
    "history": ("History of {a_singular}",
                "The {singular}'s entries of the activity log, newest first: what was done, by whom, when, and "
                "what changed."),
}

def _article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _nouns(view_class: type) -> tuple[str, str]:
    queryset = getattr(view_class, "queryset", None)
    model = getattr(queryset, "model", None)
    if model is None:
        return "record", "records"
    return str(model._meta.verbose_name), str(model._meta.verbose_name_plural)


def _required_key(view_class: type, initkwargs: dict[str, Any], action: str | None, method: str) -> str | None:
    """The permission key the request needs, asked of the view exactly as the permission check asks."""
    view = view_class(**initkwargs)
    view.action = action
    try:
        return required_permission(SimpleNamespace(method=method.upper()), view)
    except ImproperlyConfigured:
        return None


def _access_sentence(view_class: type, key: str | None, text: OperationText | None) -> str:
    if text is not None and text.access:
        return text.access
    for permission in getattr(view_class, "permission_classes", ()):
        if getattr(permission, "consumer_access", ""):
            return permission.consumer_access
    if key:
        return (f"Needs the ``{key}`` permission (super users and administrators have every item permission). "
                "With company separation on, only your company's records are visible and usable.")
    return "Any signed-in user with a valid token may call it."


def _errors_sentence(path: str, method: str, responses: dict[str, Any]) -> str:
    """The errors a consumer meets, in Snipe-IT's default mode and with ``API_ERROR_STATUS=http``."""
    compat, http = [], []
    if "{" in path:
        compat.append("a record that does not exist or is not yours to see (\"not found\")")
        http.append("404")
    if method != "get":
        compat.append("invalid input, with ``messages`` per field when a field is at fault")
        http.append("422")
        compat.append("a record in a state that forbids the change")
        http.append("409")
    parts = ["401 without a valid token, 403 without the right to call it"]
    if compat:
        parts.append("HTTP 200 with ``status: error`` (as Snipe-IT) for " + "; ".join(compat)
                     + f" -- or {', '.join(http)} with ``API_ERROR_STATUS=http``")
    if "429" in responses:
        parts.append("429 when the rate limit is reached")
    return "Errors: " + "; ".join(parts) + "."


def _normal(path: str) -> str:
    """A path as the schema and the router both name it: no trailing slash, ``{pk}`` as ``{id}`` (drf-spectacular's
    ``COERCE_PATH_PK``)."""
    return (path.rstrip("/") or path).replace("{pk}", "{id}")


def _endpoint_index(generator: Any) -> dict[tuple[str, str], tuple[type, dict[str, Any], str | None]]:
    index = {}
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or ():
        view_class = getattr(callback, "cls", None)
        if view_class is None:
            continue
        actions = getattr(callback, "actions", None) or {}
        index[(_normal(path), method.lower())] = (
            view_class, dict(getattr(callback, "initkwargs", None) or {}), actions.get(method.lower()))
    return index


#: What a consumer-facing text must not name: files of the repository, internal section marks, issue numbers.
INTERNAL_REFERENCE = re.compile(
    r"[\w/-]+\.(?:py|md|php|txt|html)\b|\bdocs/|API-CONTRACT|STYLE\b|reference\s§|§\s?\d|\bissue \d+")
_PARENTHESIZED_REFERENCE = re.compile(r"\s*\([^()]*(?:[\w/-]+\.(?:py|md|php|txt|html)\b|§|\bissue \d+)[^()]*\)")


def scrub(text: str) -> str:
    """A description without references to the repository: parenthesized references are dropped, and so is any
    sentence that still names a file."""
    text = _PARENTHESIZED_REFERENCE.sub("", text)
    if not INTERNAL_REFERENCE.search(text):
        return text
    sentences = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(sentence for sentence in sentences if not INTERNAL_REFERENCE.search(sentence)).strip()


def _scrub_tree(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in {"description", "summary"} and isinstance(value, str):
                node[key] = scrub(value)
            else:
                _scrub_tree(value)
    elif isinstance(node, list):
        for value in node:
            _scrub_tree(value)


def describe_operations(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular ``POSTPROCESSING_HOOKS`` entry (runs after :func:`assetsvc.api.schema.document_errors`, so
    the error answers are known): a summary and a consumer-facing description on every operation, a description
    on every tag, and no reference to the repository anywhere in the document."""
    endpoints = _endpoint_index(generator)
    tags: dict[str, str] = {}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            view_class, initkwargs, action = endpoints.get((_normal(path), method), (None, {}, None))
            text = _TEXTS.get(operation.get("operationId", ""))
            singular, plural = _nouns(view_class) if view_class else ("record", "records")
            words = {"singular": singular, "plural": plural, "a_singular": _article(singular)}
            if text is None and action in _STANDARD:
                summary, body = _STANDARD[action]
                text = OperationText(summary.format(**words), body.format(**words))
            if text is None:
                operation.pop("summary", None)
                operation["description"] = ""
                continue
            key = _required_key(view_class, initkwargs, action, method) if view_class else None
            operation["summary"] = text.summary
            if text.tags:
                operation["tags"] = list(text.tags)
            operation["description"] = "\n\n".join(part for part in (
                text.description, _access_sentence(view_class, key, text),
                _errors_sentence(path, method, operation.get("responses", {}))) if part)
            for tag in operation.get("tags", ()):
                tags.setdefault(tag, _TAGS.get(tag) or f"{plural[:1].upper()}{plural[1:]}.")
    for tag, description in _TAGS.items():
        tags.setdefault(tag, description)
    result["tags"] = [{"name": name, "description": tags[name]} for name in sorted(tags)]
    for section in ("paths", "components"):
        _scrub_tree(result.get(section, {}))
    return result
