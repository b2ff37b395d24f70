"""Licenses and their seats, one row per seat."""

from __future__ import annotations

from django.db import models

from companies.models import CompanyScopedModel
from companies.querysets import CompanyScopedQuerySet
from inventory.models.assets import Asset
from inventory.models.base import USER_MODEL, TimestampedModel
from inventory.models.catalogue import Category, Manufacturer, Supplier
from inventory.models.stock import StockQuerySet


class License(CompanyScopedModel, TimestampedModel):
    """Software with a number of seats; each seat is assigned to a user or to an asset, or free. ``serial`` is the
    product key: a secret shown only to callers allowed to see it (API-CONTRACT.md §10)."""

    name = models.CharField(max_length=255)
    serial = models.TextField(blank=True, default="")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="+")
    manufacturer = models.ForeignKey(Manufacturer, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    supplier = models.ForeignKey(Supplier, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    seats = models.PositiveIntegerField(default=1)
    license_name = models.CharField(max_length=100, blank=True, default="")
    license_email = models.CharField(max_length=120, blank=True, default="")
    reassignable = models.BooleanField(default=True)
    maintained = models.BooleanField(default=False)
    expiration_date = models.DateField(null=True, blank=True)
    termination_date = models.DateField(null=True, blank=True)
    purchase_order = models.CharField(max_length=255, blank=True, default="")
    order_number = models.CharField(max_length=255, blank=True, default="")
    purchase_date = models.DateField(null=True, blank=True)
    purchase_cost = models.DecimalField(max_digits=13, decimal_places=2, null=True, blank=True)
    min_amt = models.PositiveIntegerField(null=True, blank=True)
    notes = models.TextField(blank=True, default="")
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects = StockQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["deleted_at", "created_at"], name="license_alive_created_idx"),
                   models.Index(fields=["company"], condition=models.Q(deleted_at__isnull=True),
                                name="license_alive_company_idx"),
                   models.Index(fields=["name"], name="license_name_idx"),
                   models.Index(fields=["expiration_date"], name="license_expiration_idx")]

    def __str__(self) -> str:
        return self.name


class LicenseSeatQuerySet(CompanyScopedQuerySet):
    """Seats are seen through their license's company."""

    company_field = "license__company"

    def free(self) -> LicenseSeatQuerySet:
        return self.filter(assigned_user__isnull=True, assigned_asset__isnull=True)

    def assigned(self) -> LicenseSeatQuerySet:
        return self.exclude(assigned_user__isnull=True, assigned_asset__isnull=True)


class LicenseSeat(models.Model):
    """One seat of a license: free, or assigned to a user or to an asset (never both). A license has exactly
    ``seats`` of them; they stay with a soft-deleted license and come back with it."""

    license = models.ForeignKey(License, on_delete=models.CASCADE, related_name="seat_rows", db_index=False)
    assigned_user = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="license_seats")
    assigned_asset = models.ForeignKey(Asset, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="license_seats")
    notes = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LicenseSeatQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        # Seats of a license in id order (the seats list), and the free-seat count per license without reading rows.
        indexes = [models.Index(fields=["license", "assigned_user", "assigned_asset"], name="licenseseat_item_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(assigned_user__isnull=True) | models.Q(assigned_asset__isnull=True),
                name="licenseseat_one_target",
            ),
        ]

    def __str__(self) -> str:
        return f"Seat {self.pk} of {self.license}"

    @property
    def assigned_target(self):
        return self.assigned_user or self.assigned_asset

    @property
    def is_assigned(self) -> bool:
        return self.assigned_user_id is not None or self.assigned_asset_id is not None
