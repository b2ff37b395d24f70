"""``/scim/v2/`` (included by ``assetsvc/urls.py``): the paths Entra ID and Okta call, with or without a trailing
slash. Every view answers the site's 404 while ``SCIM_ENABLED`` is off."""

from django.urls import re_path

from accounts.scim import views

urlpatterns = [
    re_path(r"^ServiceProviderConfigs?/?$", views.ServiceProviderConfigView.as_view(), name="scim-config"),
    re_path(r"^ResourceTypes/?$", views.ResourceTypesView.as_view(), name="scim-resource-types"),
    re_path(r"^ResourceTypes/(?P<name>[^/]+)/?$", views.ResourceTypesView.as_view()),
    re_path(r"^Schemas/?$", views.SchemasView.as_view(), name="scim-schemas"),
    re_path(r"^Schemas/(?P<name>[^/]+)/?$", views.SchemasView.as_view()),
    re_path(r"^Users/?$", views.UsersView.as_view(), name="scim-users"),
    re_path(r"^Users/(?P<pk>[^/]+)/?$", views.UserView.as_view(), name="scim-user"),
    re_path(r"^Groups/?$", views.GroupsView.as_view(), name="scim-groups"),
    re_path(r"^Groups/(?P<pk>[^/]+)/?$", views.GroupView.as_view(), name="scim-group"),
    re_path(r"^(?P<rest>.*)$", views.NotFoundView.as_view()),
]
