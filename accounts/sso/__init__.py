"""Single sign-on to the admin with OpenID Connect (issue 30; docs/directory.md, "Single sign-on (OpenID Connect)").

mozilla-django-oidc does the protocol (state, nonce, PKCE, code exchange, ID token signature); this package adds what
it leaves to the project:

- ``discovery``: the provider's endpoints from ``<OIDC_ISSUER>/.well-known/openid-configuration``, fetched at the
  first use and kept an hour, never at start-up;
- ``backend``: the authentication backend (the token's issuer and audience checked, claims of the ID token and the
  user info merged) that hands the claims to ``services``;
- ``services``: who the claims are (matched by verified e-mail, then username), created without rights only when
  ``OIDC_CREATE_USERS`` is on, refused when deactivated or deleted; a super user is never changed;
- ``views``/``urls``: ``/oidc/authenticate/``, ``/oidc/callback/``, ``/oidc/logout/``, each 404 while
  ``OIDC_ISSUER`` is empty; failures go back to the admin's login page with a message.
"""

from __future__ import annotations

from django.conf import settings


def sso_enabled() -> bool:
    """Single sign-on is configured (read at call time, so a test's ``override_settings`` shows)."""
    return bool(getattr(settings, "OIDC_ISSUER", ""))
