"""The catalogue around assets: status labels, categories, manufacturers, suppliers, locations and asset models."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

from inventory.choices import CategoryType, StatusType
from inventory.models.base import USER_MODEL, TimestampedModel


class StatusLabel(TimestampedModel):
    """What state an asset is in: deployable (can be checked out), pending, undeployable or archived."""

    name = models.CharField(max_length=255)
    type = models.CharField(max_length=16, choices=StatusType.choices, default=StatusType.DEPLOYABLE)
    color = models.CharField(max_length=10, null=True, blank=True)
    show_in_nav = models.BooleanField(default=False)
    default_label = models.BooleanField(default=False)
    notes = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="statuslabel_name_ci_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_deployable(self) -> bool:
        return self.type == StatusType.DEPLOYABLE


class Category(TimestampedModel):
    """Groups asset models (and accessories, consumables, components, licenses) by kind of item."""

    name = models.CharField(max_length=255)
    category_type = models.CharField(max_length=16, choices=CategoryType.choices, default=CategoryType.ASSET)
    eula_text = models.TextField(blank=True, default="")
    use_default_eula = models.BooleanField(default=False)
    require_acceptance = models.BooleanField(default=False)
    checkin_email = models.BooleanField(default=False)
    notes = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["name", "id"]
        verbose_name_plural = "categories"
        constraints = [models.UniqueConstraint(Lower("name"), "category_type", name="category_name_type_ci_unique")]

    def __str__(self) -> str:
        return self.name


class Manufacturer(TimestampedModel):
    """Who makes asset models."""

    name = models.CharField(max_length=255)
    url = models.CharField(max_length=2000, blank=True, default="")
    support_url = models.CharField(max_length=2000, blank=True, default="")
    warranty_lookup_url = models.CharField(max_length=2000, blank=True, default="")
    support_phone = models.CharField(max_length=50, blank=True, default="")
    support_email = models.CharField(max_length=191, blank=True, default="")
    notes = models.TextField(blank=True, default="")
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"), condition=models.Q(deleted_at__isnull=True), name="manufacturer_name_ci_unique_alive"
            )
        ]

    def __str__(self) -> str:
        return self.name


class Supplier(TimestampedModel):
    """Who assets are bought from."""

    name = models.CharField(max_length=255)
    address = models.CharField(max_length=255, blank=True, default="")
    address2 = models.CharField(max_length=255, blank=True, default="")
    city = models.CharField(max_length=255, blank=True, default="")
    state = models.CharField(max_length=255, blank=True, default="")
    country = models.CharField(max_length=255, blank=True, default="")
    zip = models.CharField(max_length=20, blank=True, default="")
    phone = models.CharField(max_length=35, blank=True, default="")
    fax = models.CharField(max_length=35, blank=True, default="")
    email = models.CharField(max_length=150, blank=True, default="")
    contact = models.CharField(max_length=255, blank=True, default="")
    url = models.CharField(max_length=2000, blank=True, default="")
    notes = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="supplier_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class Location(TimestampedModel):
    """A place assets sit at or return to; locations nest through ``parent``."""

    name = models.CharField(max_length=255)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    manager = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="locations")
    address = models.CharField(max_length=255, blank=True, default="")
    address2 = models.CharField(max_length=255, blank=True, default="")
    city = models.CharField(max_length=255, blank=True, default="")
    state = models.CharField(max_length=255, blank=True, default="")
    country = models.CharField(max_length=255, blank=True, default="")
    zip = models.CharField(max_length=20, blank=True, default="")
    phone = models.CharField(max_length=35, blank=True, default="")
    fax = models.CharField(max_length=35, blank=True, default="")
    currency = models.CharField(max_length=10, blank=True, default="")
    ldap_ou = models.CharField(max_length=255, blank=True, default="")
    notes = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="location_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class Depreciation(TimestampedModel):
    """How an asset model's assets lose value: straight down over ``months`` from their purchase to a floor
    (``depreciation_min``, an amount or a percent of the cost). Snipe-IT's ``depreciations``."""

    class Type(models.TextChoices):
        AMOUNT = "amount", "amount"
        PERCENT = "percent", "percent"

    name = models.CharField(max_length=255)
    months = models.PositiveIntegerField()
    depreciation_min = models.DecimalField(max_digits=13, decimal_places=2, default=0)
    depreciation_type = models.CharField(max_length=10, choices=Type.choices, default=Type.AMOUNT)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="depreciation_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class AssetModel(TimestampedModel):
    """A make and model of hardware (e.g. "MacBook Pro 14"); every asset is one of these."""

    name = models.CharField(max_length=255)
    model_number = models.CharField(max_length=255, blank=True, default="")
    manufacturer = models.ForeignKey(Manufacturer, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="models")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="models")
    min_amt = models.PositiveIntegerField(null=True, blank=True)
    eol = models.PositiveIntegerField(null=True, blank=True, help_text="End of life, in months")
    requestable = models.BooleanField(default=False)
    notes = models.TextField(blank=True, default="")
    #: How its assets lose value (their book value); a depreciation in use cannot be deleted.
    depreciation = models.ForeignKey(Depreciation, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="models")
    #: The custom fields its assets carry (docs/custom-fields.md); a fieldset in use cannot be deleted.
    fieldset = models.ForeignKey("CustomFieldset", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="models")
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"), Lower("model_number"), condition=models.Q(deleted_at__isnull=True),
                name="assetmodel_name_number_ci_unique_alive",
            )
        ]

    def __str__(self) -> str:
        return self.name
