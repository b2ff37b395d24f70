"""The routes of ``notifications`` under ``/api/v1``: the webhook test (``settings/slacktest``), the test mail
(``settings/mailtest``) and a user's inventory by mail (``users/{id}/email``)."""

from django.urls import re_path

from notifications.api import MailTestView, UserEmailView, WebhookTestView

urlpatterns = [
    re_path(r"^settings/slacktest/?$", WebhookTestView.as_view()),
    re_path(r"^settings/mailtest/?$", MailTestView.as_view()),
    re_path(r"^users/(?P<user_id>[^/]+)/email/?$", UserEmailView.as_view()),
]
