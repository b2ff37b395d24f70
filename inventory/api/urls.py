"""Inventory routes: the catalogue, hardware, accessories and consumables, licenses, custom fields, maintenances,
checkout requests and kits, each in its own module."""

from django.urls import include, path

from inventory.api import operation_texts  # noqa: F401  (the API docs' texts)

urlpatterns = [
    # hardware first: its module also routes literal paths under catalogue prefixes (models/assets)
    path("", include("inventory.api.assets.urls")),
    path("", include("inventory.api.catalogue.urls")),
    path("", include("inventory.api.stock.urls")),
    path("", include("inventory.api.licenses.urls")),
    path("", include("inventory.api.custom_fields.urls")),
    path("", include("inventory.api.requests.urls")),
    path("", include("inventory.api.acceptances.urls")),  # account/eulas, users/{id}/eulas (issue 29)
    path("", include("inventory.api.maintenances.urls")),
    path("", include("inventory.api.kits.urls")),
]
