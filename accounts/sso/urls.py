"""``/oidc/``: mozilla-django-oidc's URL names (``oidc_authentication_init``, ``oidc_authentication_callback``,
``oidc_logout``) on this package's views; each answers 404 while ``OIDC_ISSUER`` is empty."""

from django.urls import path

from accounts.sso import views

urlpatterns = [
    path("authenticate/", views.SSOAuthenticateView.as_view(), name="oidc_authentication_init"),
    path("callback/", views.SSOCallbackView.as_view(), name="oidc_authentication_callback"),
    path("logout/", views.SSOLogoutView.as_view(), name="oidc_logout"),
]
