"""The routes of ``notifications`` under ``/api/v1``: the webhook test (``settings/slacktest``)."""

from django.urls import re_path

from notifications.api import WebhookTestView

urlpatterns = [
    re_path(r"^settings/slacktest/?$", WebhookTestView.as_view()),
]
