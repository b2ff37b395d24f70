"""Delivery of notifications: after the transaction commits, off the request path, bounded in time and memory.

* :func:`schedule` (called by the receivers inside the service's transaction) builds the whole job at once (text,
  body, endpoint) and registers it with ``transaction.on_commit``: rolled-back work never notifies, and the worker
  never reads inventory rows.
* The commit hands the job to :class:`Dispatcher`: a bounded queue served by a few daemon threads, started lazily in
  each process (so after a gunicorn fork too). Handing over never blocks: when the queue is full the notification is
  dropped and the drop is logged and recorded (a chat outage must not grow memory without bound).
* :func:`deliver` makes one attempt: ``requests.post`` with ``timeout=WEBHOOK_TIMEOUT`` (connect and each read),
  ``allow_redirects=False`` and ``stream=True`` (the answer's body is never read), then writes one
  :class:`~notifications.models.WebhookDelivery` row. A 2xx answer is a success; anything else is logged with the
  endpoint and status and not retried (specification, Events / Delivery).
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import requests
from django.db import OperationalError, close_old_connections, connection, transaction

from assetsvc.conf import app_settings
from notifications import formatters
from notifications.events import TEST_EVENT

if TYPE_CHECKING:
    from notifications.config import WebhookConfig

logger = logging.getLogger("notifications.delivery")

USER_AGENT = "assetsvc-webhook/1"
#: Notifications waiting for a worker; beyond this a notification is dropped (and the drop recorded).
QUEUE_SIZE = 1000
#: Concurrent deliveries per process.
WORKERS = 2
#: Seconds a worker keeps trying to write one delivery-log row while the database is locked (SQLite only).
RECORD_PATIENCE = 15.0


@dataclass(frozen=True)
class Job:
    """One notification to post. ``invalid`` is set when the configuration forbids sending it at all."""

    event: str
    platform: str
    endpoint: str
    body: dict[str, Any]
    invalid: str = ""
    deprecated_endpoint: bool = False


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


def make_job(event: str, config: WebhookConfig, text: str) -> Job:
    errors = config.errors()
    body = {} if errors else formatters.build_body(
        config.platform, text, channel=config.effective_channel, username=config.effective_botname
    )
    return Job(
        event=event,
        platform=config.platform,
        endpoint=config.endpoint,
        body=body,
        invalid=" ".join(errors),
        deprecated_endpoint=bool(config.warnings()),
    )


def post(job: Job) -> DeliveryResult:
    """One HTTP attempt, no database access."""
    if job.invalid:
        return DeliveryResult(False, error="InvalidConfiguration", detail=job.invalid)
    if job.deprecated_endpoint:
        logger.warning("DEPRECATED webhook endpoint %s: a card-based (Microsoft Teams) endpoint without the "
                       "'workflows' path segment is the deprecated connector form", redact(job.endpoint))
    started = time.monotonic()
    try:
        response = requests.post(
            job.endpoint,
            json=job.body,
            headers={"Content-Type": "application/json", "User-Agent": USER_AGENT},
            timeout=app_settings.WEBHOOK_TIMEOUT,
            allow_redirects=False,
            stream=True,
        )
    except requests.RequestException as exc:
        latency = int((time.monotonic() - started) * 1000)
        detail = _scrub(str(exc), job.endpoint)
        return DeliveryResult(False, latency_ms=latency, error=type(exc).__name__, detail=detail)
    latency = int((time.monotonic() - started) * 1000)
    status = response.status_code
    response.close()
    if 200 <= status < 300:
        return DeliveryResult(True, status_code=status, latency_ms=latency)
    error = f"HTTP {status}" + (" redirect not followed" if 300 <= status < 400 else "")
    return DeliveryResult(False, status_code=status, latency_ms=latency, error=error)


def record(job: Job, result: DeliveryResult, *, patience: float = RECORD_PATIENCE) -> None:
    """Write the delivery-log row and the server-log line; never raises (the worker must survive).

    ``patience``: seconds to keep trying while the database is locked; 0 on the request path."""
    from notifications.models import WebhookDelivery

    if not result.success:
        logger.warning("Webhook delivery failed (not retried): event=%s endpoint=%s status=%s error=%s %s",
                       job.event, redact(job.endpoint), result.status_code, result.error, result.detail)
    row = WebhookDelivery(
        event=job.event,
        platform=job.platform,
        endpoint=job.endpoint[:2000],
        request_body=job.body or None,
        success=result.success,
        status_code=result.status_code,
        latency_ms=result.latency_ms,
        error=result.error[:255],
    )
    deadline = time.monotonic() + patience
    attempt = 0
    while True:
        try:
            row.save(force_insert=True)
            return
        except OperationalError as exc:
            # SQLite answers "database table is locked" at once to a second writer in shared-cache mode (the
            # in-memory test database) instead of waiting: wait a little and write again (the row, never the
            # delivery). Only the worker waits.
            problem: Exception = exc
            if time.monotonic() >= deadline:
                break
            time.sleep(min(0.02 * 2**attempt, 0.25))
            attempt += 1
        except Exception as exc:
            problem = exc
            break
    logger.error("Could not record the webhook delivery of event %s", job.event, exc_info=problem)


def deliver(job: Job) -> DeliveryResult:
    result = post(job)
    record(job, result)
    return result


class Dispatcher:
    """A bounded queue and ``workers`` daemon threads, started on first use in each process."""

    def __init__(self, *, workers: int = WORKERS, maxsize: int = QUEUE_SIZE) -> None:
        self.workers = workers
        self.maxsize = maxsize
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._pending = 0
        self._queue: queue.Queue[Job] | None = None
        self._pid: int | None = None

    def _ensure_started(self) -> queue.Queue[Job]:
        with self._lock:
            if self._pid != os.getpid() or self._queue is None:
                # First use, or first use after a fork (threads do not survive fork): start afresh.
                self._queue = queue.Queue(maxsize=self.maxsize)
                self._pending = 0
                self._pid = os.getpid()
                for number in range(self.workers):
                    threading.Thread(target=self._run, args=(self._queue,), name=f"webhook-delivery-{number}",
                                     daemon=True).start()
            return self._queue

    def submit(self, job: Job) -> bool:
        """Hand ``job`` to a worker without blocking; ``False`` (and a recorded drop) when the queue is full."""
        jobs = self._ensure_started()
        with self._lock:
            self._pending += 1
        try:
            jobs.put_nowait(job)
        except queue.Full:
            self._done()
            # Recorded by the committing thread itself (one INSERT, no waiting for a locked database).
            record(job, DeliveryResult(False, error="QueueFull", detail=f"{self.maxsize} notifications waiting; "
                                                                       "dropped without an attempt"), patience=0)
            return False
        return True

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1
            if self._pending <= 0:
                self._idle.notify_all()

    def _run(self, jobs: queue.Queue[Job]) -> None:
        while True:
            job = jobs.get()
            try:
                close_old_connections()
                deliver(job)
            except Exception:
                logger.exception("Webhook worker error on event %s", job.event)
            finally:
                # Never keep a connection open in an idle worker (it would hold a PostgreSQL slot, or block a
                # test database from being dropped).
                connection.close()
                self._done()

    def wait_for_idle(self, timeout: float) -> bool:
        """Wait until every submitted job was delivered or dropped; ``False`` if ``timeout`` seconds ran out."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True


