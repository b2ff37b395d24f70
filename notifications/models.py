"""The delivery log: one row per attempt to post a notification."""

from __future__ import annotations

from django.db import models


class WebhookDelivery(models.Model):
    """One delivery attempt of one notification to the configured endpoint, written by a task worker.

    A queued notification's row is written ``in_progress`` (and committed) before its POST, keyed by the task's id,
    and completed (``done``) after it: a task found with a row already (its worker crashed mid-delivery and the task
    ran again) is recorded ``interrupted`` and never posted twice, and an ``in_progress`` row older than any
    delivery can last is turned ``interrupted`` too (:func:`notifications.delivery.mark_interrupted`).

    Failed deliveries are not retried (specification, Events/Delivery), so this table is the only trace of them
    besides the server log. ``error`` holds only the error *class* (``ConnectTimeout``, ``HTTP 500``, ...): the
    admin shows it, and a finer text would turn the test action into a port scanner (CVE-2026-114064); the server
    log gets the full exception. The response body is never stored, for the same reason.
    """

    class State(models.TextChoices):
        IN_PROGRESS = "in_progress", "in progress"
        DONE = "done", "done"
        INTERRUPTED = "interrupted", "interrupted (not sent again)"

    event = models.CharField(max_length=64, help_text="Event name from notifications.events, or 'test'.")
    platform = models.CharField(max_length=16, blank=True, default="")
    endpoint = models.CharField(max_length=2000, blank=True, default="")
    request_body = models.JSONField(null=True, blank=True)
    success = models.BooleanField(default=False)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Time until the answer's headers.")
    error = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.DONE)
    #: The django-tasks result id of a queued notification (empty for the admin's test message).
    task_id = models.CharField(max_length=64, null=True, blank=True, unique=True)
    #: The notification's ``delivery_id`` (API-CONTRACT.md §8a), the same on every attempt; empty for old rows.
    #: Neither the signing secret nor the signature headers are stored.
    delivery_id = models.UUIDField(null=True, blank=True, db_index=True)
    #: Why nothing could be sent (issue 25): the configuration problems of an ``InvalidConfiguration`` row, as the
    #: settings page lists them (names of settings and variables, never a secret or an exception text).
    reason = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["created_at"]), models.Index(fields=["success", "created_at"]),
                   models.Index(fields=["state", "created_at"])]
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        if self.state != self.State.DONE:
            return f"{self.event} → {self.endpoint}: {self.get_state_display()}"
        outcome = "ok" if self.success else f"failed ({self.error or self.status_code})"
        return f"{self.event} → {self.endpoint}: {outcome}"
