"""Delivery of notifications: durable, after the transaction commits, off the request path, by worker processes.

* :func:`schedule` (called by the receivers inside the service's transaction) builds the whole job at once (text,
  body, endpoint) and enqueues the :func:`deliver_notification` task (django-tasks, database backend
  django-tasks-db): the task row is written in that same transaction, so rolled-back work enqueues nothing and
  committed work is never lost (a restart or a burst loses nothing; the queue is a table). The worker never reads
  inventory rows.
* ``manage.py db_worker`` processes (one beside gunicorn in ``make run``; N in production) run the task: it marks
  the attempt with a committed ``in_progress`` delivery-log row keyed by the task id, posts once, and completes the
  row. A task that finds its row already written (its worker crashed mid-delivery) records it ``interrupted`` and
  does not post: never sent twice. There are no automatic retries.
* A worker killed while running a task leaves it ``RUNNING`` for ever (django-tasks-db never runs a claimed task
  again): :func:`requeue_orphans`, run every few seconds by every worker (``notifications``' ``db_worker``), puts
  such a task back in the queue. Run again, it posts if its first run had not marked the attempt yet (so cannot have
  posted), and otherwise records the attempt ``interrupted``: nothing lost, nothing sent twice. On PostgreSQL a
  running task holds an advisory lock on its id, so a dead worker's task is told apart within seconds; on SQLite
  only by its age (:func:`stale_after`).
* :func:`post` makes one attempt: a ``requests`` post with ``timeout=WEBHOOK_TIMEOUT`` (connect and each read) and
  the same number of seconds as a total deadline for the whole attempt (:mod:`notifications.deadline`: a receiver
  trickling its answer is cut off), ``allow_redirects=False`` and ``stream=True`` (the answer's body is never
  read). A 2xx answer is a success; anything else is logged with the endpoint and status and not retried
  (specification, Events / Delivery).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import requests
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.utils import timezone
from django_tasks import task

from assetsvc.conf import app_settings
from notifications import deadline, formatters, signing
from notifications.events import TEST_EVENT

if TYPE_CHECKING:
    from django_tasks import TaskContext

    from notifications.config import WebhookConfig

logger = logging.getLogger("notifications.delivery")

USER_AGENT = "assetsvc-webhook/1"
#: Seconds a worker keeps trying to write one delivery-log row while the database is locked (SQLite only).
RECORD_PATIENCE = 15.0
#: Error class of a delivery whose worker stopped between marking the attempt and completing it.
INTERRUPTED = "Interrupted"
#: Seconds a running task's claim must be old before its free lock (PostgreSQL) proves its worker gone: a worker
#: takes the lock within milliseconds of the claim, so this only has to outlast a very slow start of the task.
ORPHAN_GRACE = timedelta(seconds=5)
#: First key of the advisory locks of running delivery tasks (the second is derived from the task id).
LOCK_NAMESPACE = 0x5748  # "WH"


@dataclass(frozen=True)
class Job:
    """One notification to post. ``invalid`` is set when the configuration forbids sending it at all."""

    event: str
    platform: str
    endpoint: str
    body: dict[str, Any]
    invalid: str = ""
    deprecated_endpoint: bool = False
    #: This notification's id (lowercase UUID), made once with the job and the same on every attempt of it (the
    #: general kind's body carries it; API-CONTRACT.md §8a). Empty in a task queued before it existed.
    delivery_id: str = ""


@dataclass(frozen=True)
class DeliveryResult:
    success: bool
    status_code: int | None = None
    latency_ms: int | None = None
    #: The error class only (``ConnectionError``, ``ReadTimeout``, ``HTTP 500``, ...): shown in the admin.
    error: str = ""
    #: The full reason, for the server log only.
    detail: str = field(default="", repr=False)

    @property
    def reason(self) -> str:
        """``<status>`` or ``<error class>``: all a failure report shows (CVE-2026-114064)."""
        if self.status_code is not None and 300 <= self.status_code < 400:
            return f"{self.status_code} (redirects are not followed; use the endpoint's final URL)"
        if self.status_code is not None:
            return str(self.status_code)
        return self.error


def redact(endpoint: str) -> str:
    """The endpoint for the server log: no user info, no query string (workflow URLs carry their signature there)."""
    try:
        parts = urlsplit(endpoint)
        netloc = parts.hostname or ""
        if parts.port:
            netloc = f"{netloc}:{parts.port}"
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    except ValueError:
        return "<unparsable endpoint>"


def _scrub(text: str, endpoint: str) -> str:
    """``text`` without the endpoint's query string and password (exception texts quote the URL)."""
    try:
        parts = urlsplit(endpoint)
        secrets = [parts.query, parts.password or ""]
    except ValueError:
        return text
    for secret in secrets:
        if secret:
            text = text.replace(secret, "<redacted>")
    return text


