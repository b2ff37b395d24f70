"""Items handed out by quantity (API-CONTRACT.md §10): accessories, consumables and components, and their rows of
units out."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Coalesce

from companies.models import CompanyScopedModel
from companies.querysets import CompanyScopedQuerySet
from inventory.models.assets import Asset
from inventory.models.base import USER_MODEL, AssignmentRow, TimestampedModel
from inventory.models.catalogue import Category, Location, Manufacturer, Supplier


class StockQuerySet(CompanyScopedQuerySet):
    def alive(self) -> StockQuerySet:
        return self.filter(deleted_at__isnull=True)

    def low_stock(self) -> StockQuerySet:
        """Accessories, consumables or components with a minimum quantity whose remaining units (``qty`` minus the
        units out, annotated ``units_out`` and ``remaining``) are at or below it: the dashboard's, its list filter's
        and the alert digest's one definition."""
        return (self.filter(min_amt__isnull=False).annotate(units_out=units_out(self.model))
                .annotate(remaining=models.F("qty") - models.F("units_out"))
                .filter(remaining__lte=models.F("min_amt")))


class StockItem(CompanyScopedModel, TimestampedModel):
    """What accessories and consumables share: a named stock of ``qty`` identical units of one category, bought
    from a supplier, kept at a location. What is out lives in the kind's assignment rows; ``remaining`` is ``qty``
    minus their units (``inventory.services.checkout.QuantityKind``). The catalogue entries have no reverse accessor
    (``related_name="+"``): their counts and delete guards come from the registries in
    ``inventory.selectors.counts``."""

    name = models.CharField(max_length=255)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="+")
    manufacturer = models.ForeignKey(Manufacturer, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    supplier = models.ForeignKey(Supplier, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    model_number = models.CharField(max_length=255, blank=True, default="")
    order_number = models.CharField(max_length=255, blank=True, default="")
    purchase_date = models.DateField(null=True, blank=True)
    purchase_cost = models.DecimalField(max_digits=13, decimal_places=2, null=True, blank=True)
    qty = models.PositiveIntegerField(default=1)
    min_amt = models.PositiveIntegerField(null=True, blank=True)
    requestable = models.BooleanField(default=False)
    notes = models.TextField(blank=True, default="")
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects = StockQuerySet.as_manager()

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class Accessory(StockItem):
    """Keyboards, docks, cables: units checked out to a user, a location or an asset and checked back in."""

    class Meta(StockItem.Meta):
        verbose_name_plural = "accessories"
        indexes = [models.Index(fields=["deleted_at", "created_at"], name="accessory_alive_created_idx"),
                   # Live items of one company: a company record's count and a company user's list, index-only
                   # (issue 13: without it the planner scanned the table once per listed company). Same below.
                   models.Index(fields=["company"], condition=models.Q(deleted_at__isnull=True),
                                name="accessory_alive_company_idx"),
                   models.Index(fields=["name"], name="accessory_name_idx")]


class AccessoryCheckoutQuerySet(CompanyScopedQuerySet):
    """Checkout rows are seen through their accessory's company."""

    company_field = "accessory__company"


class AccessoryCheckout(AssignmentRow):
    """``assigned_qty`` units of an accessory out to exactly one user, asset or location (Snipe-IT's
    ``accessories_checkout`` row; its id is what ``POST accessories/{id}/checkin`` takes)."""

    # No index of its own: ``accessorycheckout_item_idx`` starts with it (see Meta).
    accessory = models.ForeignKey(Accessory, on_delete=models.PROTECT, related_name="checkouts", db_index=False)
    assigned_user = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="accessory_checkouts")
    assigned_asset = models.ForeignKey(Asset, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="accessory_checkouts")
    assigned_location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.PROTECT,
                                          related_name="accessory_checkouts")

    objects = AccessoryCheckoutQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        # One index serves the two reads by accessory (docs/performance.md, accessories): the units-out sum
        # (``assigned_qty`` in the index: an index-only scan, no table row read per checkout row) and the
        # ``checkedout`` page, newest first (walked backwards, instead of reading and sorting every row of a busy
        # accessory). Its leading column also serves the foreign key.
        indexes = [models.Index(fields=["accessory", "created_at", "assigned_qty"], name="accessorycheckout_item_idx")]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(assigned_user__isnull=False, assigned_asset__isnull=True, assigned_location__isnull=True)
                    | models.Q(assigned_user__isnull=True, assigned_asset__isnull=False,
                               assigned_location__isnull=True)
                    | models.Q(assigned_user__isnull=True, assigned_asset__isnull=True,
                               assigned_location__isnull=False)
                ),
                name="accessorycheckout_one_target",
            ),
            models.CheckConstraint(condition=models.Q(assigned_qty__gte=1), name="accessorycheckout_qty_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.assigned_qty} x {self.accessory}"

    @property
    def assigned_target(self):
        return self.assigned_user or self.assigned_asset or self.assigned_location


class Consumable(StockItem):
    """Toner, paper, batteries: units handed to a user and used up (never checked in)."""

    item_no = models.CharField(max_length=255, blank=True, default="")

    class Meta(StockItem.Meta):
        indexes = [models.Index(fields=["deleted_at", "created_at"], name="consumable_alive_created_idx"),
                   models.Index(fields=["company"], condition=models.Q(deleted_at__isnull=True),
                                name="consumable_alive_company_idx"),
                   models.Index(fields=["name"], name="consumable_name_idx")]


class ConsumableAssignmentQuerySet(CompanyScopedQuerySet):
    """Assignment rows are seen through their consumable's company."""

    company_field = "consumable__company"


class ConsumableAssignment(AssignmentRow):
    """``assigned_qty`` units of a consumable handed to a user (Snipe-IT's ``consumables_users`` row)."""

    # No index of its own: ``consumableassignment_item_idx`` starts with it (see Meta).
    consumable = models.ForeignKey(Consumable, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    assigned_user = models.ForeignKey(USER_MODEL, on_delete=models.PROTECT, related_name="consumable_assignments")

    objects = ConsumableAssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        # As ``AccessoryCheckout``: the units-out sum from the index alone, ``consumables/{id}/users`` newest first.
        indexes = [models.Index(fields=["consumable", "created_at", "assigned_qty"],
                                name="consumableassignment_item_idx")]
        constraints = [
            models.CheckConstraint(condition=models.Q(assigned_qty__gte=1), name="consumableassignment_qty_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.assigned_qty} x {self.consumable}"


class Component(StockItem):
    """RAM, disks, cards: units installed into assets (``assigned_qty`` per asset) and taken out again."""

    serial = models.CharField(max_length=255, blank=True, default="")

    class Meta(StockItem.Meta):
        indexes = [models.Index(fields=["deleted_at", "created_at"], name="component_alive_created_idx"),
                   models.Index(fields=["company"], condition=models.Q(deleted_at__isnull=True),
                                name="component_alive_company_idx"),
                   models.Index(fields=["name"], name="component_name_idx")]


class ComponentAssignmentQuerySet(CompanyScopedQuerySet):
    """Installed units are seen through their component's company."""

    company_field = "component__company"


class ComponentAssignment(AssignmentRow):
    """``assigned_qty`` units of a component installed in an asset (Snipe-IT's ``components_assets`` pivot row; its
    id is what ``POST components/{id}/checkin`` takes)."""

    # No index of its own: ``componentassignment_item_idx`` starts with it (see Meta).
    component = models.ForeignKey(Component, on_delete=models.PROTECT, related_name="assignments", db_index=False)
    assigned_asset = models.ForeignKey(Asset, on_delete=models.PROTECT, related_name="component_assignments")

    objects = ComponentAssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        # As ``AccessoryCheckout``: the units-out sum from the index alone, ``components/{id}/assets`` newest first.
        indexes = [models.Index(fields=["component", "created_at", "assigned_qty"],
                                name="componentassignment_item_idx")]
        constraints = [
            models.CheckConstraint(condition=models.Q(assigned_qty__gte=1),
                                   name="componentassignment_qty_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.assigned_qty} x {self.component}"


def units_out(item_model: type[StockItem]) -> Coalesce:
    """Units out per stock item, a correlated subquery (the API's ``remaining`` = ``qty`` - this)."""
    relation = {Accessory: ("checkouts", "accessory"), Consumable: ("assignments", "consumable"),
                Component: ("assignments", "component")}[item_model]
    rows_model = item_model._meta.get_field(relation[0]).related_model
    rows = (rows_model._default_manager.filter(**{relation[1]: models.OuterRef("pk")}).order_by()
            .values(relation[1]).annotate(n=models.Sum("assigned_qty")).values("n")[:1])
    return Coalesce(models.Subquery(rows, output_field=models.IntegerField()), models.Value(0))
