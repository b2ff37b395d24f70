"""``/account/``: what the signed-in person holds."""

from __future__ import annotations

from accounts.portal.frame import portal_login_required, portal_render
from inventory.models import Asset


@portal_login_required
def my_items(request):
    assets = (Asset.objects.alive().filter(assigned_user=request.user)
              .select_related("model").order_by("asset_tag"))
    return portal_render(request, "portal/inventory/my_items.html", page="home", title="My items", assets=assets)
