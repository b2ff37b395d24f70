"""Accessory, consumable and component routes (reference §1.5, API-CONTRACT.md §10) and the lists of who holds
what under ``users``, ``hardware`` and ``locations``. The middleware makes a trailing slash optional."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inventory.api.stock.views import AccessoryViewSet, ComponentViewSet, ConsumableViewSet

router = SimpleRouter(trailing_slash="")
router.register("accessories", AccessoryViewSet, basename="accessories")
router.register("consumables", ConsumableViewSet, basename="consumables")
router.register("components", ComponentViewSet, basename="components")

urlpatterns = [
    path("users/<str:user_pk>/accessories", AccessoryViewSet.as_view({"get": "user_items"}),
         name="user-accessories"),
    path("users/<str:user_pk>/consumables", ConsumableViewSet.as_view({"get": "user_items"}),
         name="user-consumables"),
    path("hardware/<str:asset_pk>/assigned/accessories", AccessoryViewSet.as_view({"get": "asset_items"}),
         name="hardware-assigned-accessories"),
    path("hardware/<str:asset_pk>/components", ComponentViewSet.as_view({"get": "asset_items"}),
         name="hardware-components"),
    path("locations/<str:location_pk>/assigned/accessories", AccessoryViewSet.as_view({"get": "location_items"}),
         name="location-assigned-accessories"),
    *router.urls,
]
