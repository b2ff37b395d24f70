"""``/account/``: what the signed-in person holds (assets, accessories, consumables, license seats, and the components
in their assets), each with its history with them, read by :func:`inventory.selectors.holdings.holdings`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from accounts.portal.frame import portal_login_required, portal_render
from inventory.selectors.holdings import holdings
from inventory.services.licenses import can_view_keys


@portal_login_required
def my_items(request: HttpRequest) -> HttpResponse:
    held = holdings(request.user)
    return portal_render(request, "portal/inventory/my_items.html", page="home", title="My items", held=held,
                         sections=[("Assets", "assets", held.assets), ("Accessories", "accessories", held.accessories),
                                   ("Consumables", "consumables", held.consumables),
                                   ("Licenses", "licenses", held.licenses),
                                   ("Components", "components", held.components)],
                         show_keys=can_view_keys(request.user))
