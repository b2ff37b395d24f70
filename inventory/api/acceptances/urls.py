"""Accepted EULAs (issue 29): Snipe-IT's ``account/eulas`` and ``users/{id}/eulas``, and the PDFs they link to."""

from django.urls import path, re_path

from inventory.api.acceptances import views

urlpatterns = [
    re_path(r"^account/eulas/?$", views.MyEulasView.as_view(), name="account-eulas"),
    path("account/eulas/<int:acceptance_id>/file", views.MyEulaFileView.as_view(), name="account-eulas-file"),
    re_path(r"^users/(?P<user_id>[^/]+)/eulas/?$", views.UserEulasView.as_view(), name="users-eulas"),
    path("users/<str:user_id>/eulas/<int:acceptance_id>/file", views.UserEulaFileView.as_view(),
         name="users-eulas-file"),
]
