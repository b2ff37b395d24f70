from django.urls import path, re_path
from rest_framework.routers import SimpleRouter

from accounts.api import (
    operation_texts,  # noqa: F401  (the API docs' texts)
    views,
)
from accounts.api.departments import DepartmentViewSet
from accounts.api.groups import GroupViewSet
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
    *router.urls,
]
