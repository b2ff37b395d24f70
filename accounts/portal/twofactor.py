"""``/account/two-factor/`` and ``/account/two-factor/verify/``: the admin's two-factor pages
(:mod:`accounts.twofactor.views`, the same logic and services) in the portal's frame, for every active user."""

from __future__ import annotations

from accounts.portal.frame import portal_render
from accounts.twofactor.views import Frame, pages


def _render(request, template: str, title: str, context: dict):
    return portal_render(request, template, page="profile", title=title, **context)


PORTAL = Frame("portal/twofactor/", "portal:two-factor-verify", "portal:two-factor", "portal:home", "portal:login",
               _render)
verify, manage = pages(PORTAL)
