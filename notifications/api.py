"""``POST /api/v1/settings/slacktest``: the webhook test message, sent now (issue 27); ``POST /settings/mailtest``
and ``POST /users/{id}/email`` (issue 29): the test mail and a user's inventory by mail.

Snipe-IT routes it to a method its API controller does not have (a 500); its settings page sends the test message
of the configured chat integration. Here it does what the admin's "Send test message" button and ``manage.py
send_test_webhook`` do, for any platform, with the same words: success with the endpoint's status, or the failure's
status or error class and nothing more (never the answer's body or the address: CVE-2026-114064). Super users only.
"""

from __future__ import annotations

from email.utils import parseaddr

from django.conf import settings
from django.db import transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema

from accounts import services as accounts_services
from accounts.models import User
from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.permissions import IsSuperUser
from assetsvc.api.viewsets import ApiView, success
from assetsvc.exceptions import ConflictError
from notifications.config import get_webhook_config
from notifications.delivery import outcome_of_test_message, send_test_message
from notifications.mail import send_test_mail
from notifications.mail_receivers import queue_inventory_mail


class WebhookTestFailed(ConflictError):
    """The test message was not sent or not accepted: a state of the configuration or of the endpoint (409 in
    ``http`` mode, the envelope with 200 in ``compat`` mode)."""

    default_code = "webhook_test_failed"


TEST_SCHEMA = {"type": "object", "properties": {
    "status": {"type": "string", "example": "success"},
    "messages": {"type": "string", "example": "Your Slack integration works! The endpoint answered 200."},
    "payload": {"type": "object", "properties": {
        "status_code": {"type": "integer", "example": 200},
        "latency_ms": {"type": "integer"},
        "warnings": {"type": "array", "items": {"type": "string"}}}}}}


class WebhookTestView(ApiView):
    permission_section = None  # not a permission key: super users only
    permission_classes = [IsSuperUser]

    @extend_schema(tags=["settings"], operation_id="settings_webhook_test", request=None,
                   responses={200: OpenApiResponse(response=TEST_SCHEMA)})
    def post(self, request):
        config = get_webhook_config()
        result = send_test_message(config)
        text = outcome_of_test_message(config, result)
        if not result.success:
            raise WebhookTestFailed(text)
        return success({"status_code": result.status_code, "latency_ms": result.latency_ms,
                        "warnings": config.warnings()}, text)


register_operation_texts({
    "settings_webhook_test": OperationText(
        "Send the webhook test message",
        "Posts the test message to the configured webhook now (any platform, not only Slack) and answers the "
        "endpoint's status and time. A failure is the error envelope naming only the status or the error class "
        "(the endpoint's answer and address are never shown); no endpoint configured is \"No webhook endpoint is "
        "configured.\" Every attempt is in the delivery log.",
        "Super users only; administrators and everyone else get 403."),
})


class MailFailed(ConflictError):
    """The test mail or the inventory mail could not be sent (409 in ``http`` mode)."""

    default_code = "mail_failed"


MAIL_SENT = "Mail sent successfully!"  # Snipe-IT's words (mail_sent.mail_sent)
NO_EMAIL = "This user has no email set."  # Snipe-IT's inventorynotification.error
INVENTORY_SENT = "The user has been notified about their current inventory."


MAIL_TEST_SCHEMA = {"type": "object", "properties": {
    "status": {"type": "string", "example": "success"},
    "messages": {"type": "string", "example": "Mail sent successfully!"},
    "payload": {"type": "object", "properties": {"to": {"type": "string", "example": "admin@example.com"}}}}}
INVENTORY_SCHEMA = {"type": "object", "properties": {
    "status": {"type": "string", "example": "success"},
    "messages": {"type": "string", "example": "The user has been notified about their current inventory."},
    "payload": {"type": "object", "nullable": True, "example": None}}}


class MailTestView(ApiView):
    """``POST /settings/mailtest`` (issue 29): a test mail sent now, to the caller's address (Snipe-IT sends it to its
    own from-address; the caller's is the one somebody reads; without one, ``DEFAULT_FROM_EMAIL``). Snipe-IT answers
    ``success`` with the exception's text when sending fails; here a failure is the error envelope."""

    permission_section = None  # not a permission key: super users only
    permission_classes = [IsSuperUser]

    @extend_schema(tags=["settings"], operation_id="settings_mail_test", request=None,
                   responses={200: OpenApiResponse(response=MAIL_TEST_SCHEMA)})
    def post(self, request):
        address = request.user.email or parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
        ok, text = send_test_mail(address, user=request.user)
        if not ok:
            raise MailFailed(text)
        return success({"to": address}, MAIL_SENT)


class UserEmailView(ApiView):
    """``POST /users/{id}/email``: mail the user the list of everything they hold (Snipe-IT's ``emailAssetList``):
    ``users.edit``, then the user, who must be visible to the caller (company separation), live, and not outrank
    them. The mail is queued (sent by the task worker) like every other."""

    permission_section = "users"
    action = "email"  # the permission class reads the key of this "action": users.edit, as Snipe-IT's update gate
    action_permissions = {"email": "edit"}

    not_found_message = accounts_services.USER_NOT_FOUND

    @extend_schema(tags=["users"], operation_id="users_email_inventory", request=None,
                   responses={200: OpenApiResponse(response=INVENTORY_SCHEMA)})
    def post(self, request, user_id: str):
        try:
            target = User.objects.restrict(request.user, "edit").alive().get(pk=int(user_id))
        except (User.DoesNotExist, ValueError, OverflowError) as exc:
            raise self.not_found() from exc
        accounts_services.ensure_may_manage(actor=request.user, target=target)
        if not target.email:
            raise MailFailed(NO_EMAIL)
        with transaction.atomic():
            queue_inventory_mail(target, actor=request.user)
        return success(None, INVENTORY_SENT)


register_operation_texts({
    "settings_mail_test": OperationText(
        "Send a test e-mail",
        "Sends a test mail now to the caller's address (without one, to DEFAULT_FROM_EMAIL) through the configured "
        "SMTP server and answers \"" + MAIL_SENT + "\". A failure, or no EMAIL_HOST, is the error envelope with the "
        "server's reply or the error class. Every attempt is in the mail log.",
        "Super users only; everyone else gets 403."),
    "users_email_inventory": OperationText(
        "E-mail a user what they hold",
        "Queues a mail to the user listing their assets, accessories, consumables and license seats (never a "
        "license key) and answers \"" + INVENTORY_SENT + "\". A user without an e-mail address: \"" + NO_EMAIL + "\"",
        "users.edit, on a user you may see who does not outrank you."),
})
