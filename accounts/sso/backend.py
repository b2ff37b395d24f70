"""The authentication backend of single sign-on (in ``AUTHENTICATION_BACKENDS`` only while ``OIDC_ISSUER`` is set).

mozilla-django-oidc's backend, with what it leaves out:

- endpoints from discovery at sign-in time (its own reads them from settings in ``__init__``, which Django runs for
  every password sign-in too);
- it acts only when called by the callback view (a ``nonce`` argument), never for a password form;
- the ID token's ``iss`` must be the issuer and ``aud`` must hold our client id (the library skips the audience);
- the claims are the ID token's, overlaid by the user info endpoint's when the provider has one (Core §5.3.2: same
  ``sub`` or refused);
- the token endpoint gets the client's credentials by HTTP Basic (RFC 6749 §2.3.1, form-encoded) when the provider
  offers it, else in the body;
- who the claims are is ``accounts.sso.services``; a refusal is left on the request for the view's message.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote_plus

import requests
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.sso import sso_enabled
from accounts.sso.discovery import provider_config, tls_verify
from accounts.sso.services import SSORefusedError, sso_user_for_claims

logger = logging.getLogger(__name__)


class SSOBackend(OIDCAuthenticationBackend):
    def __init__(self, *args, **kwargs) -> None:  # noqa: D107 - no settings read here (see the module docstring)
        self.UserModel = get_user_model()
        self.provider = None

    def user_can_authenticate(self, user) -> bool:
        # Checked by ``get_user`` on every request of the session: a deactivated or deleted user is out at once.
        return super().user_can_authenticate(user) and user.deleted_at is None

    def authenticate(self, request, **kwargs):
        if request is None or "nonce" not in kwargs or "password" in kwargs or not sso_enabled():
            return None
        self.provider = provider_config()  # ProviderUnavailableError: the view says so
        self.OIDC_OP_TOKEN_ENDPOINT = self.provider.token_endpoint
        self.OIDC_OP_USER_ENDPOINT = self.provider.userinfo_endpoint
        self.OIDC_OP_JWKS_ENDPOINT = self.provider.jwks_uri
        self.OIDC_RP_CLIENT_ID = self.get_settings("OIDC_RP_CLIENT_ID")
        self.OIDC_RP_CLIENT_SECRET = self.get_settings("OIDC_RP_CLIENT_SECRET")
        self.OIDC_RP_SIGN_ALGO = self.get_settings("OIDC_RP_SIGN_ALGO", "RS256")
        self.OIDC_RP_IDP_SIGN_KEY = None
        return super().authenticate(request, **kwargs)

    def get_token(self, payload: dict[str, Any]) -> dict[str, Any]:
        auth = None
        if "client_secret_basic" in self.provider.token_auth_methods:
            payload = dict(payload)
            auth = (quote_plus(payload["client_id"]), quote_plus(payload.pop("client_secret")))
        response = requests.post(self.OIDC_OP_TOKEN_ENDPOINT, data=payload, auth=auth, verify=tls_verify(),
                                 timeout=self.get_settings("OIDC_TIMEOUT", 10))
        if response.status_code != 200:
            # The body may echo what was sent; the status and the provider's error code are enough for the log.
            error = ""
            try:
                error = str(response.json().get("error", ""))[:100]
            except ValueError:
                pass
            raise requests.HTTPError(f"token endpoint answered {response.status_code} {error}".strip(),
                                     response=response)
        return response.json()

    def verify_token(self, token, **kwargs) -> dict[str, Any]:
        payload = super().verify_token(token, **kwargs)
        if str(payload.get("iss", "")).rstrip("/") != self.provider.issuer.rstrip("/"):
            raise SuspiciousOperation("ID token from another issuer")
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("ID token for another client")
        if len(audiences) > 1 and payload.get("azp") not in (None, self.OIDC_RP_CLIENT_ID):
            raise SuspiciousOperation("ID token authorized for another client")
        return payload

    def get_userinfo(self, access_token, id_token, payload) -> dict[str, Any]:
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT:
            userinfo = super().get_userinfo(access_token, id_token, payload)
            if not isinstance(userinfo, dict) or userinfo.get("sub") != payload.get("sub"):
                raise SuspiciousOperation("user info of another subject")
            claims.update(userinfo)
        return claims

    def get_or_create_user(self, access_token, id_token, payload):
        claims = self.get_userinfo(access_token, id_token, payload)
        try:
            user, created = sso_user_for_claims(claims)
        except SSORefusedError as refusal:
            logger.warning("single sign-on refused (%s) for subject %s of %s", refusal.code,
                           str(claims.get("sub", ""))[:100], self.provider.issuer)
            self.request.sso_refusal = refusal
            return None
        logger.info("single sign-on of user %s (id %s)%s", user.username, user.pk, ", created" if created else "")
        self.request.sso_created = created
        return user
