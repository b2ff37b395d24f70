"""Maintenance routes (Snipe-IT's ``Route::resource('maintenances', ...)``, v8.1.4 has no other name for them) and
their history. The middleware makes a trailing slash optional."""

from rest_framework.routers import SimpleRouter

from inventory.api.maintenances.views import MaintenanceViewSet

router = SimpleRouter(trailing_slash="")
router.register("maintenances", MaintenanceViewSet, basename="maintenances")

urlpatterns = router.urls
