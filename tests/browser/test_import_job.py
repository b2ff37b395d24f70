"""A large CSV import in the admin as an administrator sees it (issue 25 item 23): the upload hands the file to the
task worker, the job page shows the progress and reloads itself, then the preview's counts and errors with the
confirmation, then the import's outcome; at desktop and at phone width. The worker is django-tasks-db's own (run
in the test's thread as ``db_worker --batch`` runs it: the live server commits the job and its task)."""

from __future__ import annotations

import csv
import os

import pytest
from django.urls import reverse
from django_tasks_db.management.commands.db_worker import Worker

from inventory.models import Asset, ImportJob
from tests.browser.helpers import expect

ASSETS = reverse("admin:inventory_asset_changelist")
SHOTS = os.environ.get("IMPORT_JOB_SHOTS", "")


def run_worker() -> None:
    Worker(queue_names=["default"], interval=0, batch=True, backend_name="default", startup_delay=False,
           max_tasks=None, worker_id="browser", excluded_queue_names=[]).run()


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_a_large_import_runs_in_the_worker_with_its_progress_page(admin_page, tmp_path, settings, width):
    settings.CSV_IMPORT_TASK_ROWS = 10
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")
    admin_page.set_viewport_size({"width": width, "height": 800})
    path = tmp_path / "fleet.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Asset Tag", "Model name", "Category", "Status", "Purchase Date"])
        for n in range(40):
            writer.writerow([f"BIG-{n:03}", "Latitude 5440", "Laptops", "Ready to Deploy", "2026-01-15"])
        writer.writerow(["BIG-BAD", "Latitude 5440", "Laptops", "Ready to Deploy", "yesterday"])
    admin_page.goto(ASSETS)
    admin_page.click(".object-tools a:text-is('Import CSV')")
    admin_page.set_input_files("input[type=file]", str(path))
    admin_page.click("input[type=submit][value='Preview']")

    expect(admin_page.locator("#import-status")).to_contain_text("waiting for the task worker")
    expect(admin_page.locator("#import-progress")).to_be_visible()
    shot(admin_page, f"queued-{width}")
    assert ImportJob.objects.get().dry_run and not Asset.objects.exists()

    run_worker()  # the page reloads itself every 2 s
    expect(admin_page.locator("#import-summary")).to_contain_text(
        "Preview: 41 rows: 40 would be created, 0 would be updated, 0 skipped, 1 failed.", timeout=8000)
    expect(admin_page.locator("#import-errors")).to_contain_text("line 42, column Purchase Date:")
    shot(admin_page, f"preview-{width}")
    admin_page.click("input[type=submit][value='Confirm import']")
    expect(admin_page.locator("#import-status")).to_contain_text("Importing")

    run_worker()
    expect(admin_page.locator("#import-summary")).to_contain_text("Import done: 41 rows: 40 created", timeout=8000)
    shot(admin_page, f"done-{width}")
    assert Asset.objects.filter(asset_tag__startswith="BIG-").count() == 40
    assert admin_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways scroll
