"""Inventory routes: the catalogue, hardware, accessories and consumables, licenses, custom fields, each in its own
module."""

from django.urls import include, path

urlpatterns = [
    path("", include("inventory.api.catalogue_urls")),
    path("", include("inventory.api.hardware_urls")),
    path("", include("inventory.api.stock_urls")),
    path("", include("inventory.api.license_urls")),
    path("", include("inventory.api.custom_field_urls")),
]