def make_job(event: str, config: WebhookConfig, text: str, details: dict[str, Any] | None = None) -> Job:
    """The whole notification, made once: ``details`` are the general kind's machine-readable keys
    (``receivers.details``), to which the new ``delivery_id`` is added; the chat kinds ignore them."""
    errors = config.errors()
    delivery_id = str(uuid.uuid4())
    body = {} if errors else formatters.build_body(
        config.platform, text, channel=config.effective_channel, username=config.effective_botname,
        details={**(details or {}), "delivery_id": delivery_id},
    )
    return Job(
        event=event,
        platform=config.platform,
        endpoint=config.endpoint,
        body=body,
        invalid=" ".join(errors),
        deprecated_endpoint=bool(config.warnings()),
        delivery_id=delivery_id,
    )


def post(job: Job, *, secret: str | None = None) -> DeliveryResult:
    """One HTTP attempt. The body is serialized once and those bytes are sent (and signed, when a secret is in force:
    ``secret``, else the configuration's; API-CONTRACT.md §8a). The secret is read here, at the attempt, so it is
    never written to the queue. The answer's body is never read (``stream=True``, then closed): a receiver answering
    megabytes costs nothing."""
    if job.invalid:
        return DeliveryResult(False, error="InvalidConfiguration", detail=job.invalid)
    if secret is None:
        from notifications.config import effective_secret

        secret, problem = effective_secret()
        if problem:
            return DeliveryResult(False, error="InvalidConfiguration", detail=problem)
    if job.deprecated_endpoint:
        logger.warning("DEPRECATED webhook endpoint %s: a card-based (Microsoft Teams) endpoint without the "
                       "'workflows' path segment is the deprecated connector form", redact(job.endpoint))
    # What requests' json= would send (ASCII JSON, UTF-8), serialized once: the signed bytes are the sent bytes.
    data = json.dumps(job.body, allow_nan=False).encode("utf-8")
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    if secret:
        headers.update(signing.sign(secret, data))
    started = time.monotonic()
    seconds = app_settings.WEBHOOK_TIMEOUT
    with deadline.within(seconds) as (session, watch):  # the whole attempt, not each read (issue 25 item 11)
        try:
            response = session.post(job.endpoint, data=data, headers=headers, timeout=seconds,
                                    allow_redirects=False, stream=True)
        except requests.RequestException as exc:
            latency = int((time.monotonic() - started) * 1000)
            if watch.expired:
                return DeliveryResult(False, latency_ms=latency, error="ReadTimeout",
                                      detail=f"no whole answer within the {seconds} s deadline")
            detail = _scrub(str(exc), job.endpoint)
            return DeliveryResult(False, latency_ms=latency, error=type(exc).__name__, detail=detail)
        latency = int((time.monotonic() - started) * 1000)
        status = response.status_code
        response.close()  # unread: the body is neither read nor stored
    if 200 <= status < 300:
        return DeliveryResult(True, status_code=status, latency_ms=latency)
    error = f"HTTP {status}" + (" redirect not followed" if 300 <= status < 400 else "")
    return DeliveryResult(False, status_code=status, latency_ms=latency, error=error)


def _patiently(write: Callable[[], Any], patience: float) -> Any:
    """Run one database write, trying again while the database is locked or away for up to ``patience`` seconds.

    SQLite answers "database table is locked" at once to a second writer in shared-cache mode (the in-memory test
    database) instead of waiting: wait a little and write again (the row, never the delivery). A connection that
    died meanwhile (PostgreSQL restarted, ``pg_terminate_backend``, a network cut while the worker was posting) is
    closed, so the next try opens a fresh one (issue 25): the attempt is still recorded."""
    deadline = time.monotonic() + patience
    attempt = 0
    while True:
        try:
            return write()
        except (OperationalError, InterfaceError):
            if time.monotonic() >= deadline:
                raise
            if not connection.in_atomic_block:
                connection.close_if_unusable_or_obsolete()
            time.sleep(min(0.02 * 2**attempt, 0.25))
            attempt += 1