_dispatcher = Dispatcher()


def get_dispatcher() -> Dispatcher:
    return _dispatcher


def wait_for_idle(timeout: float = 10.0) -> bool:
    """For tests and shutdown: wait until the queue is empty and no delivery is in flight."""
    return get_dispatcher().wait_for_idle(timeout)


def schedule(event: str, config: WebhookConfig, text: str) -> None:
    """Queue ``text`` for delivery once the current transaction commits (at once outside a transaction)."""
    job = make_job(event, config, text)

    def submit() -> None:
        get_dispatcher().submit(job)

    # robust: a failure to hand over is logged by Django and never breaks the request that committed.
    transaction.on_commit(submit, robust=True)


def build_test_text(config: WebhookConfig) -> str:
    """Reference §10.6's texts."""
    return f"Oh hai! It looks like your {config.app_name} integration with Snipe-IT is working!"


def send_test_message(config: WebhookConfig) -> DeliveryResult:
    """Post the test message now (the admin's action and ``send_test_webhook``) and record the attempt."""
    if not config.enabled:
        return DeliveryResult(False, error="No webhook endpoint is configured.")
    return deliver(make_job(TEST_EVENT, config, build_test_text(config)))


@atexit.register
def _drain_on_exit() -> None:
    # Give queued notifications a bounded chance to go out when the process stops (gunicorn worker restart).
    if _dispatcher._queue is not None and _dispatcher._pid == os.getpid():
        _dispatcher.wait_for_idle(min(float(app_settings.WEBHOOK_TIMEOUT) + 1, 10.0))
