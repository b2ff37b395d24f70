"""Fallback answers for ``/api/v1`` paths no route matches, ``GET /version``, and JSON versions of Django's error
handlers."""

from __future__ import annotations

import sys

from django.views import defaults
from drf_spectacular.utils import extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from assetsvc.api.exceptions import ENDPOINT_NOT_FOUND, SERVER_ERROR, json_error
from assetsvc.api.middleware import is_api_request
from assetsvc.api.operation_docs import OperationText, register_operation_texts, register_tag_descriptions
from assetsvc.api.outages import DATABASE_UNAVAILABLE, is_database_outage
from assetsvc.api.viewsets import ApiView


class EndpointNotFoundView(ApiView):
    """Any method on an unknown ``/api/v1`` path: 404 envelope (after authentication, as Snipe-IT)."""

    permission_section = None
    schema = None  # not an endpoint

    def _not_found(self, request, *args, **kwargs):
        raise NotFound(ENDPOINT_NOT_FOUND)

    get = post = put = patch = delete = head = options = _not_found

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        if isinstance(exc, NotFound):
            response.status_code = 404  # an unknown endpoint is a real 404 in every error mode
        return response


#: The Snipe-IT release whose API this server answers as (routes, shapes, messages): what ``GET /version`` reports,
#: so clients that gate on Snipe-IT's version keep working (docs/decisions.md, issue 27).
SNIPEIT_COMPATIBLE_VERSION = "v8.1.4"


class VersionView(ApiView):
    """``GET /version``: Snipe-IT's bare ``{"version": ...}`` (any authenticated caller, as every ``/api/v1`` route)."""

    permission_section = None

    @extend_schema(operation_id="version", responses=inline_serializer(
        "VersionRecord", {"version": serializers.CharField()}))
    def get(self, request):
        return Response({"version": SNIPEIT_COMPATIBLE_VERSION})


def handler400(request, exception=None):
    if is_api_request(request):
        return json_error("Bad request.", 400)
    return defaults.bad_request(request, exception)


def handler403(request, exception=None):
    if is_api_request(request):
        return json_error("Insufficient permissions.", 403)
    return defaults.permission_denied(request, exception)


def handler404(request, exception=None):
    if is_api_request(request):
        return json_error(ENDPOINT_NOT_FOUND, 404)
    return defaults.page_not_found(request, exception)


def handler500(request):
    if is_api_request(request):
        # Raised outside a view (the rate limiter's token lookup, authentication): still the 503 of an outage.
        if is_database_outage(sys.exc_info()[1]):
            return json_error(DATABASE_UNAVAILABLE, 503)
        return json_error(SERVER_ERROR, 500)
    return defaults.server_error(request)


class SchemaView(SpectacularAPIView):
    """The OpenAPI document, public: the API's shape is no secret (Snipe-IT publishes its own), and the browsable
    docs below load it before the reader has entered a token. A bad token is still refused (401), as on every
    ``/api/v1`` route."""

    permission_section = None
    permission_classes = [AllowAny]


#: The docs pages may load and call only this server: ReDoc's footer would fetch its logo from the vendor's CDN, and
#: nothing else on the page should reach out either. Inline script and style are the pages' own (drf-spectacular's
#: templates); ``blob:`` is ReDoc's search worker.
DOCS_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; worker-src 'self' blob:; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)


class LocalOnlyPageMixin:
    """Adds :data:`DOCS_CONTENT_SECURITY_POLICY` to the page."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Content-Security-Policy"] = DOCS_CONTENT_SECURITY_POLICY
        return response


class SwaggerDocsView(LocalOnlyPageMixin, SpectacularSwaggerView):
    """``/api/docs``: Swagger UI from the local static files (drf-spectacular-sidecar, served by whitenoise), no
    outside network. "Authorize" takes a personal access token; "Try it out" calls this same server."""

    permission_section = None
    permission_classes = [AllowAny]
    authentication_classes: list = []  # a page, not an API call: a stale token must not hide it
    url_name = "schema"


class RedocDocsView(LocalOnlyPageMixin, SpectacularRedocView):
    """``/api/redoc``: ReDoc from the local static files; the template drops drf-spectacular's web-font links."""

    permission_section = None
    permission_classes = [AllowAny]
    authentication_classes: list = []
    url_name = "schema"
    template_name = "api_docs/redoc.html"


register_tag_descriptions({"version": "Which Snipe-IT release this server answers as."})
register_operation_texts({"version": OperationText(
    "Version", f"``{{\"version\": \"{SNIPEIT_COMPATIBLE_VERSION}\"}}``: the Snipe-IT release whose API this server "
    "answers as, so clients that check Snipe-IT's version keep working.")})
