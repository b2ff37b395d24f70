"""Password sign-in throttling with django-axes (settings ``LOGIN_FAILURE_LIMIT``, ``LOGIN_LOCKOUT_MINUTES``).

Axes counts failed passwords per username and client address (``AXES_LOCKOUT_PARAMETERS``) and refuses the pair
while it is locked out. Three things are ours:

- :class:`ThrottleBackend`: axes' backend, except that an ``authenticate()`` call without a request (a management
  command, a test's ``Client.login``) is not a sign-in from anywhere and passes through instead of failing.
- :func:`client_ip`: the address is the one the rate limiter and the action log use (``TRUSTED_PROXIES``), so a caller
  cannot pick another bucket by sending ``X-Forwarded-For``.
- :func:`lockout_response`: a page saying what happened and for how long, with axes' 429 status.

The API's bearer tokens never call ``authenticate()``: the throttle does not touch them.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

from accounts.password_reset import mail_available
from assetsvc.client_address import client_address
from assetsvc.conf import app_settings


class ThrottleBackend(AxesStandaloneBackend):
    """First of ``AUTHENTICATION_BACKENDS``: refuses a locked-out account and address before the password is checked."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request) -> str:
    """``AXES_CLIENT_IP_CALLABLE``: :func:`assetsvc.client_address.client_address`."""
    return client_address(request.META, app_settings.TRUSTED_PROXIES)


def lockout_minutes() -> int:
    return max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60)) if settings.AXES_COOLOFF_TIME else 0


PORTAL_PREFIX = "/account/"


def lockout_response(request, original_response=None, credentials=None):
    """``AXES_LOCKOUT_CALLABLE``: the lockout page (status 429), in the employees' portal's look for a sign-in at
    ``/account/`` (issue 32), else in the admin's."""
    if request.path.startswith(PORTAL_PREFIX):
        context = {"site_name": app_settings.SITE_NAME, "title": "Too many failed sign-ins", "nav": [],
                   "minutes": lockout_minutes(), "reset_available": mail_available()}
        response = render(request, "portal/lockout.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
        add_never_cache_headers(response)
        return response
    context = {"title": "Too many failed sign-ins", "site_header": app_settings.SITE_NAME,
               "site_title": app_settings.SITE_NAME, "minutes": lockout_minutes(),
               "failures": settings.AXES_FAILURE_LIMIT}
    return render(request, "admin/accounts/twofactor/lockout.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
