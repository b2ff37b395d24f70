"""The delivery log: one row per attempt to post a notification."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from companies.querysets import CompanyScopedQuerySet


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


class OutboundMail(models.Model):
    """One e-mail: queued in the transaction of the change that causes it, sent by a task worker, every attempt
    counted here (issue 29; ``notifications.mail``). The mail log of the admin.

    ``status`` moves ``queued`` → ``sending`` → ``sent``; a temporary failure goes to ``retrying`` (a new task waits
    ``next_attempt_at``), a permanent one or the last attempt to ``failed``. ``handed_over_at`` is written (and
    committed) just before the message's content is given to the server: a worker that dies before it sends the mail
    again (the server kept nothing); one that dies after it leaves the mail ``uncertain`` (the server may have it) and
    never sends it twice; the admin can send an uncertain or failed mail again by hand. Without ``EMAIL_HOST`` a mail
    is ``logged``: written to the server log, never sent. ``last_error`` holds the SMTP reply or the error class,
    never a password."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        SENDING = "sending", "sending"
        RETRYING = "retrying", "waiting to retry"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"
        UNCERTAIN = "uncertain", "uncertain (worker stopped mid-send; not sent again)"
        LOGGED = "logged", "logged only (no EMAIL_HOST)"

    event = models.CharField(max_length=64, db_index=True,
                             help_text="What caused it: checkout, checkin, acceptance, digest, reminder, test ...")
    to = models.CharField(max_length=254)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", help_text="The recipient, when a user.")
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+", help_text="The company whose records the mail is about.")
    subject = models.CharField(max_length=255)
    text_body = models.TextField()
    html_body = models.TextField(blank=True, default="")
    #: The Message-ID header, the same on every attempt (a receiver can tell a repeat apart).
    message_id = models.CharField(max_length=255, unique=True)
    #: Set by callers that must not queue the same mail twice (the daily digest, reminders); unique.
    dedupe_key = models.CharField(max_length=200, null=True, blank=True, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=255, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    handed_over_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    #: Company separation: a company administrator's mail log shows only their company's mails.
    objects = CompanyScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"]), models.Index(fields=["created_at"]),
                   models.Index(fields=["user", "event", "created_at"])]
        verbose_name = "mail"
        verbose_name_plural = "mail log"

    def __str__(self) -> str:
        return f"{self.event} → {self.to}: {self.get_status_display()}"
