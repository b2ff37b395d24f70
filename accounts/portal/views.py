"""The portal's own pages: sign-in and sign-out (``/account/login/``, ``/account/logout/``); the two-factor pages are
:mod:`accounts.twofactor.views` in the portal's frame, the profile and tokens :mod:`accounts.portal.profile` and
:mod:`accounts.portal.tokens`.

Sign-in takes every active, non-deleted user (the admin's sign-in takes only staff), through the same
``authenticate()`` as the admin: the throttle first, then the password, the directory (LDAP) and single sign-on
backends the site has switched on. "Forgot your password?" leads to the admin's reset by mail (it serves every active
user with a password, staff or not) while mail is configured."""

from __future__ import annotations

from django.contrib.auth import logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from accounts.password_reset import mail_available
from accounts.sso import sso_enabled
from accounts.sso.views import provider_logout_url
from assetsvc.conf import app_settings


class PortalAuthenticationForm(AuthenticationForm):
    """Django's form (inactive users refused with its message), with the labels and autocomplete hints a phone's
    password manager needs."""

    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none",
                                                     "spellcheck": "false"})
        self.fields["password"].widget.attrs.update({"autocomplete": "current-password"})


class PortalLoginView(auth_views.LoginView):
    """``/account/login/``: the portal's sign-in page."""

    form_class = PortalAuthenticationForm
    template_name = "portal/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self):
        return reverse("portal:home")

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "site_name": app_settings.SITE_NAME, "title": "Sign in",
                "nav": [], "password_reset": mail_available()}

    def render_to_response(self, context, **kwargs):
        response = super().render_to_response(context, **kwargs)
        add_never_cache_headers(response)
        return response


portal_login = PortalLoginView.as_view()


@require_POST
def portal_logout(request):
    """``POST /account/logout/``: ends the session, back to the sign-in page; after a single sign-on, through the
    provider's sign-out first (as the admin's sign-out does)."""
    back = reverse("portal:login")
    if request.user.is_authenticated and request.session.get("sso_signed_in") and sso_enabled():
        back = provider_logout_url(request, back_to=back)
    logout(request)
    return HttpResponseRedirect(back)

