"""Base views. Every API view inherits :class:`ApiViewMixin` (input merging, envelopes, not-found messages);
views over company-scoped models inherit :class:`ScopedViewSetMixin`, which applies ``restrict(user)`` in
``get_queryset`` so no view can forget company separation (Ralph's guard refuses a scoped model without it)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, cached_property
from typing import Any, ClassVar

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Q, QuerySet
from django.http import Http404
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.filters import BaseFilterBackend
from rest_framework.response import Response
from rest_framework.views import APIView

from assetsvc.api.fields import SchemaField
from assetsvc.api.inputs import (
    JSON_WITHOUT_CONTENT_TYPE,
    contains_nul,
    input_problems,
    json_without_content_type,
    merged_input,
    search_terms,
)
from assetsvc.api.negotiation import AlwaysJSONNegotiation
from assetsvc.registry import hook
from assetsvc.scoping import ScopedQuerySet

#: List parameters that are never an error (API-CONTRACT.md §4), NUL characters included (issue 25 item 16).
LENIENT_PARAMETERS = frozenset({"sort", "order", "search"})
HTTP_ACTIONS = {"GET": "view", "HEAD": "view", "OPTIONS": "view", "POST": "create", "PUT": "edit", "PATCH": "edit",
                "DELETE": "delete"}


def success(payload: Any = None, messages: Any = None, status: int = 200) -> Response:
    """The success envelope for writes and actions: ``{status, messages, payload}``."""
    return Response({"status": "success", "messages": messages, "payload": payload}, status=status)


class ApiViewMixin:
    """Shared behaviour of every ``/api/v1`` view."""

    content_negotiation_class = AlwaysJSONNegotiation
    #: Message of the not-found error for this resource (Snipe-IT's text, e.g. "Asset does not exist.").
    not_found_message = "Item not found."

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if any(contains_nul(value) for value in kwargs.values()):
            raise self.not_found()  # no tag, serial or id contains NUL (PostgreSQL would refuse the query)
        for key, value in request.query_params.lists():
            if key in LENIENT_PARAMETERS:
                continue  # a list's sort falls back and its search matches nothing (SortFilter, search_q)
            if contains_nul(key) or contains_nul(value):
                raise exceptions.ValidationError({key.strip("\x00") or "query": ["NUL characters are not allowed."]})

    @cached_property
    def input(self) -> dict[str, Any]:
        """The request's input: body over query string (API-CONTRACT.md §1)."""
        if json_without_content_type(self.request):
            raise exceptions.ValidationError({"general": [JSON_WITHOUT_CONTENT_TYPE]})
        if isinstance(self.request.data, dict | list) and (problems := input_problems(self.request.data)):
            raise exceptions.ValidationError(problems)
        data = merged_input(self.request)
        if "_body" in data:
            raise exceptions.ValidationError({"general": ["The request body must be a JSON object."]})
        return data

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if hasattr(response, "add_post_render_callback"):
            response.add_post_render_callback(self._forget_response)
        return response

    def _forget_response(self, response) -> None:
        """Once rendered, the view and the response let go of each other (issue 13: worker memory): DRF keeps the
        response as ``view.response`` and in its own renderer context, reference cycles that held the whole answer
        (a 500-row page) until a garbage collection. Now the answer is freed when the server has sent it."""
        self.response = None
        (getattr(response, "renderer_context", None) or {}).pop("response", None)

    def not_found(self, message: str | None = None) -> exceptions.NotFound:
        return exceptions.NotFound(message or self.not_found_message)

    def get_object(self):
        try:
            return super().get_object()
        except (exceptions.NotFound, Http404) as exc:
            raise self.not_found() from exc
        except (ValueError, TypeError, OverflowError) as exc:
            raise self.not_found() from exc


class ScopedViewSetMixin(ApiViewMixin):
    """Applies company separation to every queryset the view reads, with the action taken from the HTTP method."""

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()
        model = queryset.model
        has_company = any(f.name == "company" for f in model._meta.get_fields())
        if not isinstance(queryset, ScopedQuerySet):
            if has_company and not getattr(self, "unscoped_company_model", False):
                raise ImproperlyConfigured(f"{model.__name__} has a company but no ScopedQuerySet")
            restrict = getattr(queryset, "restrict", None)
            return restrict(self.request.user) if restrict else queryset
        return queryset.restrict(self.request.user, HTTP_ACTIONS.get(self.request.method, "view"))


class ApiViewSet(ScopedViewSetMixin, viewsets.GenericViewSet):
    """Base of resource viewsets: declare ``queryset``, ``serializer_class``, ``permission_section``,
    ``sort_fields`` and (optionally) ``search_fields`` / ``filterset_class``."""

    filter_backends: list = []  # set below, after the backends are defined