def _log_failure(job: Job, result: DeliveryResult) -> None:
    if not result.success:
        logger.warning("Webhook delivery failed (not retried): event=%s endpoint=%s status=%s error=%s %s",
                       job.event, redact(job.endpoint), result.status_code, result.error, result.detail)


def _outcome(result: DeliveryResult) -> dict[str, Any]:
    # The reason is kept only for a configuration that forbade sending (issue 25); other details are exception
    # texts, which stay in the server log (CVE-2026-114064).
    reason = result.detail if result.error == "InvalidConfiguration" else ""
    return {"success": result.success, "status_code": result.status_code, "latency_ms": result.latency_ms,
            "error": result.error[:255], "reason": reason}


def _row(job: Job, **fields: Any):
    from notifications.models import WebhookDelivery

    # The body as posted; never the secret or the signature headers (they are made in post()).
    return WebhookDelivery(event=job.event, platform=job.platform, endpoint=job.endpoint[:2000],
                           request_body=job.body or None, delivery_id=getattr(job, "delivery_id", None) or None,
                           **fields)


def record(job: Job, result: DeliveryResult, *, patience: float = RECORD_PATIENCE) -> None:
    """Write a finished attempt's delivery-log row and the server-log line; never raises (the worker must survive).

    ``patience``: seconds to keep trying while the database is locked."""
    _log_failure(job, result)
    row = _row(job, **_outcome(result))
    try:
        _patiently(lambda: row.save(force_insert=True), patience)
    except Exception as exc:
        logger.error("Could not record the webhook delivery of event %s", job.event, exc_info=exc)


def deliver(job: Job) -> DeliveryResult:
    """Post ``job`` now and record the attempt (the admin's test message; no task, so no attempt marker)."""
    result = post(job)
    record(job, result)
    return result


def stale_after() -> timedelta:
    """How old an ``in_progress`` row must be to be certainly interrupted: a delivery lasts at most a connect and a
    read timeout; a minute of margin covers a slow database write around it."""
    return timedelta(seconds=2 * int(app_settings.WEBHOOK_TIMEOUT) + 60)


def _still_running(task_ids: list[str]) -> set[str]:
    """Of ``task_ids``, the tasks a worker is still running: claimed (``RUNNING``) and, on PostgreSQL, with their lock
    (:func:`running_lock`) held by a live session. A task whose worker died is put back in the queue by
    :func:`requeue_orphans` first, and is then no longer among them."""
    from django_tasks_db.models import DBTaskResult

    ids = []
    for task_id in task_ids:
        try:
            ids.append(uuid.UUID(task_id))
        except ValueError:  # not a task's id: no task runs it
            continue
    if not ids:
        return set()
    running = {str(pk) for pk in DBTaskResult.objects.running().filter(id__in=ids).values_list("id", flat=True)}
    if connection.vendor == "postgresql":
        running = {task_id for task_id in running if _running_elsewhere(task_id)}
    return running


def mark_interrupted(*, older_than: timedelta | None = None) -> int:
    """Turn ``in_progress`` rows whose worker cannot still be posting into ``interrupted``; how many. A row whose task
    is still being run is left alone however old it is (issue 25 item 11): its worker completes it."""
    from notifications.models import WebhookDelivery

    cutoff = timezone.now() - (stale_after() if older_than is None else older_than)
    stale = WebhookDelivery.objects.filter(state=WebhookDelivery.State.IN_PROGRESS, created_at__lt=cutoff)
    running = _still_running([task_id for task_id in stale.values_list("task_id", flat=True) if task_id])
    count = stale.exclude(task_id__in=running).update(
        state=WebhookDelivery.State.INTERRUPTED, success=False, error=INTERRUPTED)
    if count:
        logger.warning("%d webhook deliveries were interrupted by a stopped worker (not sent again)", count)
    return count


