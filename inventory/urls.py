"""Inventory's pages outside the API and the admin: the checkout acceptance page of the mails' links (issue 29)."""

from django.urls import path

from inventory.acceptance_views import acceptance_page

urlpatterns = [
    path("accept/<str:token>/", acceptance_page, name="acceptance"),
]
