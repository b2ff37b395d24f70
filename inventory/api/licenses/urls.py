"""License routes (reference §1.5, API-CONTRACT.md §10): the resource, its seats, and the licenses a user or an asset
holds. The middleware makes a trailing slash optional."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inventory.api.licenses.views import LicenseViewSet

router = SimpleRouter(trailing_slash="")
router.register("licenses", LicenseViewSet, basename="licenses")

urlpatterns = [
    path("users/<str:user_pk>/licenses", LicenseViewSet.as_view({"get": "user_items"}), name="user-licenses"),
    path("hardware/<str:asset_pk>/licenses", LicenseViewSet.as_view({"get": "asset_items"}), name="hardware-licenses"),
    *router.urls,
]
