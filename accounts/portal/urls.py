"""``/account/...`` (namespace ``portal``): the sign-in pages here, then every page an app registered
(:mod:`accounts.portal.pages`), read when the URL list is first loaded (after every ``ready()``)."""

from django.urls import path

from accounts.portal import views
from accounts.portal.pages import portal_pages

app_name = "portal"

urlpatterns = [
    path("login/", views.portal_login, name="login"),
    path("logout/", views.portal_logout, name="logout"),
    *(path(page.route, page.view, name=page.name) for page in portal_pages()),
]
