"""What every inventory model shares: timestamps, the shape of a row of units handed out, and the limits
several models check."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models

USER_MODEL = settings.AUTH_USER_MODEL
#: Largest accepted warranty: 100 years (Snipe-IT's digits_between:0,240 only limits the digit count).
MAX_WARRANTY_MONTHS = 1200
#: ``purchase_cost`` is Decimal(13, 2) in the database.
MAX_PURCHASE_COST = Decimal("99999999999.99")


class TimestampedModel(models.Model):
    created_by = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class AssignmentRow(models.Model):
    """What every row of units handed out shares (accessory checkouts, consumable handouts, component
    installations): its units, the checkout's note, who made it and when. Each kind adds the item and its target."""

    assigned_qty = models.PositiveIntegerField(default=1)
    note = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
