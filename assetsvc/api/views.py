"""Fallback answers for ``/api/v1`` paths no route matches, and JSON versions of Django's error handlers."""

from __future__ import annotations

import sys

from django.views import defaults
from drf_spectacular.views import SpectacularAPIView
from rest_framework.exceptions import NotFound

from assetsvc.api.exceptions import ENDPOINT_NOT_FOUND, SERVER_ERROR, json_error
from assetsvc.api.middleware import is_api_request
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
    """The OpenAPI document, for any authenticated caller."""

    permission_section = None
