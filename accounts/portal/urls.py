"""``/account/...`` (namespace ``portal``): the sign-in and two-factor pages here, then every page an app registered
(:mod:`accounts.portal.pages`), read when the URL list is first loaded (after every ``ready()``)."""

from django.urls import path

from accounts.portal import twofactor, views
from accounts.portal.pages import portal_pages

app_name = "portal"

urlpatterns = [
    path("login/", views.portal_login, name="login"),
    path("logout/", views.portal_logout, name="logout"),
    path("two-factor/", twofactor.manage, name="two-factor"),
    path("two-factor/verify/", twofactor.verify, name="two-factor-verify"),
    *(path(page.route, page.view, name=page.name) for page in portal_pages()),
]
