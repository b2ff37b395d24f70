"""``Widget``: a company-scoped item with a quantity; ``WidgetCheckout``: one row per checkout, with its units."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from companies.querysets import CompanyScopedQuerySet


class Widget(models.Model):
    """A stock of identical units (like an accessory)."""

    name = models.CharField(max_length=255)
    qty = models.PositiveIntegerField(default=1)
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="+")
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects = CompanyScopedQuerySet.as_manager()

    def __str__(self) -> str:
        return self.name


class WidgetCheckout(models.Model):
    """Units of a widget handed to a user, an asset or a location."""

    widget = models.ForeignKey(Widget, on_delete=models.CASCADE, related_name="checkouts")
    assigned_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+")
    assigned_asset = models.ForeignKey("inventory.Asset", null=True, on_delete=models.CASCADE, related_name="+")
    assigned_location = models.ForeignKey("inventory.Location", null=True, on_delete=models.CASCADE,
                                          related_name="+")
    assigned_qty = models.PositiveIntegerField()
    note = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return f"{self.assigned_qty} x {self.widget_id}"
