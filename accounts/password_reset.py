"""Forgotten passwords reset by mail, for the admin (issue 30; docs/directory.md).

Django's password reset views, at the URLs the admin's templates know (``admin_password_reset`` puts the
"Forgotten your login credentials?" link on the sign-in page). The mail goes through the project's durable mail
queue (``notifications.mail.queue_mail``, reached through the ``mail_sender`` hook: ``accounts`` sits below
``notifications``), rendered from ``templates/mail/password_reset.txt``/``.html``; its link starts with
``SITE_URL``, never with the request's Host header.

Without ``EMAIL_HOST`` the page says that reset by mail is not available and nothing is queued (a logged mail would
write the link into the server log). The page answers the same whether or not the address belongs to someone.
A link works for ``PASSWORD_RESET_MINUTES`` and only until the password changes or the person signs in.

Nothing here is for staff only: any active user with a password and an address (the employees' portal links to it,
issue 32) resets theirs; people of the directory or single sign-on have no usable password here and get no mail.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.shortcuts import render
from django.urls import path, reverse

from assetsvc.conf import app_settings
from assetsvc.registry import hook

SUBJECT = "Reset your password"


def mail_available() -> bool:
    return bool(settings.EMAIL_HOST)


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's form, sending through the mail queue, to live (not deleted) active users only."""

    def get_users(self, email):
        return (user for user in super().get_users(email) if user.deleted_at is None)

    def send_mail(self, subject_template_name, email_template_name, context, from_email, to_email,
                  html_email_template_name=None):
        user = context["user"]
        link = settings.SITE_URL + reverse("password_reset_confirm",
                                           kwargs={"uidb64": context["uid"], "token": context["token"]})
        hook("mail_sender")(
            to=to_email, subject=f"{SUBJECT} – {app_settings.SITE_NAME}", template="password_reset",
            context={"user": user, "reset_url": link, "minutes": settings.PASSWORD_RESET_TIMEOUT // 60},
            event="password_reset", user=user)


class PasswordResetView(auth_views.PasswordResetView):
    form_class = QueuedPasswordResetForm

    def dispatch(self, request, *args, **kwargs):
        if not mail_available():
            return render(request, "registration/password_reset_unavailable.html",
                          {"title": "Password reset", **_site_context()})
        return super().dispatch(request, *args, **kwargs)


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    """"Log in" leads to the employees' portal's sign-in page (issue 32), which takes every active user; Django's
    ``LOGIN_URL`` default (``/accounts/login/``) is no page here."""

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "login_url": reverse("portal:login")}


def _site_context() -> dict[str, str]:
    return {"site_header": app_settings.SITE_NAME, "site_title": app_settings.SITE_NAME}


class _SiteContextMixin:
    """The admin's header on the reset pages (read per request, like the admin site's own)."""

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), **_site_context()}


def _view(view_class):
    return type(view_class.__name__, (_SiteContextMixin, view_class), {}).as_view()


urlpatterns = [
    path("password_reset/", _view(PasswordResetView), name="admin_password_reset"),
    path("password_reset/done/", _view(auth_views.PasswordResetDoneView), name="password_reset_done"),
    path("reset/<uidb64>/<token>/", _view(auth_views.PasswordResetConfirmView), name="password_reset_confirm"),
    path("reset/done/", _view(PasswordResetCompleteView), name="password_reset_complete"),
]
