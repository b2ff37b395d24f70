"""Snipe-IT's ``/imports`` routes (literal ``process`` before the id)."""

from django.urls import path

from inventory.transfer import api

urlpatterns = [
    path("imports", api.ImportListView.as_view(), name="imports"),
    path("imports/process/<str:import_id>", api.ImportProcessView.as_view(), name="imports-process"),
    path("imports/<str:import_id>", api.ImportDetailView.as_view(), name="imports-detail"),
]
