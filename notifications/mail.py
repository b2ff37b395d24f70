"""E-mail: a durable channel beside the webhook (issue 29; docs/mail.md).

* :func:`queue_mail` renders a mail (``templates/mail/<name>.txt`` and ``.html``) while the data is at hand and
  writes an :class:`~notifications.models.OutboundMail` row and a django-tasks task in the caller's transaction:
  rolled-back work queues nothing, committed work is never lost. Without ``EMAIL_HOST`` the mail is written to the
  server log and the mail log (status ``logged``) and no task is queued.
* A task worker (``manage.py db_worker``, the one that delivers webhooks) runs :func:`send_queued_mail`:
  :func:`deliver_mail` claims the row (``sending``, one more attempt, committed), opens the SMTP connection
  (STARTTLS or TLS, AUTH; Django's backend), names sender and recipient, writes ``handed_over_at`` (committed), hands
  the content over and marks the row ``sent``.
* A temporary failure (connection refused or lost, timeout, TLS, a 4xx reply, AUTH refused) puts the row in
  ``retrying`` and queues a new task for ``next_attempt_at`` (``MAIL_RETRY_SECONDS`` doubled per attempt, at most an
  hour) in one transaction; a 5xx refusal of the mail, or ``MAIL_MAX_ATTEMPTS`` attempts, make it ``failed``.
* A worker killed mid-send leaves its task ``RUNNING``; the worker's sweeper puts it back in the queue
  (``notifications.delivery.requeue_orphans``). Run again, the task sends the mail again when the dead worker had not
  handed it over (the server discarded the unfinished transaction), and marks it ``uncertain`` otherwise: nothing
  lost, nothing sent twice. The same Message-ID goes with every attempt.
"""

from __future__ import annotations

import logging
import smtplib
import socket
import ssl
import uuid
from dataclasses import dataclass
from datetime import timedelta
from email.utils import formataddr, parseaddr
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django_tasks import task

from assetsvc.conf import app_settings
from notifications import delivery
from notifications.mail_backend import EmailBackend

if TYPE_CHECKING:
    from django_tasks import TaskContext

    from notifications.models import OutboundMail

logger = logging.getLogger("notifications.mail")

#: The longest wait between two attempts of one mail.
MAX_RETRY_DELAY = timedelta(hours=1)
TEST_EVENT = "test"
NOT_CONFIGURED = "E-mail is not configured on this server (EMAIL_HOST is empty)"


def mail_configured() -> bool:
    return bool(settings.EMAIL_HOST)


def from_address() -> str:
    """``DEFAULT_FROM_EMAIL``, shown as ``SITE_NAME`` when it names no one itself."""
    name, address = parseaddr(settings.DEFAULT_FROM_EMAIL)
    return settings.DEFAULT_FROM_EMAIL if name else formataddr((app_settings.SITE_NAME, address))


def _message_domain() -> str:
    address = parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    return address.rpartition("@")[2] or "localhost"


def new_message_id() -> str:
    """A Message-ID unique without coordination: 128 random bits from the OS (``email.utils.make_msgid`` draws from
    the ``random`` module, which a seeded caller, such as a property-based test, repeats: two mails got one id)."""
    return f"<{uuid.uuid4().hex}@{_message_domain()}>"


def render_mail(template: str, context: dict[str, Any]) -> tuple[str, str]:
    """The plain-text and HTML parts of ``templates/mail/<template>``."""
    values = {"site_name": app_settings.SITE_NAME, "site_url": settings.SITE_URL,
              "portal_url": f"{settings.SITE_URL.rstrip('/')}{reverse('portal:home')}", **context}
    text = render_to_string(f"mail/{template}.txt", values)
    html = render_to_string(f"mail/{template}.html", values)
    return text, html


