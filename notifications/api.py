"""``POST /api/v1/settings/slacktest``: the webhook test message, sent now (issue 27).

Snipe-IT routes it to a method its API controller does not have (a 500); its settings page sends the test message
of the configured chat integration. Here it does what the admin's "Send test message" button and ``manage.py
send_test_webhook`` do, for any platform, with the same words: success with the endpoint's status, or the failure's
status or error class and nothing more (never the answer's body or the address: CVE-2026-114064). Super users only.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema

from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.permissions import IsSuperUser
from assetsvc.api.viewsets import ApiView, success
from assetsvc.exceptions import ConflictError
from notifications.config import get_webhook_config
from notifications.delivery import outcome_of_test_message, send_test_message


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
