"""Predefined kits: a named list of what one person gets (Snipe-IT's ``kits`` and its four pivot tables), checked
out to a user in one go (``inventory.services.kits``)."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

from inventory.models.base import TimestampedModel
from inventory.models.catalogue import AssetModel
from inventory.models.licenses import License
from inventory.models.stock import Accessory, Consumable


class Kit(TimestampedModel):
    """A predefined kit. Kits are shared (no company, as in Snipe-IT): what a company-limited caller sees of one is
    filtered line by line (``inventory.services.kits.visible_lines``)."""

    name = models.CharField(max_length=255)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="kit_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class KitLine(models.Model):
    """What every line of a kit shares: its kit, how many units, timestamps. Each kind adds its item (``item``
    names the field); an item is on a kit at most once."""

    item_field = "item"
    kit = models.ForeignKey(Kit, on_delete=models.CASCADE)
    quantity = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.kit_id}: {self.quantity} x {self.item}"

    @property
    def item(self) -> models.Model:
        return getattr(self, self.item_field)


class KitModel(KitLine):
    """Assets of one model on a kit (``kits_models``)."""

    item_field = "model"
    model = models.ForeignKey(AssetModel, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["kit", "model"], name="kitmodel_unique")]

    def __str__(self) -> str:
        return f"{self.kit_id}: {self.quantity} x {self.item}"


class KitLicense(KitLine):
    """Seats of one license on a kit (``kits_licenses``)."""

    item_field = "license"
    license = models.ForeignKey(License, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["kit", "license"], name="kitlicense_unique")]

    def __str__(self) -> str:
        return f"{self.kit_id}: {self.quantity} x {self.item}"


class KitAccessory(KitLine):
    """Units of one accessory on a kit (``kits_accessories``)."""

    item_field = "accessory"
    accessory = models.ForeignKey(Accessory, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["kit", "accessory"], name="kitaccessory_unique")]

    def __str__(self) -> str:
        return f"{self.kit_id}: {self.quantity} x {self.item}"


class KitConsumable(KitLine):
    """Units of one consumable on a kit (``kits_consumables``)."""

    item_field = "consumable"
    consumable = models.ForeignKey(Consumable, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["kit", "consumable"], name="kitconsumable_unique")]

    def __str__(self) -> str:
        return f"{self.kit_id}: {self.quantity} x {self.item}"
