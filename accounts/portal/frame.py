"""What every employee page shares: the sign-in guard and the frame (site name, navigation, title, messages)."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers

from accounts.portal.pages import nav
from assetsvc.conf import app_settings

#: The largest id a database key holds: an address with a larger one names nothing (answered "not found" before any
#: query, which would overflow the column's type on PostgreSQL).
MAX_ID = 2**63 - 1


def portal_login_required(view):
    """Only a signed-in, active person: anyone else goes to the portal's sign-in page and comes back after it.
    (Django's session check already turns a deactivated or deleted user into an anonymous one on the next request.)
    """

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            query = urlencode({"next": request.get_full_path()})
            return HttpResponseRedirect(f"{reverse('portal:login')}?{query}")
        return view(request, *args, **kwargs)

    return guarded


def portal_render(request: HttpRequest, template: str, *, page: str, title: str, status: int = 200,
                  **context) -> HttpResponse:
    """``template`` in the portal's frame. ``page`` is the URL name of the navigation entry to mark as current.
    Every portal answer is private to the person: never cached, by the browser or anything between."""
    base = {"site_name": app_settings.SITE_NAME, "title": title, "nav": nav(page, request.user)
            if request.user.is_authenticated else [], "page": page}
    response = render(request, template, {**base, **context}, status=status)
    add_never_cache_headers(response)
    response["Cache-Control"] += ", private"
    return response
