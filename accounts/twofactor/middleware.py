"""The admin asks for the second factor right after the password, before anything else.

``django_otp.middleware.OTPMiddleware`` (before this one) gives ``request.user.is_verified()``: a code was given in
this session. On an admin page a signed-in person who is not verified is sent to:

- the code page, when they have an authenticator;
- the enrolment page, when the site setting ``two_factor`` requires one of them and they have none.

Everyone else (the setting ``optional`` and no authenticator) goes on exactly as before. The sign-in and sign-out
pages, the password reset and the two pages themselves are exempt.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.urls import reverse

from accounts.twofactor.services import has_two_factor, two_factor_required

ADMIN_PREFIX = "/admin/"
EXEMPT_PREFIXES = ("/admin/login/", "/admin/logout/", "/admin/two-factor/", "/admin/password_reset/",
                   "/admin/jsi18n/", "/admin/reset/")


class TwoFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        redirect = self._redirect(request)
        return redirect if redirect is not None else self.get_response(request)

    @staticmethod
    def _redirect(request):
        path = request.path_info
        if not path.startswith(ADMIN_PREFIX) or path.startswith(EXEMPT_PREFIXES):
            return None
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or user.is_verified():
            return None
        if has_two_factor(user):
            target = "two-factor-verify"
        elif two_factor_required(user):
            target = "two-factor"
        else:
            return None
        return HttpResponseRedirect(f"{reverse(target)}?{urlencode({'next': request.get_full_path()})}")
