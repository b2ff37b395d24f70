"""The state of imports from Snipe-IT (issue 31, ``manage.py import_snipeit``; docs/switching-from-snipe-it.md)."""

from __future__ import annotations

from django.db import models


class SnipeitImport(models.Model):
    """One run of ``import_snipeit``: where it read from (the URL only: the token is never stored), when it started
    and finished, what state it ended in, the options it ran with and its closing report (per kind: read, imported,
    skipped, each skipped record with why). ``--resume`` continues the last unfinished run."""

    class State(models.TextChoices):
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"

    source_url = models.CharField(max_length=2000)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    options = models.JSONField(default=dict, blank=True)
    report = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = "Snipe-IT import"

    def __str__(self) -> str:
        return f"import from {self.source_url} ({self.state})"


class SnipeitRecord(models.Model):
    """One record written by an import: its kind (``location``, ``user``...), its id in Snipe-IT and ours. Written
    in the same transaction as the record itself, so a crash leaves either both or neither: ``--resume`` skips the
    kinds and ids found here, ``--merge`` reports the ids that differ, ``--verify`` finds our row of a Snipe-IT id.
    Unique per (kind, Snipe-IT id): a record is never imported twice."""

    run = models.ForeignKey(SnipeitImport, on_delete=models.CASCADE, related_name="records")
    kind = models.CharField(max_length=32)
    snipeit_id = models.BigIntegerField()
    our_id = models.BigIntegerField()
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["kind", "snipeit_id"], name="snipeitrecord_kind_id_unique")]

    def __str__(self) -> str:
        return f"{self.kind} {self.snipeit_id} -> {self.our_id}"
