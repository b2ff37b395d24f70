"""``/admin/two-factor/...`` (included by ``assetsvc.urls`` before the admin's own URLs)."""

from django.urls import path

from accounts.twofactor import views

urlpatterns = [
    path("", views.manage, name="two-factor"),
    path("verify/", views.verify, name="two-factor-verify"),
]
