"""Issue 25 item 23: an admin CSV import of a large file runs in the task worker, with its progress on a page.

Through the admin (the test admin site of ``test_admin_csv``): the upload of a file above ``CSV_IMPORT_TASK_ROWS``
answers a redirect to the job page instead of previewing in the request; the worker (django-tasks-db's own worker
code, run in this thread as ``manage.py db_worker --batch`` runs it) does the dry run, the page shows it and offers the
confirmation, which queues the import as a second job. ``transactional_db``: a worker runs committed tasks only."""

from __future__ import annotations

from pathlib import Path

import pytest
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from activity.models import ActionLog
from inventory.models import Asset, ImportJob
from tests.inventory.transfer.test_admin import asset_row, csv_file

pytestmark = [pytest.mark.urls("tests.inventory.transfer.csv_admin_site"), pytest.mark.django_db(transaction=True)]
IMPORT = "/csvadmin/inventory/asset/import/"


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture(autouse=True)
def _settings(settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")
    settings.CSV_IMPORT_TASK_ROWS = 3


def run_worker() -> None:
    Worker(queue_names=["default"], interval=0, batch=True, backend_name="default", startup_delay=False,
           max_tasks=None, worker_id="test", excluded_queue_names=[]).run()


def rows():
    return [asset_row(f"JOB-{n}") for n in range(1, 6)] + [asset_row("JOB-BAD", **{"Purchase Date": "yesterday"})]


def test_a_large_file_is_previewed_and_imported_by_the_worker_with_progress_on_the_page(admin_client, superuser):
    answer = admin_client.post(IMPORT, {"file": csv_file(rows())})
    assert answer.status_code == 302, answer.content[:300]
    preview = ImportJob.objects.get()
    assert answer["Location"] == f"{IMPORT}job/{preview.pk}/"
    assert (preview.dry_run, preview.status, preview.user_id) == (True, "queued", superuser.pk)
    task = DBTaskResult.objects.get()
    assert task.task_path == "inventory.import_tasks.run_csv_import" and task.args_kwargs["kwargs"] == {
        "job_id": str(preview.pk)}

    page = admin_client.get(answer["Location"])
    assert page.status_code == 200
    assert b'<meta http-equiv="refresh" content="2">' in page.content
    assert b"waiting for the task worker" in page.content and b"counted when the worker starts" in page.content

    run_worker()
    preview.refresh_from_db()
    assert (preview.status, preview.done, preview.total) == ("done", 6, 6)
    assert not Asset.objects.exists()  # a dry run
    page = admin_client.get(answer["Location"]).content.decode()
    assert 'http-equiv="refresh"' not in page
    assert "Preview: 6 rows: 5 would be created, 0 would be updated, 0 skipped, 1 failed." in page
    assert "line 7, column Purchase Date:" in page and 'value="Confirm import"' in page
    assert Path(preview.file).exists()

    confirmed = admin_client.post(answer["Location"])
    assert confirmed.status_code == 302
    job = ImportJob.objects.exclude(pk=preview.pk).get()
    assert confirmed["Location"] == f"{IMPORT}job/{job.pk}/" and not job.dry_run
    again = admin_client.post(answer["Location"], follow=True)  # one confirmation only
    assert ImportJob.objects.count() == 2 and b"already confirmed" in again.content
    assert b"Importing" in admin_client.get(confirmed["Location"]).content

    run_worker()
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.summary) == (
        "done", 6, 6, "6 rows: 5 created, 0 updated, 0 skipped, 1 failed.")
    assert sorted(Asset.objects.values_list("asset_tag", flat=True)) == [f"JOB-{n}" for n in range(1, 6)]
    assert set(ActionLog.objects.filter(item_type="asset").values_list("action_source", flat=True)) == {"importer"}
    assert not Path(job.file).exists()
    page = admin_client.get(confirmed["Location"]).content.decode()
    assert "Import done: 6 rows: 5 created" in page and "line 7, column Purchase Date:" in page


def test_a_small_file_is_still_previewed_in_the_request(admin_client):
    answer = admin_client.post(IMPORT, {"file": csv_file(rows()[:2])})
    assert answer.status_code == 200 and b"Confirm import" in answer.content
    assert not ImportJob.objects.exists() and not DBTaskResult.objects.exists()


def test_another_users_job_is_not_found(admin_client, client, superuser):
    from tests.factories import UserFactory

    answer = admin_client.post(IMPORT, {"file": csv_file(rows())})
    other = UserFactory(superuser=True)
    client.force_login(other)
    assert client.get(answer["Location"]).status_code == 404
    assert client.post(answer["Location"]).status_code == 404
    assert ImportJob.objects.count() == 1


@pytest.mark.postgres
def test_a_dry_runs_progress_is_seen_outside_its_transaction(superuser, tmp_path):
    """PostgreSQL: a dry run is one transaction rolled back at its end; its progress is written beside it."""
    import threading
    import uuid

    from django.db import transaction

    from inventory.import_tasks import _Reporter

    job = ImportJob.objects.create(id=uuid.uuid4(), kind="asset", user=superuser, file=str(tmp_path / "x.csv"),
                                   dry_run=True)
    seen = []
    reporter = _Reporter(job.pk)
    with transaction.atomic():
        reporter(500, 30000)

        def look():
            seen.append(ImportJob.objects.values_list("done", "total").get(pk=job.pk))
            from django.db import connection

            connection.close()

        thread = threading.Thread(target=look)
        thread.start()
        thread.join()
        transaction.set_rollback(True)
    reporter.close()
    assert seen == [(500, 30000)]
