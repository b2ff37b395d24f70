"""The sign-in, callback and sign-out pages of single sign-on (``/oidc/...``; 404 while ``OIDC_ISSUER`` is empty).

mozilla-django-oidc's views, except that every failure ends on the admin's login page with a message instead of a
bare redirect or a 400: the provider unreachable, the provider's own error, a state that is not this browser's
(forged, replayed or expired), a nonce or signature that does not verify, a refused person. A person signed in at the
provider whose user may not use the admin (no ``admin`` right, e.g. just created) gets no session, only the message
that they have no rights yet.
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.contrib import auth, messages
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView, OIDCLogoutView

from accounts.permissions import may_use_admin_site
from accounts.sso import sso_enabled
from accounts.sso.discovery import ProviderUnavailableError, provider_config

logger = logging.getLogger(__name__)

UNAVAILABLE = "The single sign-on provider cannot be reached right now; try again later or sign in with a password."
NOT_VERIFIED = "The single sign-on answer could not be verified; please try again."
PROVIDER_ERROR = "The single sign-on provider did not sign you in ({error})."
NO_RIGHTS = ("You signed in as {username}, but this account has no rights to the admin yet. "
             "Ask an administrator to give you access.")
CREATED_NO_RIGHTS = ("An account was created for you ({username}), but it has no rights to the admin yet. "
                     "Ask an administrator to give you access.")


def admin_login_url() -> str:
    return reverse("admin:login")


class SSOEnabledMixin:
    def dispatch(self, request, *args, **kwargs):
        if not sso_enabled():
            raise Http404
        return super().dispatch(request, *args, **kwargs)


class SSOAuthenticateView(SSOEnabledMixin, OIDCAuthenticationRequestView):
    """``/oidc/authenticate/?next=...``: to the provider's authorization endpoint, with state, nonce and PKCE kept in
    the session."""

    def __init__(self, *args, **kwargs) -> None:  # the endpoint comes from discovery in ``get``
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)
        self.OIDC_RP_CLIENT_ID = self.get_settings("OIDC_RP_CLIENT_ID")

    def get(self, request):
        try:
            self.OIDC_OP_AUTH_ENDPOINT = provider_config().authorization_endpoint
        except ProviderUnavailableError as exc:
            logger.warning("single sign-on unavailable: %s", exc)
            messages.error(request, UNAVAILABLE)
            return HttpResponseRedirect(admin_login_url())
        return super().get(request)


class SSOCallbackView(SSOEnabledMixin, OIDCAuthenticationCallbackView):
    """``/oidc/callback/``: the redirect URI registered at the provider."""

    @property
    def failure_url(self) -> str:
        return admin_login_url()

    @property
    def success_url(self) -> str:
        return self.request.session.get("oidc_login_next") or reverse("admin:index")

    def get(self, request):
        error = request.GET.get("error")
        try:
            response = super().get(request)
        except SuspiciousOperation as exc:  # unknown state, nonce, signature, issuer, audience, subject
            logger.warning("single sign-on answer refused: %s", exc)
            return self._fail(NOT_VERIFIED)
        except ProviderUnavailableError as exc:
            logger.warning("single sign-on unavailable: %s", exc)
            return self._fail(UNAVAILABLE)
        except requests.RequestException as exc:
            logger.warning("single sign-on: provider call failed: %s", exc)
            return self._fail(UNAVAILABLE)
        if getattr(self, "_done", False):
            return response
        refusal = getattr(request, "sso_refusal", None)
        if refusal is not None:
            return self._fail(str(refusal))
        if error:
            return self._fail(PROVIDER_ERROR.format(error=str(error)[:100]))
        return self._fail(NOT_VERIFIED)

    def login_success(self):
        user = self.user
        if not may_use_admin_site(user):
            # No session for someone who cannot use it: the message says why, the login page stays.
            text = CREATED_NO_RIGHTS if getattr(self.request, "sso_created", False) else NO_RIGHTS
            self._done = True
            return self._fail(text.format(username=user.username))
        response = super().login_success()
        self.request.session["sso_signed_in"] = True
        self._done = True
        return response

    def _fail(self, text: str):
        if self.request.user.is_authenticated:  # whoever this browser was signed in as is not who came back
            auth.logout(self.request)
        messages.error(self.request, text)
        return HttpResponseRedirect(self.failure_url)


def provider_logout_url(request) -> str:
    """mozilla-django-oidc's ``OIDC_OP_LOGOUT_URL_METHOD``: the provider's end-session endpoint (OpenID Connect
    RP-Initiated Logout 1.0) with our client id and the admin's login page to come back to; the admin's login page
    itself when the provider has none or cannot be reached. No ID token is kept, so none is sent as a hint."""
    try:
        endpoint = provider_config().end_session_endpoint
    except ProviderUnavailableError:
        endpoint = ""
    back = request.build_absolute_uri(admin_login_url())
    if not endpoint:
        return back
    query = urlencode({"client_id": settings.OIDC_RP_CLIENT_ID, "post_logout_redirect_uri": back})
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"


class SSOLogoutView(SSOEnabledMixin, OIDCLogoutView):
    """``POST /oidc/logout/``: ends this session, then the provider's (when it offers an end-session endpoint)."""

    def post(self, request):
        was_sso = bool(request.session.get("sso_signed_in"))
        logout_url = provider_logout_url(request) if was_sso and request.user.is_authenticated else None
        auth.logout(request)
        return HttpResponseRedirect(logout_url or admin_login_url())
