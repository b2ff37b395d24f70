"""Inventory routes: the catalogue, hardware, accessories and consumables, licenses, custom fields, kits, each in its
own module."""

from django.urls import include, path

urlpatterns = [
    path("", include("inventory.api.catalogue.urls")),
    path("", include("inventory.api.assets.urls")),
    path("", include("inventory.api.stock.urls")),
    path("", include("inventory.api.licenses.urls")),
    path("", include("inventory.api.custom_fields.urls")),
    path("", include("inventory.api.kits.urls")),
]