def item_service(function: Callable[..., Any], item_keyword: str) -> Callable[..., Any]:
    """Declare a domain service on a viewset: ``delete_service = item_service(status_label_delete, "label")`` is
    called as ``(item=obj, actor=user)`` and passes the item under the service's own keyword."""

    def call(*, item, actor, **kwargs):
        return function(**{item_keyword: item}, actor=actor, **kwargs)

    call.__name__ = getattr(function, "__name__", "service")
    return staticmethod(call)


SELECTLIST_PER_PAGE = 50
SELECTLIST_SCHEMA = {
    "type": "object",
    "properties": {
        "results": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "text": {"type": "string"}, "image": {"type": "string", "nullable": True}}}},
        "pagination": {"type": "object", "properties": {"more": {"type": "boolean"}, "per_page": {"type": "integer"}}},
        "total_count": {"type": "integer"},
        "page": {"type": "integer"},
        "page_count": {"type": "integer"},
    },
}


def success_envelope(record: type[serializers.BaseSerializer] | None) -> type[serializers.Serializer]:
    """The schema of :func:`success`'s answer: ``{status, messages, payload}`` with ``record`` as the payload (null
    when ``record`` is None). One class per record, so each envelope is one component (``<Record>Success``)."""
    name = f"{record.__name__.removesuffix('Serializer') if record else 'Empty'}SuccessSerializer"
    if name not in _ENVELOPES:
        fields = {  # in the answer's order (DRF orders declared fields by creation)
            "status": SchemaField({"type": "string", "example": "success"}),
            "messages": SchemaField({"type": "string"}, allow_null=True),
            "payload": (record(read_only=True) if record is not None
                        else SchemaField({"type": "object", "description": "Always null."}, allow_null=True)),
        }
        _ENVELOPES[name] = type(name, (serializers.Serializer,), {
            "__module__": __name__, "__doc__": "Snipe-IT's success envelope.", **fields,
        })
    return _ENVELOPES[name]


_ENVELOPES: dict[str, type[serializers.Serializer]] = {}


@cache
def with_flat_keys(record: type[serializers.Serializer], keys: tuple[str, ...]) -> type[serializers.Serializer]:
    """The record of a create/update answer: ``record`` plus each foreign key of ``keys`` flat, as ``<key>_id``
    (API-CONTRACT.md §3). The views answer with it and the schema describes it."""
    if not keys:
        return record
    attrs: dict[str, Any] = {f"{key}_id": serializers.IntegerField(read_only=True, allow_null=True) for key in keys}
    meta = getattr(record, "Meta", None)
    if meta is not None and getattr(meta, "fields", None) is not None:
        attrs["Meta"] = type("Meta", (meta,), {"fields": [*meta.fields, *attrs]})
    name = f"{record.__name__.removesuffix('Serializer')}WriteRecordSerializer"
    return type(name, (record,), {"__module__": record.__module__, "__doc__": record.__doc__, **attrs})


class ResourceSchema(AutoSchema):
    """Writes are validated by the resource's write serializer (``write_serializer_class``); the OpenAPI request body
    says so. Responses are the read record (``serializer_class``), the same serializer the views answer with: bare
    for reads, ``{total, rows}`` for lists, and in the success envelope for create, update and restore (with the
    view's ``flat_keys``); a delete answers the envelope with a null payload."""

    record_actions = frozenset({"create", "update", "partial_update", "restore"})

    def get_request_serializer(self):
        if getattr(self.view, "action", None) in ("create", "update", "partial_update"):
            return self.view.write_serializer_class()
        return super().get_request_serializer()

    def get_response_serializers(self):
        action_name = getattr(self.view, "action", None)
        if action_name in self.record_actions:
            record = with_flat_keys(self.view.serializer_class, tuple(getattr(self.view, "flat_keys", ())))
            return {200: success_envelope(record)}
        if action_name == "destroy":
            return {200: success_envelope(None)}
        return super().get_response_serializers()


#: Snipe-IT's ``view.selectlists`` gate: anyone who fills in forms that pick items (reference §7.2).
SELECTLIST_KEYS = (
    "assets.create", "assets.edit", "assets.checkout", "assets.checkin", "assets.audit", "licenses.create",
    "licenses.edit", "components.create", "components.edit", "consumables.create", "consumables.edit",
    "accessories.create", "accessories.edit", "users.create", "users.edit", "reports.view",
)


