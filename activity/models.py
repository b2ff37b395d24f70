"""The action log: one row per domain verb (create, update, delete, restore, checkout, checkin, audit) of every
app, written in the same transaction as the change it records (``activity.services.log_action``).

References to the item, the target, the location and the company are by id or by lazy model label, so this app
imports none of the apps above it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from activity.choices import ActionType
from assetsvc.scoping import ScopedQuerySet


class ActionLogQuerySet(ScopedQuerySet):
    """Rows are scoped by the company of the item they record (``assetsvc.scoping``)."""

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
    target_type = models.CharField(max_length=32, blank=True, default="")
    target_id = models.BigIntegerField(null=True, blank=True)
    location = models.ForeignKey("inventory.Location", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.SET_NULL,
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
