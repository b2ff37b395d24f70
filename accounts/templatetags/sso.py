"""``{% load sso %}{% sso_button next_url %}``: the admin login page's "Sign in with ..." button, nothing while single
sign-on is off (issue 30; read at render time, so ``override_settings`` in tests shows). ``{% portal_sso_button %}``
is the same button in the employees' portal's look, back to ``/account/`` by default (issue 32)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from django import template
from django.conf import settings
from django.urls import reverse

from accounts.sso import sso_enabled

register = template.Library()

#: Issuer host (or path) fragments and the provider names the default label uses.
KNOWN_PROVIDERS = (
    ("login.microsoftonline.com", "Microsoft"),
    ("sts.windows.net", "Microsoft"),
    ("accounts.google.com", "Google"),
    (".okta.com", "Okta"),
    (".oktapreview.com", "Okta"),
    ("/realms/", "Keycloak"),
)
DEFAULT_LABEL = "Sign in with single sign-on"


def button_label() -> str:
    """``OIDC_BUTTON_LABEL``, else "Sign in with <provider>" for the providers recognised from the issuer, else
    "Sign in with single sign-on"."""
    if settings.OIDC_BUTTON_LABEL:
        return settings.OIDC_BUTTON_LABEL
    parts = urlsplit(settings.OIDC_ISSUER)
    where = f"{parts.hostname or ''}{parts.path}"
    for fragment, name in KNOWN_PROVIDERS:
        if fragment in where or (fragment.startswith(".") and where.startswith(fragment[1:])):
            return f"Sign in with {name}"
    return DEFAULT_LABEL


def _button(next_url: str) -> dict:
    if not sso_enabled():
        return {"enabled": False}
    url = reverse("oidc_authentication_init")
    return {"enabled": True, "label": button_label(), "url": f"{url}?{urlencode({'next': next_url})}"}


@register.inclusion_tag("admin/accounts/sso_button.html")
def sso_button(next_url: str = "") -> dict:
    return _button(next_url or reverse("admin:index"))


@register.inclusion_tag("portal/sso_button.html")
def portal_sso_button(next_url: str = "") -> dict:
    """Only a portal page as ``next``: the single sign-on callback gives everyone a session only for those."""
    return _button(next_url if str(next_url).startswith("/account/") else reverse("portal:home"))
