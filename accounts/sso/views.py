"""The sign-in, callback and sign-out pages of single sign-on (``/oidc/...``; 404 while ``OIDC_ISSUER`` is empty).

mozilla-django-oidc's views, except that every failure ends on the admin's login page with a message instead of a
bare redirect or a 400: the provider unreachable, the provider's own error, a state that is not this browser's
(forged, replayed or expired), a nonce or signature that does not verify, a refused person. A person signed in at the
provider whose user may not use the admin (no ``admin`` right, e.g. just created) gets no session, only the message
that they have no rights yet.

The employees' portal (issue 32) uses the same pages: when the ``next`` page kept in the session is a portal page
(``/account/...``), any active user gets a session (the portal is for everyone; no admin right is asked) and every
failure ends on the portal's sign-in page instead of the admin's.
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


PORTAL_PREFIX = "/account/"


def admin_login_url() -> str:
    return reverse("admin:login")


def is_portal_url(url: str | None) -> bool:
    """``url`` (a ``next`` already checked as same-site) is a page of the employees' portal."""
    return bool(url) and str(url).startswith(PORTAL_PREFIX)


def login_url_for(next_url: str | None) -> str:
    """The sign-in page a person coming from ``next_url`` goes back to: the portal's or the admin's."""
    return reverse("portal:login") if is_portal_url(next_url) else admin_login_url()


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
            return HttpResponseRedirect(login_url_for(request.GET.get("next")))
        return super().get(request)


class SSOCallbackView(SSOEnabledMixin, OIDCAuthenticationCallbackView):
    """``/oidc/callback/``: the redirect URI registered at the provider."""

    #: The sign-in started on the portal's page: read in ``get`` before a failure's logout empties the session.
    for_portal = False

    @property
    def failure_url(self) -> str:
        return reverse("portal:login") if self.for_portal else admin_login_url()

    @property
    def success_url(self) -> str:
        return self.request.session.get("oidc_login_next") or reverse("admin:index")

    def get(self, request):
        error = request.GET.get("error")
        self.for_portal = is_portal_url(request.session.get("oidc_login_next"))
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
        if not self.for_portal and not may_use_admin_site(user):
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


def provider_logout_url(request, back_to: str = "") -> str:
    """mozilla-django-oidc's ``OIDC_OP_LOGOUT_URL_METHOD``: the provider's end-session endpoint (OpenID Connect
    RP-Initiated Logout 1.0) with our client id and the admin's login page (or ``back_to``, a path: the portal's) to
    come back to; that page itself when the provider has none or cannot be reached. No ID token is kept, so none is
    sent as a hint."""
    try:
        endpoint = provider_config().end_session_endpoint
    except ProviderUnavailableError:
        endpoint = ""
    back = request.build_absolute_uri(back_to or admin_login_url())
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
