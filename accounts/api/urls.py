from django.urls import path, re_path
from rest_framework.routers import SimpleRouter

from accounts.api import (
    ldap,
    operation_texts,  # noqa: F401  (the API docs' texts)
    views,
)
from accounts.api.departments import DepartmentViewSet
from accounts.api.groups import GroupViewSet
from accounts.api.twofactor import LoginAttemptsView, TwoFactorResetView
from accounts.api.users import UserViewSet

router = SimpleRouter()
router.trailing_slash = "/?"  # trailing slash optional (API-CONTRACT.md §1)
router.register("users", UserViewSet, basename="users")
router.register("groups", GroupViewSet, basename="groups")
router.register("departments", DepartmentViewSet, basename="departments")

urlpatterns = [
    path("account/personal-access-tokens", views.PersonalAccessTokenListView.as_view()),
    path("account/personal-access-tokens/<str:token_id>", views.PersonalAccessTokenDetailView.as_view()),
    re_path(r"^users/me/?$", views.CurrentUserView.as_view()),  # before users/{id}
    re_path(r"^users/list(?:/(?P<status>[^/]+))?/?$", UserViewSet.as_view({"get": "list_by_status"})),
    path("locations/<str:location_pk>/users", UserViewSet.as_view({"get": "location_users"}), name="locations-users"),
    re_path(r"^users/two_factor_reset/?$", TwoFactorResetView.as_view()),  # before users/{id}
    # The directory (issue 30): "not configured" answers while LDAP_SERVER_URI is empty (accounts/api/ldap.py).
    re_path(r"^users/ldapsync/?$", ldap.UserLdapSyncView.as_view()),  # before users/{id}
    re_path(r"^settings/ldaptest/?$", ldap.LdapTestView.as_view()),
    re_path(r"^settings/ldaptestlogin/?$", ldap.LdapTestLoginView.as_view()),
    re_path(r"^settings/login-attempts/?$", LoginAttemptsView.as_view()),
    *router.urls,
]