class SelectListMixin:
    """``GET <resource>/selectlist`` (reference §2.1): ``{results: [{id, text, image}], pagination, total_count, page,
    page_count}``, 50 a page, through ``get_queryset()`` (so scoped like every read). Opened by ``<section>.view`` or
    one of ``selectlist_keys``. A viewset routed by its own URL conf maps ``selectlist`` before its detail route."""

    #: Besides ``<section>.view``, keys that open the select list (Snipe-IT's ``view.selectlists`` gate).
    selectlist_keys: ClassVar[tuple[str, ...]] = ()
    selectlist_search_fields: ClassVar[tuple[str, ...]] = ("name",)
    selectlist_ordering: ClassVar[tuple[str, ...]] = ("name", "id")

    def check_selectlist_access(self) -> None:
        user = self.request.user
        checker = hook("permission_checker")
        if not any(checker(user, key) for key in (f"{self.permission_section}.view", *self.selectlist_keys)):
            raise exceptions.PermissionDenied()

    def selectlist_queryset(self) -> QuerySet:
        return self.get_queryset().order_by(*self.selectlist_ordering)

    def selectlist_text(self, obj) -> str:
        return obj.name

    def selectlist_answer(self, queryset: QuerySet) -> Response:
        search = self.request.query_params.get("search")
        if search and search.strip():
            queryset = queryset.filter(search_q(search.strip()[:255], self.selectlist_search_fields))
        try:
            page = max(1, int(self.request.query_params.get("page") or 1))
        except (TypeError, ValueError):
            page = 1
        page = min(page, 2**31)
        total = queryset.count()
        start = (page - 1) * SELECTLIST_PER_PAGE
        rows = list(queryset[start:start + SELECTLIST_PER_PAGE]) if start < total else []
        last_page = max(1, math.ceil(total / SELECTLIST_PER_PAGE))
        return Response({
            "results": [{"id": obj.pk, "text": self.selectlist_text(obj), "image": None} for obj in rows],
            "pagination": {"more": page < last_page, "per_page": SELECTLIST_PER_PAGE},
            "total_count": total,
            "page": page,
            "page_count": last_page,
        })

    @extend_schema(responses={200: SELECTLIST_SCHEMA})
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def selectlist(self, request):
        self.check_selectlist_access()
        return self.selectlist_answer(self.selectlist_queryset())


