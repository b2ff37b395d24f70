from django.urls import path

from accounts.api import views

urlpatterns = [
    path("account/personal-access-tokens", views.PersonalAccessTokenListView.as_view()),
    path("account/personal-access-tokens/<str:token_id>", views.PersonalAccessTokenDetailView.as_view()),
    path("users/me", views.CurrentUserView.as_view()),
]
