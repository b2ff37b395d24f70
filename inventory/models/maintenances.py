"""Maintenances of assets (Snipe-IT's ``AssetMaintenance``): a repair, an upgrade, a calibration... recorded against
one asset, open until it has a completion date."""

from __future__ import annotations

from django.db import models
from django.db.models import Exists, OuterRef
from django.db.models.functions import Cast, Now

from companies.querysets import CompanyScopedQuerySet
from inventory.models.assets import Asset
from inventory.models.base import TimestampedModel
from inventory.models.catalogue import Supplier


class MaintenanceType(models.TextChoices):
    """Snipe-IT's ``AssetMaintenance::getImprovementOptions()`` (English texts, stored as shown)."""

    MAINTENANCE = "Maintenance", "Maintenance"
    REPAIR = "Repair", "Repair"
    UPGRADE = "Upgrade", "Upgrade"
    PAT_TEST = "PAT Test", "PAT Test"
    CALIBRATION = "Calibration", "Calibration"
    SOFTWARE_SUPPORT = "Software Support", "Software Support"
    HARDWARE_SUPPORT = "Hardware Support", "Hardware Support"
    CONFIGURATION_CHANGE = "Configuration Change", "Configuration Change"


class MaintenanceQuerySet(CompanyScopedQuerySet):
    """A maintenance belongs to its asset's company (Snipe-IT's ``CompanyableChildTrait``): separation goes through
    the asset."""

    company_field = "asset__company"

    def alive(self) -> MaintenanceQuerySet:
        return self.filter(deleted_at__isnull=True)

    def in_progress(self) -> MaintenanceQuerySet:
        """Live maintenances that have started (start date today or earlier, by the database's date) and have no
        completion date."""
        return self.alive().filter(completion_date__isnull=True, start_date__lte=Cast(Now(), models.DateField()))


def in_maintenance() -> Exists:
    """Per asset row: true while a maintenance of the asset is in progress (one ``EXISTS`` in the row's own query,
    never a query per row)."""
    return Exists(Maintenance.objects.in_progress().filter(asset_id=OuterRef("pk")))


class Maintenance(TimestampedModel):
    """Work done on an asset: its type, title, supplier, dates and cost. ``asset_maintenance_time`` is the number of
    days from start to completion, set by the services from the two dates (null while open). Soft-deleted, as in
    Snipe-IT."""

    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="maintenances")
    supplier = models.ForeignKey(Supplier, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    asset_maintenance_type = models.CharField(max_length=191, choices=MaintenanceType.choices)
    title = models.CharField(max_length=100)
    is_warranty = models.BooleanField(default=False)
    start_date = models.DateField()
    completion_date = models.DateField(null=True, blank=True)
    asset_maintenance_time = models.PositiveIntegerField(null=True, blank=True, editable=False)
    cost = models.DecimalField(max_digits=13, decimal_places=2, null=True, blank=True)
    notes = models.TextField(blank=True, default="")
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects = MaintenanceQuerySet.as_manager()

    class Meta:
        verbose_name = "asset maintenance"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["deleted_at", "created_at"], name="maintenance_alive_created_idx"),
            # the open maintenances of an asset (the hardware record's in_maintenance, the asset_id filter)
            models.Index(fields=["asset", "completion_date"], condition=models.Q(deleted_at__isnull=True),
                         name="maintenance_alive_asset_idx"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def name(self) -> str:
        """The title, under the name every other record uses (action-log rows, the admin's links)."""
        return self.title
