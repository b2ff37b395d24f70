"""Base views. Every API view inherits :class:`ApiViewMixin` (input merging, envelopes, not-found messages);
views over company-scoped models inherit :class:`ScopedViewSetMixin`, which applies ``restrict(user)`` in
``get_queryset`` so no view can forget company separation (Ralph's guard refuses a scoped model without it)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Q, QuerySet
from django.http import Http404
from rest_framework import exceptions, viewsets
from rest_framework.filters import BaseFilterBackend
from rest_framework.response import Response
from rest_framework.views import APIView

from assetsvc.api.inputs import contains_nul, merged_input
from assetsvc.api.negotiation import AlwaysJSONNegotiation
from assetsvc.scoping import ScopedQuerySet

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
            if contains_nul(key) or contains_nul(value):
                raise exceptions.ValidationError({key.strip("\x00") or "query": ["NUL characters are not allowed."]})

    @cached_property
    def input(self) -> dict[str, Any]:
        """The request's input: body over query string (API-CONTRACT.md §1)."""
        data = merged_input(self.request)
        if "_body" in data:
            raise exceptions.ValidationError({"general": ["The request body must be a JSON object."]})
        return data

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


class ApiView(ApiViewMixin, APIView):
    """Base of single-purpose API views (tokens, profile)."""


def search_q(text: str, fields: list[str] | tuple[str, ...]) -> Q:
    """Case-insensitive substring match over ``fields``; terms separated by `` OR `` match any."""
    terms = [term.strip() for term in text.split(" OR ") if term.strip()]
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
        if key not in sort_fields:
            key = default
        fields = sort_fields.get(key, key)
        if isinstance(fields, str):
            fields = (fields,)
        default_order = getattr(view, "default_order", "desc")
        order = (request.query_params.get("order") or default_order).strip().lower()
        descending = order != "asc"
        ordering = []
        for field in fields:
            ordering.append(f"-{field}" if descending else field)
        ordering.append("-id" if descending else "id")
        return queryset.order_by(*ordering)


def _default_backends() -> list:
    from django_filters.rest_framework import DjangoFilterBackend

    return [DjangoFilterBackend, SearchFilter, SortFilter]


ApiViewSet.filter_backends = _default_backends()
