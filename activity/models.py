"""The action log: one row per domain verb (create, update, delete, restore, checkout, checkin, audit) of every
app, written in the same transaction as the change it records (``activity.services.log_action``).

References to the item, the target, the location and the company are by id or by lazy model label, so this app
imports none of the apps above it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from activity.choices import ActionType
from assetsvc.scoping import ScopedQuerySet, limiting_company_id


class ActionLogQuerySet(ScopedQuerySet):
    """Rows are scoped by the company of the item they record (``assetsvc.scoping``); a caller limited to a company
    also sees the rows whose target was theirs when written (``target_company``: their user or asset received another
    company's item), and the record builders show of those rows only the caller's own parts (issue 25)."""

    def restrict(self, user: Any, action: str = "view") -> ActionLogQuerySet:
        limit = limiting_company_id(user)
        if limit is None:  # not limited (or nobody: the policy answers no rows)
            return super().restrict(user, action)
        return self.filter(models.Q(company_id=limit) | models.Q(target_company_id=limit))

    def for_item(self, item_type: str, item_id: int) -> ActionLogQuerySet:
        return self.filter(models.Q(item_type=item_type, item_id=item_id)
                           | models.Q(target_type=item_type, target_id=item_id))


class ActionLog(models.Model):
    """One row per domain verb (create, update, delete, restore, checkout, checkin, audit), written in the same
    transaction as the change it records."""

    action_type = models.CharField(max_length=32, choices=ActionType.choices)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    item_type = models.CharField(max_length=32)
    item_id = models.BigIntegerField()
    #: The item's name and serial as they were when the row was written (issue 25: a log row shows the item as it was
    #: recorded, never what another company later made of it); null when not recorded. A license's serial (its
    #: product key) is never recorded.
    item_name = models.CharField(max_length=255, null=True, blank=True)
    item_serial = models.CharField(max_length=255, null=True, blank=True)
    target_type = models.CharField(max_length=32, blank=True, default="")
    target_id = models.BigIntegerField(null=True, blank=True)
    location = models.ForeignKey("inventory.Location", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    #: The company the row belongs to: the item's, when it was written.
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+")
    #: The target's company when it was written (a user or an asset); its callers see the row without the item.
    target_company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="+")
    note = models.TextField(blank=True, default="")
    log_meta = models.JSONField(null=True, blank=True)
    expected_checkin = models.DateField(null=True, blank=True)
    action_date = models.DateTimeField()
    action_source = models.CharField(max_length=16, blank=True, default="api")
    remote_ip = models.CharField(max_length=64, blank=True, default="")
    user_agent = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ActionLogQuerySet.as_manager()

    class Meta:
        # The table keeps the name it had in ``inventory`` (moved by migrations that change no table).
        db_table = "inventory_actionlog"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["item_type", "item_id"]),
            models.Index(fields=["target_type", "target_id"]),
            models.Index(fields=["action_type"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.action_type} {self.item_type}#{self.item_id}"


class StoredFileQuerySet(ScopedQuerySet):
    """``restrict`` limits by the company recorded at upload (the admin's list); the API scopes by the record
    instead (its kind's queryset for the caller), so a file follows its record into another company."""

    def for_record(self, item_type: str, item_id: int) -> StoredFileQuerySet:
        return self.filter(item_type=item_type, item_id=item_id)


class StoredFile(models.Model):
    """A file uploaded to a record of any kind (an invoice on an asset, a contract on a license; issue 27), kept in
    the ``files`` storage (a local folder, or an S3-compatible bucket) under ``storage_name``, never at a public URL.

    Keyed like the action log: ``item_type`` + ``item_id`` name the record (a kind of ``activity.files``), and
    ``company`` is the record's company when the file was uploaded. Who may see a file is decided by the record, not
    by this row: the API and the admin find the record through its kind's queryset for the caller first."""

    item_type = models.CharField(max_length=32)
    item_id = models.BigIntegerField()
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+")
    #: The name shown and downloaded under (sanitized: ``activity.files.clean_filename``).
    filename = models.CharField(max_length=255)
    #: Where the bytes are in the ``files`` storage (generated, never derived from the client's name).
    storage_name = models.CharField(max_length=500, unique=True)
    #: Decided from the content (``activity.files.checked_type``), never taken from the client.
    content_type = models.CharField(max_length=127)
    size = models.BigIntegerField()
    note = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = StoredFileQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["item_type", "item_id"])]

    def __str__(self) -> str:
        return self.filename
