"""``manage.py send_test_webhook``: post the test message with the effective configuration and report the result.

Exit status 0 on success; on failure the reason goes to stderr and the exit status is 1.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from notifications.config import get_webhook_config
from notifications.delivery import send_test_message


class Command(BaseCommand):
    help = "Send the webhook test message to the configured endpoint and report success or the reason for failure."

    def handle(self, *args, **options) -> None:
        config = get_webhook_config()
        for warning in config.warnings():
            self.stderr.write(f"Warning: {warning}")
        if not config.enabled:
            raise CommandError("No webhook endpoint is configured (site settings or WEBHOOK_ENDPOINT).")
        errors = config.errors()
        if errors:
            raise CommandError("The test message was not sent: " + " ".join(errors))
        result = send_test_message(config)
        if not result.success:
            # The operator runs this on the server, so the full reason is fine here.
            detail = f" ({result.detail})" if result.detail and result.detail != result.error else ""
            raise CommandError(f"The test message to {config.endpoint} failed: {result.reason}{detail}")
        self.stdout.write(f"Your {config.app_name} integration works! {config.endpoint} answered "
                          f"{result.status_code} in {result.latency_ms} ms.")
