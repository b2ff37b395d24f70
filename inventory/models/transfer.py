"""CSV import jobs handed to the task worker."""

from __future__ import annotations

from django.db import models

from inventory.models.base import USER_MODEL


class ImportJob(models.Model):
    """A CSV import the admin hands to the task worker (a file of more than ``CSV_IMPORT_TASK_ROWS`` rows; issue 25):
    its dry run (the preview) or the import itself, its progress (rows done of the total, written after each batch)
    and, once finished, its counts, errors and notes, shown by the admin's job page. Only its user sees it."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True)
    kind = models.CharField(max_length=20)
    user = models.ForeignKey(USER_MODEL, on_delete=models.CASCADE, related_name="+")
    #: The kept upload (a random name in ``CSV_IMPORT_DIR``).
    file = models.CharField(max_length=255)
    update = models.BooleanField(default=False)
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True, default="")
    result = models.JSONField(default=dict, blank=True)
    remote_ip = models.CharField(max_length=45, blank=True, default="")
    user_agent = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{'dry run' if self.dry_run else 'import'} of {self.kind}s {self.pk}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def percent(self) -> int:
        return 100 if self.finished else (self.done * 100 // self.total if self.total else 0)


class ImportFile(models.Model):
    """A CSV file uploaded through ``POST /imports`` (Snipe-IT's ``imports`` table), waiting to be processed by
    ``POST /imports/process/{id}``: where it is kept (a random name under the import directory), what it was
    called, its header and first row (for a client that maps columns), and, once processed, its type and the
    column mapping used. Only its uploader (and super users) see it."""

    name = models.CharField(max_length=255)
    #: The kept file's name inside ``inventory.transfer.uploads.api_upload_dir()``.
    file_path = models.CharField(max_length=255)
    filesize = models.PositiveBigIntegerField(default=0)
    import_type = models.CharField(max_length=20, blank=True, default="")
    header_row = models.JSONField(default=list, blank=True)
    first_row = models.JSONField(default=list, blank=True)
    field_map = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name
