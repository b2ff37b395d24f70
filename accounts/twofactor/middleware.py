"""The admin and the employees' portal ask for the second factor right after the password, before anything else.

``django_otp.middleware.OTPMiddleware`` (before this one) gives ``request.user.is_verified()``: a code was given in
this session. On an admin page (or a portal page, ``/account/``, to the portal's own two-factor pages: issue 32) a
signed-in person who is not verified is sent to:

- the code page, when they have an authenticator;
- the enrolment page, when the site setting ``two_factor`` requires one of them and they have none.

Everyone else (the setting ``optional`` and no authenticator) goes on exactly as before. The sign-in and sign-out
pages, the password reset and the two pages themselves are exempt. Each area sends to its own pages: a staff
member verified nowhere who signed in at ``/account/`` is still stopped at the admin's door.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.urls import reverse

from accounts.twofactor.services import has_two_factor, two_factor_required

#: Guarded prefix, the URL names of its code and enrolment pages, and the paths under it that stay open.
AREAS = (
    ("/admin/", "two-factor-verify", "two-factor",
     ("/admin/login/", "/admin/logout/", "/admin/two-factor/", "/admin/password_reset/", "/admin/jsi18n/",
      "/admin/reset/")),
    ("/account/", "portal:two-factor-verify", "portal:two-factor",
     ("/account/login/", "/account/logout/", "/account/two-factor/")),
)


class TwoFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        redirect = self._redirect(request)
        return redirect if redirect is not None else self.get_response(request)

    @staticmethod
    def _redirect(request):
        path = request.path_info
        area = next((area for area in AREAS if path.startswith(area[0])), None)
        if area is None or path.startswith(area[3]):
            return None
        _prefix, verify_page, enrol_page, _exempt = area
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or user.is_verified():
            return None
        if has_two_factor(user):
            target = verify_page
        elif two_factor_required(user):
            target = enrol_page
        else:
            return None
        return HttpResponseRedirect(f"{reverse(target)}?{urlencode({'next': request.get_full_path()})}")
