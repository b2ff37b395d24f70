"""The admin's large CSV imports, run by the task worker (issue 25; docs/import-export.md, "Large files").

A file of more than ``CSV_IMPORT_TASK_ROWS`` rows is not imported in the admin's request: the admin writes an
:class:`~inventory.models.ImportJob` row and enqueues :func:`run_csv_import` (django-tasks, the database backend) in
one transaction, and ``manage.py db_worker`` runs it: the dry run of the preview, then (once confirmed) the import,
through the same importer as the command and the small files (``inventory.transfer.import_assets.import_csv``). The job
row
holds the progress (rows done of the total, written after every batch of 500 rows, so the page polls it) and, at
the end, the counts, the errors and the notes. The task's dotted path ``inventory.import_tasks.run_csv_import`` is
stored in the task rows: keep it.
"""

from __future__ import annotations

import logging
import os
import uuid
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.utils import timezone
from django_tasks import task

from assetsvc.request_meta import reset_request_meta, set_request_meta
from inventory.models import ImportJob
from inventory.transfer.columns import CsvFileError
from inventory.transfer.import_assets import import_csv

logger = logging.getLogger("inventory.import_tasks")

#: The action source of the rows an admin import logs (as ``admin_csv.IMPORT_SOURCE``).
IMPORT_SOURCE = "importer"
#: Errors and notes a finished job keeps for its page (the counts are exact; the command lists every error).
KEPT_LINES = 1000


def start_job(*, kind: str, user: Any, path: str, update: bool, dry_run: bool, remote_ip: str = "",
              user_agent: str = "") -> ImportJob:
    """The job row and its task, committed together (a rolled-back caller enqueues nothing)."""
    with transaction.atomic():
        job = ImportJob.objects.create(id=uuid.uuid4(), kind=kind, user=user, file=str(path), update=update,
                                       dry_run=dry_run, remote_ip=remote_ip, user_agent=user_agent)
        run_csv_import.enqueue(job_id=str(job.pk))
    return job


class _Reporter:
    """Writes a job's progress where the page sees it at once. An import commits batch by batch, so its own
    connection does; a dry run is one transaction rolled back at the end, so on PostgreSQL a second connection of
    its own writes it (autocommit). SQLite has one writer at a time: a dry run's progress shows at its end there."""

    def __init__(self, job_id: Any) -> None:
        self.job_id, self.side = job_id, None

    def __call__(self, done: int, total: int) -> None:
        if not connection.in_atomic_block:
            ImportJob.objects.filter(pk=self.job_id).update(done=done, total=total)
            return
        if connection.vendor != "postgresql":
            return
        if self.side is None:
            own = connections[DEFAULT_DB_ALIAS]
            self.side = type(own)(dict(own.settings_dict), DEFAULT_DB_ALIAS)
        with self.side.cursor() as cursor:
            cursor.execute(f"UPDATE {ImportJob._meta.db_table} SET done = %s, total = %s WHERE id = %s",
                           [done, total, self.job_id])

    def close(self) -> None:
        if self.side is not None:
            self.side.close()


@task()
def run_csv_import(job_id: str) -> str:
    """Run one :class:`ImportJob` (the worker's task): its dry run or import, progress on the row, the outcome kept.
    The uploaded file is deleted after the import (a dry run keeps it for the confirmation)."""
    job = ImportJob.objects.select_related("user").get(pk=job_id)
    if job.finished:
        return job.status
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING)
    token = set_request_meta(remote_ip=job.remote_ip, user_agent=job.user_agent, action_source=IMPORT_SOURCE)
    outcome: dict[str, Any] = {}
    status = ImportJob.Status.FAILED
    reporter = _Reporter(job.pk)
    total = None
    try:
        with open(job.file, "rb") as stream:
            result = import_csv(job.kind, stream, actor=job.user, update=job.update, dry_run=job.dry_run,
                                report=reporter)
        total = result.total
    except (CsvFileError, OSError) as exc:
        status, summary = ImportJob.Status.FAILED, str(exc) if isinstance(exc, CsvFileError) else \
            "The uploaded file is no longer there; upload it again."
    except Exception:
        logger.exception("CSV import job %s failed", job.pk)
        status, summary = ImportJob.Status.FAILED, "The import stopped on an unexpected error; see the server log."
    else:
        status, summary = ImportJob.Status.DONE, result.summary()
        outcome = {"failed": result.failed, "errors": result.errors[:KEPT_LINES], "more_errors":
                   max(0, len(result.errors) - KEPT_LINES), "notes": result.notes[:KEPT_LINES],
                   "ignored_columns": result.ignored_columns}
    finally:
        reporter.close()
        reset_request_meta(token)
        if not job.dry_run or status == ImportJob.Status.FAILED:
            try:
                os.unlink(job.file)
            except OSError:
                pass
    done = {"done": total, "total": total} if total is not None else {}
    ImportJob.objects.filter(pk=job.pk).update(status=status, summary=summary, result=outcome,
                                               finished_at=timezone.now(), **done)
    return status
