"""Snipe-IT's checkout-request routes under ``/account``."""

from django.urls import path

from inventory.api.requests import views

urlpatterns = [
    path("account/requestable/hardware", views.RequestableAssetsView.as_view(),
         name="account-requestable-hardware"),
    path("account/requests", views.MyRequestsView.as_view(), name="account-requests"),
    path("account/request/<str:asset_id>", views.AssetRequestView.as_view(), name="account-request"),
    path("account/request/<str:asset_id>/cancel", views.AssetRequestCancelView.as_view(),
         name="account-request-cancel"),
]