def deliver_queued(job: Job, task_id: str, *, patience: float = RECORD_PATIENCE) -> str:
    """One queued notification, at most once: mark the attempt, post, complete the mark. Returns the row's state.

    The mark is committed before the POST (the worker runs tasks in autocommit mode). A mark already there means an
    earlier run of this task stopped after marking (a crash, a killed worker): that attempt is recorded
    ``interrupted`` and nothing is posted. A mark that cannot be written at all means nothing is posted either: a
    delivery that could not be told apart from a duplicate later is not made."""
    from notifications.models import WebhookDelivery

    State = WebhookDelivery.State
    row = _row(job, task_id=task_id, state=State.IN_PROGRESS)
    try:
        try:
            _patiently(lambda: row.save(force_insert=True), patience)
        except IntegrityError:
            if not WebhookDelivery.objects.filter(task_id=task_id).exists():
                raise  # not the unique task id: the write itself was refused
            already = True
        else:
            already = False
    except Exception as exc:
        logger.error("Could not record the webhook delivery of event %s (task %s); not sent", job.event, task_id,
                     exc_info=exc)
        return "not recorded"
    if already:
        interrupted = _patiently(lambda: WebhookDelivery.objects.filter(task_id=task_id, state=State.IN_PROGRESS)
                                 .update(state=State.INTERRUPTED, success=False, error=INTERRUPTED), patience)
        if not interrupted:  # finished, or already found interrupted, by an earlier run
            logger.warning("Webhook delivery of event %s (task %s) was attempted before; not sent again",
                           job.event, task_id)
            return "attempted before"
        logger.warning("Webhook delivery of event %s (task %s) was interrupted before; not sent again",
                       job.event, task_id)
        return State.INTERRUPTED
    result = post(job)
    _log_failure(job, result)
    try:
        _patiently(lambda: WebhookDelivery.objects.filter(pk=row.pk).update(state=State.DONE, **_outcome(result)),
                   patience)
    except Exception as exc:
        logger.error("Could not record the webhook delivery of event %s (task %s)", job.event, task_id,
                     exc_info=exc)
    return State.DONE


def _lock_key(task_id: Any) -> tuple[int, int]:
    return LOCK_NAMESPACE, uuid.UUID(str(task_id)).int % 2**31


@contextmanager
def running_lock(task_id: str) -> Iterator[None]:
    """Hold a session-level advisory lock on ``task_id`` while the task runs (PostgreSQL): the lock says its worker is
    alive, and goes with the worker's connection when the worker dies. Nothing on other databases."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", _lock_key(task_id))
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", _lock_key(task_id))
        except Exception:  # a lost connection took the lock with it
            logger.warning("Could not release the lock of task %s", task_id, exc_info=True)


def _running_elsewhere(task_id: Any) -> bool:
    """Whether a live session holds ``task_id``'s lock (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", _lock_key(task_id))
        if not cursor.fetchone()[0]:
            return True
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", _lock_key(task_id))
    return False


#: Tasks whose stopped runs :func:`requeue_orphans` puts back in the queue, each with how long it may run at most
#: (SQLite's rule): the webhook delivery below, the mail task (``notifications.mail``) registers itself.
SWEPT_TASKS: list[tuple[Any, Callable[[], timedelta]]] = []


def register_swept_task(queued_task: Any, longest_run: Callable[[], timedelta]) -> None:
    SWEPT_TASKS.append((queued_task, longest_run))


def requeue_orphans() -> int:
    """Put the tasks whose worker stopped while running them (killed, crashed, machine lost) back in the queue; how
    many. django-tasks-db leaves them ``RUNNING`` for ever: without this, a worker killed between claiming a task and
    marking its attempt loses the notification (or the mail), and one killed later leaves it ``in_progress``.

    PostgreSQL: a task claimed more than :data:`ORPHAN_GRACE` ago whose lock (:func:`running_lock`) no session holds.
    Other databases: a task claimed longer ago than it can last (:func:`stale_after` for webhooks). The update is
    conditional on the claim seen, so two sweepers never put one task back twice."""
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    now = timezone.now()
    postgres = connection.vendor == "postgresql"
    count = 0
    for queued_task, longest_run in SWEPT_TASKS:
        running = DBTaskResult.objects.running().filter(
            task_path=queued_task.module_path, started_at__lt=now - (ORPHAN_GRACE if postgres else longest_run()))
        for task_id, started_at in running.values_list("id", "started_at"):
            if postgres and _running_elsewhere(task_id):
                continue
            count += DBTaskResult.objects.filter(id=task_id, status=TaskResultStatus.RUNNING,
                                                 started_at=started_at).update(status=TaskResultStatus.READY)
    if count:
        logger.warning("%d notification tasks of a stopped worker were queued again", count)
    return count