def _new_row(*, to: str, subject: str, template: str, context: dict[str, Any], event: str, user: Any = None,
             company_id: int | None = None, dedupe_key: str | None = None) -> OutboundMail:
    from notifications.models import OutboundMail

    text, html = render_mail(template, context)
    subject = " ".join(subject.split())[:255]  # one line: a header never carries a line break
    return OutboundMail(event=event, to=to.strip(), user=user, company_id=company_id, subject=subject,
                        text_body=text, html_body=html, message_id=new_message_id(),
                        dedupe_key=dedupe_key,
                        status=OutboundMail.Status.QUEUED if mail_configured() else OutboundMail.Status.LOGGED)


def _log_unsent(row: OutboundMail) -> None:
    logger.info("E-mail not sent (EMAIL_HOST is empty): to=%s subject=%r\n%s", row.to, row.subject, row.text_body)


def queue_mail(*, to: str, subject: str, template: str, context: dict[str, Any], event: str,
               user: Any = None, company_id: int | None = None, dedupe_key: str | None = None
               ) -> OutboundMail | None:
    """Render and queue one mail in the current transaction (module docstring); ``None`` when ``dedupe_key`` was
    used before (nothing is queued). The row and the task are written in a savepoint, so a refused duplicate leaves
    the caller's transaction usable."""
    from notifications.models import OutboundMail

    row = _new_row(to=to, subject=subject, template=template, context=context, event=event, user=user,
                   company_id=company_id, dedupe_key=dedupe_key)
    with transaction.atomic():
        if dedupe_key and OutboundMail.objects.filter(dedupe_key=dedupe_key).exists():
            return None
        row.save(force_insert=True)
        if row.status == OutboundMail.Status.QUEUED:
            send_queued_mail.enqueue(mail_id=row.pk)
    if row.status == OutboundMail.Status.LOGGED:
        _log_unsent(row)
    return row


def queue_mail_quietly(**kwargs: Any) -> OutboundMail | None:
    """:func:`queue_mail` for a side effect of a change (a checkout's mail): a problem is logged and never fails the
    change (``queue_mail``'s savepoint keeps the caller's transaction whole)."""
    try:
        return queue_mail(**kwargs)
    except Exception:
        if delivery.transaction_doomed():
            raise  # the database failed under the change itself: the change must not answer success
        logger.exception("Could not queue the %s mail", kwargs.get("event"))
        return None


def build_message(row: OutboundMail, connection: Any = None) -> EmailMultiAlternatives:
    message = EmailMultiAlternatives(subject=row.subject, body=row.text_body, from_email=from_address(),
                                     to=[row.to], headers={"Message-ID": row.message_id}, connection=connection)
    if row.html_body:
        message.attach_alternative(row.html_body, "text/html")
    return message


@dataclass(frozen=True)
class Outcome:
    """One attempt's end: ``sent``, or a failure that is ``temporary`` (tried again) or not."""

    sent: bool
    error: str = ""
    temporary: bool = False
    #: The content reached the server before the failure: the server may have the mail.
    handed_over: bool = False


def _classify(exc: BaseException) -> Outcome:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, reply = next(iter(exc.recipients.values()), (550, b""))
        return Outcome(False, _reply(code, reply), temporary=400 <= code < 500)
    if isinstance(exc, smtplib.SMTPAuthenticationError):  # a fixable setting: keep trying while it is fixed
        return Outcome(False, _reply(exc.smtp_code, exc.smtp_error), temporary=True)
    if isinstance(exc, smtplib.SMTPResponseException):
        return Outcome(False, _reply(exc.smtp_code, exc.smtp_error), temporary=not 500 <= exc.smtp_code < 600)
    if isinstance(exc, (smtplib.SMTPException, OSError, ssl.SSLError, socket.timeout)):
        return Outcome(False, f"{type(exc).__name__}: {exc}"[:255], temporary=True)
    return Outcome(False, type(exc).__name__, temporary=True)


