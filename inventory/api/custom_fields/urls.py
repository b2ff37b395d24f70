"""Custom field routes at Snipe-IT's paths: ``fields``, ``fields/{id}/associate``, ``fields/{id}/disassociate``,
``fields/fieldsets/{id}/order`` and ``fieldsets`` with ``fieldsets/{id}/fields[/{model_id}]``; the middleware makes
a trailing slash optional."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inventory.api.custom_fields import views

router = SimpleRouter(trailing_slash="")
router.register("fields", views.CustomFieldViewSet, basename="fields")
router.register("fieldsets", views.CustomFieldsetViewSet, basename="fieldsets")

urlpatterns: list = [
    path("fields/fieldsets/<str:pk>/order", views.CustomFieldsetViewSet.as_view({"post": "order"}),
         name="fieldsets-order"),
    *router.urls,
]