def sweep() -> None:
    """What a worker does every few seconds: stopped workers' tasks back in the queue, stale attempts interrupted."""
    requeue_orphans()
    mark_interrupted()


@task(takes_context=True)
def deliver_notification(context: TaskContext, job: dict[str, Any]) -> str:
    """The task a worker runs for one notification (``job``: :func:`job_to_task`'s dict)."""
    task_id = str(context.task_result.id)
    with running_lock(task_id):
        mark_interrupted()
        return deliver_queued(Job(**{**job, "body": json.loads(job["body"])}), task_id)


register_swept_task(deliver_notification, stale_after)


def job_to_task(job: Job) -> dict[str, Any]:
    """``job`` as the task's argument. The body travels as JSON text: PostgreSQL's ``jsonb`` (the task table's
    arguments column) reorders object keys, and the body is posted in the specification's key order."""
    return {**asdict(job), "body": json.dumps(job.body)}


def transaction_doomed() -> bool:
    """Whether the caller's transaction can no longer commit: a savepoint around a side effect could not be rolled
    back (the connection died in the middle of the change), so Django will roll the whole change back, silently, when
    the outer block ends. A side effect's error must then be raised, not logged and swallowed: swallowed, the change
    would answer success for a write that never happened (the outage drill caught a checkout answered 200 with nothing
    written). Any other problem of a notification or a mail is swallowed: it must not fail the change."""
    return connection.in_atomic_block and connection.needs_rollback


def schedule(event: str, config: WebhookConfig, text: str, details: dict[str, Any] | None = None) -> None:
    """Enqueue ``text`` for delivery in the current transaction: the task row commits, or rolls back, with it.

    The insert runs in a savepoint, so a queue that cannot be written fails the notification (logged), never the
    change (specification: a notification problem must not fail the change)."""
    job = make_job(event, config, text, details)
    try:
        with transaction.atomic():
            deliver_notification.enqueue(job=job_to_task(job))
    except Exception:
        if transaction_doomed():
            raise
        logger.exception("Could not queue the %s notification", event)


def run_queued() -> None:
    """Run every committed queued notification in this process and thread, then return: what
    ``manage.py db_worker --batch`` does, without its signal handlers (tests, one-off catch-up)."""
    from django_tasks_db.management.commands.db_worker import Worker

    requeue_orphans()
    Worker(queue_names=[deliver_notification.queue_name], interval=0, batch=True,
           backend_name=deliver_notification.backend, startup_delay=False, max_tasks=None,
           worker_id="in-process", excluded_queue_names=[]).run()


def build_test_text(config: WebhookConfig) -> str:
    """Reference §10.6's texts."""
    return f"Oh hai! It looks like your {config.app_name} integration with Snipe-IT is working!"


def send_test_message(config: WebhookConfig) -> DeliveryResult:
    """Post the test message now (the admin's action and ``send_test_webhook``) and record the attempt."""
    if not config.enabled:
        return DeliveryResult(False, error="No webhook endpoint is configured.")
    return deliver(make_job(TEST_EVENT, config, build_test_text(config), sample_details()))


def outcome_of_test_message(config: WebhookConfig, result: DeliveryResult) -> str:
    """What a person is told of a test message (the admin's button, ``POST /settings/slacktest``): success, or
    ``failed: <status>/<error class>`` and nothing more. The endpoint may point anywhere the server can reach, so the
    answer's body and the exception text are never shown: they would tell internal services and ports apart
    (CVE-2026-114064). The full reason is in the server log."""
    if result.success:
        return f"Your {config.app_name} integration works! The endpoint answered {result.status_code}."
    if not config.enabled:
        return "No webhook endpoint is configured."
    if result.error == "InvalidConfiguration":
        return "The test message was not sent: " + " ".join(config.errors())
    return f"The test message to the {config.app_name} endpoint failed: {result.reason}"


def sample_details() -> dict[str, Any]:
    """The general kind's machine-readable keys of the test message: ``event`` = ``test``, nothing changed, so no
    actor, item, target or note (API-CONTRACT.md §8a: the same keys as an event's)."""
    return {"event": TEST_EVENT, "occurred_at": timezone.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "actor": None, "item": None, "target": None, "note": None}