def _reply(code: int, reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
    return f"{code} {' '.join(text.split())}"[:255]


def smtp_send(row: OutboundMail, on_handover: Any = None) -> Outcome:
    """One SMTP attempt of ``row``: connect (Django's backend: STARTTLS or TLS, AUTH), ``MAIL FROM`` and ``RCPT TO``,
    then ``on_handover()`` (which records that the content is about to go), then ``DATA``."""
    # Always SMTP (this function speaks its commands), whatever EMAIL_BACKEND the test runner installed.
    backend = EmailBackend(fail_silently=False)
    handed_over = False
    try:
        backend.open()
        message = build_message(row, backend).message()
        sender = parseaddr(from_address())[1]
        smtp = backend.connection
        code, reply = smtp.mail(sender)
        if code != 250:
            raise smtplib.SMTPSenderRefused(code, reply, sender)
        code, reply = smtp.rcpt(row.to)
        if code not in (250, 251):
            raise smtplib.SMTPRecipientsRefused({row.to: (code, reply)})
        if on_handover is not None:
            on_handover()
        handed_over = True
        code, reply = smtp.data(message.as_bytes(linesep="\r\n"))
        if code != 250:
            return Outcome(False, _reply(code, reply), temporary=not 500 <= code < 600)
        return Outcome(True)
    except Exception as exc:  # every failure is an outcome; the worker must survive
        if not isinstance(exc, (smtplib.SMTPException, OSError)):
            logger.exception("Unexpected error while sending mail %s", row.pk)
        outcome = _classify(exc)
        # A refusal answered by the server is certain; a lost connection after the handover is not.
        uncertain = handed_over and not isinstance(exc, smtplib.SMTPResponseException)
        return Outcome(False, outcome.error, outcome.temporary, handed_over=uncertain)
    finally:
        try:
            backend.close()
        except Exception:
            pass


def retry_delay(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed attempt: ``MAIL_RETRY_SECONDS`` doubled each time, at most an hour."""
    seconds = settings.MAIL_RETRY_SECONDS * 2 ** max(attempts - 1, 0)
    return min(timedelta(seconds=seconds), MAX_RETRY_DELAY)


def _claim(row: OutboundMail) -> bool:
    """Take ``row`` for one attempt if its state is still the one read (two workers never send one mail at once)."""
    from notifications.models import OutboundMail

    claimed = OutboundMail.objects.filter(pk=row.pk, status=row.status, attempts=row.attempts).update(
        status=OutboundMail.Status.SENDING, attempts=F("attempts") + 1, handed_over_at=None, next_attempt_at=None)
    if claimed:
        row.attempts += 1
        row.status = OutboundMail.Status.SENDING
    return bool(claimed)


def deliver_mail(mail_id: int, *, retry: bool = True) -> str:
    """One attempt of a queued mail, at most once per state (module docstring); returns the row's new status.
    ``retry``: queue the next attempt after a temporary failure (the test mail is tried once)."""
    from notifications.models import OutboundMail

    Status = OutboundMail.Status
    patience = delivery.RECORD_PATIENCE
    row = delivery._patiently(lambda: OutboundMail.objects.filter(pk=mail_id).first(), patience)
    if row is None:
        return "gone"
    if row.status == Status.SENDING and row.handed_over_at is not None:
        # An earlier run died after handing the content over: the server may have it. Never twice.
        delivery._patiently(lambda: OutboundMail.objects.filter(pk=row.pk, status=Status.SENDING).update(
            status=Status.UNCERTAIN, last_error="The worker stopped after handing the mail to the server."),
            patience)
        logger.warning("Mail %s to %s was handed over by a worker that stopped; not sent again", row.pk, row.to)
        return Status.UNCERTAIN
    if row.status not in (Status.QUEUED, Status.RETRYING, Status.SENDING):
        return row.status  # sent, failed, uncertain or logged: nothing to do
    if not mail_configured():
        OutboundMail.objects.filter(pk=row.pk).update(status=Status.LOGGED, last_error=NOT_CONFIGURED)
        _log_unsent(row)
        return Status.LOGGED
    if not delivery._patiently(lambda: _claim(row), patience):
        return "claimed elsewhere"

    def handover() -> None:
        delivery._patiently(lambda: OutboundMail.objects.filter(pk=row.pk).update(handed_over_at=timezone.now()),
                            patience)

    outcome = smtp_send(row, handover)
    if outcome.sent:
        delivery._patiently(lambda: OutboundMail.objects.filter(pk=row.pk).update(
            status=Status.SENT, sent_at=timezone.now(), last_error=""), patience)
        return Status.SENT
    logger.warning("Mail %s to %s failed (attempt %d): %s", row.pk, row.to, row.attempts, outcome.error)
    if outcome.handed_over:
        delivery._patiently(lambda: OutboundMail.objects.filter(pk=row.pk).update(
            status=Status.UNCERTAIN, last_error=outcome.error), patience)
        return Status.UNCERTAIN
    if not (retry and outcome.temporary and row.attempts < settings.MAIL_MAX_ATTEMPTS):
        delivery._patiently(lambda: OutboundMail.objects.filter(pk=row.pk).update(
            status=Status.FAILED, last_error=outcome.error, handed_over_at=None), patience)
        return Status.FAILED
    when = timezone.now() + retry_delay(row.attempts)

    def schedule_retry() -> None:
        with transaction.atomic():
            OutboundMail.objects.filter(pk=row.pk).update(status=Status.RETRYING, last_error=outcome.error,
                                                          next_attempt_at=when, handed_over_at=None)
            send_queued_mail.using(run_after=when).enqueue(mail_id=row.pk)

    delivery._patiently(schedule_retry, patience)
    return Status.RETRYING


@task(takes_context=True)
def send_queued_mail(context: TaskContext, mail_id: int) -> str:
    """The task a worker runs for one attempt of one mail."""
    with delivery.running_lock(str(context.task_result.id)):
        return deliver_mail(mail_id)


def mail_stale_after() -> timedelta:
    """How long a mail task may run at most (SQLite's orphan rule): connect, TLS, AUTH and each command may each take
    ``EMAIL_TIMEOUT``; a minute of margin."""
    return timedelta(seconds=6 * int(settings.EMAIL_TIMEOUT or 30) + 60)


delivery.register_swept_task(send_queued_mail, mail_stale_after)


def send_again(mail_ids: list[int]) -> int:
    """Queue failed or uncertain mails once more (the mail log's action, a person's decision); how many."""
    from notifications.models import OutboundMail

    Status = OutboundMail.Status
    count = 0
    with transaction.atomic():
        for row in OutboundMail.objects.select_for_update().filter(
                pk__in=mail_ids, status__in=[Status.FAILED, Status.UNCERTAIN]):
            row.status = Status.QUEUED
            row.attempts = 0
            row.handed_over_at = None
            row.next_attempt_at = None
            row.save(update_fields=["status", "attempts", "handed_over_at", "next_attempt_at"])
            send_queued_mail.enqueue(mail_id=row.pk)
            count += 1
    return count


def send_test_mail(address: str, *, user: Any = None) -> tuple[bool, str]:
    """Send a test mail to ``address`` now, through the same path and with a mail-log row (no task: tried once, here):
    the admin's button, ``POST /settings/mailtest`` and ``manage.py send_test_mail``. Returns success and what a
    person is told (the SMTP reply or the error class; never a password)."""
    row = _new_row(to=address, subject=f"[{app_settings.SITE_NAME}] Test mail", template="test", context={},
                   event=TEST_EVENT, user=user)
    row.save(force_insert=True)
    if row.status == row.Status.LOGGED:
        _log_unsent(row)
        return False, f"{NOT_CONFIGURED}: the test mail to {address} was written to the server log."
    if deliver_mail(row.pk, retry=False) == row.Status.SENT:
        return True, f"Mail sent to {address}."
    row.refresh_from_db()
    return False, f"The test mail to {address} failed: {row.last_error}"
