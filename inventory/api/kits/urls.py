"""Kit routes (Snipe-IT's ``kits`` group, reference §1.5): the resource, its select list, the four kinds of lines
and the checkout. The middleware makes a trailing slash optional."""

from rest_framework.routers import SimpleRouter

from inventory.api.kits.views import KitViewSet

router = SimpleRouter(trailing_slash="")
router.register("kits", KitViewSet, basename="kits")

urlpatterns: list = router.urls
