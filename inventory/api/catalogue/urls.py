"""Catalogue routes at Snipe-IT's fixed paths (``statuslabels``, ``categories``, ``manufacturers``, ``suppliers``,
``locations``, ``models``); the middleware makes a trailing slash optional."""

from rest_framework.routers import SimpleRouter

from inventory.api.catalogue import views

router = SimpleRouter(trailing_slash="")
router.register("statuslabels", views.StatusLabelViewSet, basename="statuslabels")
router.register("categories", views.CategoryViewSet, basename="categories")
router.register("manufacturers", views.ManufacturerViewSet, basename="manufacturers")
router.register("suppliers", views.SupplierViewSet, basename="suppliers")
router.register("locations", views.LocationViewSet, basename="locations")
router.register("models", views.AssetModelViewSet, basename="models")
router.register("depreciations", views.DepreciationViewSet, basename="depreciations")

urlpatterns: list = router.urls