class ResourceViewSet(SelectListMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    """One viewset shape for every resource, scoped by company or not.

    A resource declares: ``queryset`` (its model), ``serializer_class`` (the record, for answers and the schema),
    ``write_serializer_class`` (input), ``permission_section``, ``messages``, ``not_found_message``, ``sort_fields``
    / ``search_fields`` / ``filterset_class``, ``annotate()`` for counts, and its services: ``create_service(model=,
    data=, actor=)``, ``update_service(item=, data=, actor=)``, ``delete_service(item=, actor=)`` and, when
    ``soft_deletes``, ``restore_service(item=, actor=)`` (:func:`item_service` adapts a service's keyword).

    Every read goes through :meth:`get_queryset` -- list, detail, select list, restore and the re-read after a
    write -- so company separation (``ScopedViewSetMixin``) covers them all: another company's row is "not found"
    everywhere, also for a select list or a restore.
    """

    write_serializer_class: ClassVar[type]
    messages: ClassVar[dict[str, str]]
    #: Foreign keys echoed flat in create/update answers (API-CONTRACT.md §3).
    flat_keys: ClassVar[tuple[str, ...]] = ()
    soft_deletes: ClassVar[bool] = False
    #: Actions whose reads also find soft-deleted rows.
    with_deleted_actions: ClassVar[frozenset[str]] = frozenset({"restore"})
    #: Actions that read rows without the record's annotations (select lists).
    plain_actions: ClassVar[frozenset[str]] = frozenset({"selectlist"})
    #: Not-found text of a restore (Snipe-IT words it differently from a read).
    restore_not_found_message: ClassVar[str | None] = None
    action_permissions: ClassVar[dict[str, str | None]] = {"selectlist": None, "restore": "delete"}
    create_service: ClassVar[Callable[..., Any]]
    update_service: ClassVar[Callable[..., Any]]
    delete_service: ClassVar[Callable[..., Any]]
    restore_service: ClassVar[Callable[..., Any] | None] = None
    schema = ResourceSchema()

    # --- reads ----------------------------------------------------------------------------------------------------

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return queryset

    def list_deleted(self) -> bool:
        """Whether a list asks for soft-deleted rows instead of live ones."""
        return False

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()
        if self.action not in self.plain_actions:
            queryset = self.annotate(queryset.select_related("created_by"))
        if self.soft_deletes:
            if self.action == "list":
                queryset = queryset.filter(deleted_at__isnull=not self.list_deleted())
            elif self.action not in self.with_deleted_actions:
                queryset = queryset.filter(deleted_at__isnull=True)
        return queryset

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        # Query-string filters are for lists only: on writes the query string is input (API-CONTRACT.md §1).
        if self.action != "list":
            return queryset
        return super().filter_queryset(queryset)

    @cached_property
    def abilities(self) -> dict[str, bool]:
        """The caller's ``{view, create, edit, delete}`` on this resource, evaluated once per request."""
        user = self.request.user
        checker = hook("permission_checker")
        verbs = ("view", "create", "edit", "delete")
        return {verb: checker(user, f"{self.permission_section}.{verb}") for verb in verbs}

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "can": self.abilities}

    def record(self, obj) -> dict[str, Any]:
        """The full record of a row just written, re-read through :meth:`get_queryset` (with its counts), plus the
        flat foreign keys."""
        fresh = self.get_queryset().get(pk=obj.pk)
        return dict(self.get_write_record_serializer(fresh).data)

    def get_write_record_serializer(self, instance) -> serializers.Serializer:
        """The record with the flat foreign keys (:func:`with_flat_keys`), for create, update and restore
        answers."""
        record = with_flat_keys(self.get_serializer_class(), tuple(self.flat_keys))
        return record(instance, context=self.get_serializer_context())

    # --- writes ---------------------------------------------------------------------------------------------------

    def write_input(self) -> dict[str, Any]:
        """The input of a create or update (a resource drops keys the caller may not write, e.g. rule 7's
        ``company_id``)."""
        return self.input

    def validated_input(self, instance=None):
        serializer = self.write_serializer_class(instance, data=self.write_input(), partial=instance is not None,
                                                 context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def create(self, request, *args, **kwargs):
        obj = self.create_service(model=self.queryset.model, data=self.validated_input(), actor=request.user)
        return success(self.record(obj), self.messages["create"])

    def update(self, request, *args, **kwargs):
        """``PUT`` and ``PATCH`` are both partial (API-CONTRACT.md §1)."""
        instance = self.get_object()
        obj = self.update_service(item=instance, data=self.validated_input(instance), actor=request.user)
        return success(self.record(obj), self.messages["update"])

    def partial_update(self, request, *args, **kwargs):
        return self.update(request, *args, **kwargs)

    def destroy(self, request, *args, **kwargs):
        self.delete_service(item=self.get_object(), actor=request.user)
        return success(None, self.messages["delete"])

    def restore_item(self, request) -> Response:
        """``POST <resource>/{id}/restore`` for soft-deleting resources (route it with an ``@action``)."""
        try:
            item = self.get_object()
        except exceptions.NotFound as exc:
            raise self.not_found(self.restore_not_found_message) from exc
        item = self.restore_service(item=item, actor=self.request.user)
        return success(self.record(item), self.messages["restore"])

class ApiView(ApiViewMixin, APIView):
    """Base of single-purpose API views (tokens, profile)."""


def search_q(text: str, fields: list[str] | tuple[str, ...]) -> Q:
    """Case-insensitive substring match over ``fields``; terms separated by `` OR `` match any. A NUL matches nothing
    (no text holds one, and PostgreSQL cannot compare it)."""
    terms = search_terms(text)
    if "\x00" in text:
        return Q(pk__in=[])
    query = Q()
    for term in terms:
        for field in fields:
            query |= Q(**{f"{field}__icontains": term})
    return query


class SearchFilter(BaseFilterBackend):
    """``?search=``: the view's ``search_fields``."""

    def filter_queryset(self, request, queryset, view):
        text = request.query_params.get("search")
        fields = getattr(view, "search_fields", None)
        if not text or not text.strip() or not fields:
            return queryset
        return queryset.filter(search_q(text.strip()[:255], fields))


class SortFilter(BaseFilterBackend):
    """``?sort=&order=``: ``sort`` outside ``view.sort_fields`` falls back to ``view.default_sort``
    (``created_at``); ``order`` is ``asc`` or else ``desc``; ``id`` always breaks ties."""

    def filter_queryset(self, request, queryset, view):
        sort_fields: dict[str, str | tuple[str, ...]] = getattr(view, "sort_fields", {}) or {}
        default = getattr(view, "default_sort", "created_at")
        key = request.query_params.get("sort", default)
        if "\x00" in key:  # never a column: the default, as any sort outside the whitelist
            key = default
        default_order = getattr(view, "default_order", "desc")
        order = (request.query_params.get("order") or default_order).strip().lower()
        descending = order != "asc"
        if key not in sort_fields:
            # ``view.extra_sort(queryset, key, descending)``: a view's own sort keys (the assets' custom field
            # columns): the queryset ordered, with its tie-breaker, or None for "unknown"
            extra = getattr(view, "extra_sort", None)
            ordered = extra(queryset, key, descending) if extra is not None and key else None
            if ordered is not None:
                return ordered
            key = default
        fields = sort_fields.get(key, key)
        if isinstance(fields, str):
            fields = (fields,)
        ordering = []
        for field in fields:
            ordering.append(f"-{field}" if descending else field)
        ordering.append("-id" if descending else "id")
        return queryset.order_by(*ordering)


def _default_backends() -> list:
    from django_filters.rest_framework import DjangoFilterBackend

    return [DjangoFilterBackend, SearchFilter, SortFilter]


ApiViewSet.filter_backends = _default_backends()
