"""Hardware assets and the catalogue around them (models, categories, manufacturers, suppliers, locations,
status labels). The action log every domain verb writes is ``activity.models.ActionLog``."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower, Substr

from companies.models import CompanyScopedModel
from companies.querysets import CompanyScopedQuerySet
from inventory.choices import CategoryType, FieldElement, StatusType, TargetType

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


class AssetQuerySet(CompanyScopedQuerySet):
    def alive(self) -> AssetQuerySet:
        return self.filter(deleted_at__isnull=True)

    def deleted(self) -> AssetQuerySet:
        return self.filter(deleted_at__isnull=False)

    def available(self) -> AssetQuerySet:
        """Assets that can be checked out now: not assigned, not deleted, deployable label."""
        return self.alive().filter(
            assigned_user__isnull=True, assigned_asset__isnull=True, assigned_location__isnull=True,
            status__type=StatusType.DEPLOYABLE,
        )

    def checked_out(self) -> AssetQuerySet:
        return self.filter(
            models.Q(assigned_user__isnull=False)
            | models.Q(assigned_asset__isnull=False)
            | models.Q(assigned_location__isnull=False)
        )

    def checked_out_to(self, user) -> AssetQuerySet:
        return self.filter(assigned_user=user)


def asset_display_name(name: str, model_name: str | None) -> str:
    """An asset's shown name: its own, else its model's (also for rows read without a model instance)."""
    return name or model_name or ""


class Asset(TimestampedModel):
    """A tracked piece of hardware. It is checked out to at most one target: a user, another asset or a location.

    Assignment, counters and audit dates are owned by the services in ``inventory.services.assets``; nothing else
    writes them.
    """

    company = models.ForeignKey("companies.Company", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="assets")
    name = models.CharField(max_length=255, blank=True, default="")
    asset_tag = models.CharField(max_length=255)
    #: The tag's folded key (``inventory.tags.tag_key``), set by the services that write the tag: unique among live
    #: assets, so look-alikes of a tag are refused (issue 25). Null only for look-alike duplicates that existed before
    #: the rule (kept by the migration; docs/decisions.md) until their tag is written again.
    asset_tag_key = models.TextField(null=True, blank=True, editable=False)
    serial = models.CharField(max_length=255, blank=True, default="")
    model = models.ForeignKey(AssetModel, on_delete=models.PROTECT, related_name="assets")
    status = models.ForeignKey(StatusLabel, on_delete=models.PROTECT, related_name="assets")
    supplier = models.ForeignKey(Supplier, null=True, blank=True, on_delete=models.PROTECT, related_name="assets")
    location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="current_assets")
    rtd_location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="rtd_assets")
    assigned_user = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="assigned_assets")
    assigned_asset = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="assigned_assets")
    assigned_location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.PROTECT,
                                          related_name="assigned_assets")
    notes = models.TextField(blank=True, default="")
    order_number = models.CharField(max_length=255, blank=True, default="")
    warranty_months = models.PositiveIntegerField(null=True, blank=True)
    purchase_date = models.DateField(null=True, blank=True)
    purchase_cost = models.DecimalField(max_digits=13, decimal_places=2, null=True, blank=True)
    byod = models.BooleanField(default=False)
    requestable = models.BooleanField(default=False)
    last_checkout = models.DateTimeField(null=True, blank=True)
    last_checkin = models.DateTimeField(null=True, blank=True)
    expected_checkin = models.DateField(null=True, blank=True)
    last_audit_date = models.DateTimeField(null=True, blank=True)
    next_audit_date = models.DateField(null=True, blank=True)
    checkin_counter = models.PositiveIntegerField(default=0)
    checkout_counter = models.PositiveIntegerField(default=0)
    requests_counter = models.PositiveIntegerField(default=0)
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects = AssetQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                Lower("asset_tag"), condition=models.Q(deleted_at__isnull=True), name="asset_tag_ci_unique_alive"
            ),
            models.UniqueConstraint(
                fields=["asset_tag_key"], condition=models.Q(deleted_at__isnull=True), name="asset_tag_key_unique_alive"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(assigned_user__isnull=True, assigned_asset__isnull=True)
                    | models.Q(assigned_user__isnull=True, assigned_location__isnull=True)
                    | models.Q(assigned_asset__isnull=True, assigned_location__isnull=True)
                ),
                name="asset_single_assignment_target",
            ),
        ]
        indexes = [
            models.Index(Lower("serial"), name="asset_serial_lower_idx"),
            models.Index(fields=["name"]),
            models.Index(fields=["serial"]),
            models.Index(fields=["order_number"]),
            models.Index(fields=["purchase_date"]),
            models.Index(fields=["purchase_cost"]),
            models.Index(fields=["deleted_at", "created_at"]),
            models.Index(fields=["next_audit_date"]),
            models.Index(fields=["expected_checkin"]),
            models.Index(fields=["last_checkout"]),
            # The visible set (live assets) for the exact ``total`` and for the default order, each read index-only
            # (the status decides archived; issue 13, docs/performance.md): PostgreSQL counts and pages live assets
            # without visiting the table.
            models.Index(fields=["status"], condition=models.Q(deleted_at__isnull=True), name="asset_alive_status"),
            models.Index(models.F("created_at").desc(), models.F("id").desc(), "status",
                         condition=models.Q(deleted_at__isnull=True), name="asset_alive_newest"),
            # The same for the filters clients use most and for a company user's whole list (separation is an
            # equality on the company): count and first page of one model, company or location index-only; the
            # model and location indexes end with the company, so a company user's filter stays index-only too.
            models.Index("company", models.F("created_at").desc(), models.F("id").desc(), "status",
                         condition=models.Q(deleted_at__isnull=True), name="asset_alive_company_newest"),
            *(models.Index(field, models.F("created_at").desc(), models.F("id").desc(), "status", "company",
                           condition=models.Q(deleted_at__isnull=True), name=f"asset_alive_{field}_company")
              for field in ("model", "location")),
            # A search's matches (ids from its union) counted and ordered without reading the table: the id leads,
            # the default order's key and the status follow.
            models.Index("id", models.F("created_at").desc(), "status", condition=models.Q(deleted_at__isnull=True),
                         name="asset_alive_id_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.asset_tag} ({self.display_name})"

    def clean(self) -> None:
        """Row-local limits, shared by every writer (the API's serializer refuses the same values first, with the
        same messages): a purchase cost from 0 to 99,999,999,999.99 and a warranty from 0 to 1200 months."""
        errors: dict[str, list[str]] = {}
        cost = self._meta.get_field("purchase_cost").to_python(self.purchase_cost)
        if cost is not None:
            if cost < 0:
                errors["purchase_cost"] = ["The purchase cost must be at least 0."]
            elif cost > MAX_PURCHASE_COST:
                errors["purchase_cost"] = [f"The purchase cost may not be greater than {MAX_PURCHASE_COST}."]
        months = self._meta.get_field("warranty_months").to_python(self.warranty_months)
        if months is not None:
            if months < 0:
                errors["warranty_months"] = ["The warranty months must be at least 0."]
            elif months > MAX_WARRANTY_MONTHS:
                errors["warranty_months"] = [f"The warranty months may not be greater than {MAX_WARRANTY_MONTHS}."]
        if errors:
            raise ValidationError(errors)

    @property
    def display_name(self) -> str:
        """The name a message shows: the asset's own, else its model's (API-CONTRACT.md §8)."""
        return asset_display_name(self.name, self.model.name if self.model_id else "")

    @property
    def assigned_target(self):
        return self.assigned_user or self.assigned_asset or self.assigned_location

    @property
    def assigned_type(self) -> str | None:
        if self.assigned_user_id:
            return TargetType.USER
        if self.assigned_asset_id:
            return TargetType.ASSET
        if self.assigned_location_id:
            return TargetType.LOCATION
        return None

    @property
    def is_assigned(self) -> bool:
        return self.assigned_type is not None

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


# --- items handed out by quantity (API-CONTRACT.md §10) -------------------------------------------------------------


class StockQuerySet(CompanyScopedQuerySet):
    def alive(self) -> StockQuerySet:
        return self.filter(deleted_at__isnull=True)


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


class AssignmentRow(models.Model):
    """What every row of units handed out shares (accessory checkouts, consumable handouts, component
    installations): its units, the checkout's note, who made it and when. Each kind adds the item and its target."""

    assigned_qty = models.PositiveIntegerField(default=1)
    note = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


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


# --- custom fields (docs/custom-fields.md) --------------------------------------------------------------------------

#: ``db_column_name`` is ``_snipeit_<slug>`` cut to this length, then ``_<id>`` (Snipe-IT's rule).
COLUMN_PREFIX = "_snipeit_"
COLUMN_BASE_LENGTH = 50


class CustomField(TimestampedModel):
    """A custom field definition (a MAC address, an IMEI, an OS version): global, not company-scoped. Its
    ``db_column_name`` is fixed when it is created and never changes, also on a rename (integrations address the
    field by it); ``field_encrypted`` is fixed at creation too. Written only by ``inventory.services.custom_fields``."""

    name = models.CharField(max_length=255)
    db_column_name = models.CharField(max_length=80, null=True, blank=True, unique=True, editable=False)
    element = models.CharField(max_length=16, choices=FieldElement.choices, default=FieldElement.TEXT)
    #: The format's name (``ANY``, ``MAC``, ... see ``inventory.choices.FIELD_FORMATS``) or ``regex:/p/flags``.
    format = models.CharField(max_length=255, default="ANY")
    #: The options, one per line, ``value`` or ``value|label``; empty for none.
    field_values = models.TextField(blank=True, default="")
    field_encrypted = models.BooleanField(default=False)
    is_unique = models.BooleanField(default=False)
    display_in_user_view = models.BooleanField(default=False)
    auto_add_to_fieldsets = models.BooleanField(default=False)
    show_in_listview = models.BooleanField(default=False)
    display_checkin = models.BooleanField(default=False)
    display_checkout = models.BooleanField(default=False)
    display_audit = models.BooleanField(default=False)
    help_text = models.TextField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="customfield_name_ci_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def field_values_array(self) -> list[str] | None:
        """The options, one per non-empty line (Snipe-IT explodes the text on line breaks), or None."""
        lines = [line.strip() for line in (self.field_values or "").splitlines()]
        lines = [line for line in lines if line]
        return lines or None


class CustomFieldset(TimestampedModel):
    """A named, ordered set of custom fields; an asset model names one, and its assets carry exactly those fields."""

    name = models.CharField(max_length=255)
    fields = models.ManyToManyField(CustomField, through="CustomFieldsetField", related_name="fieldsets")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="customfieldset_name_ci_unique")]

    def __str__(self) -> str:
        return self.name


class CustomFieldsetField(models.Model):
    """A field's place in a fieldset: its position and whether assets of the set's models must have a value.
    A field in any set cannot be deleted (PROTECT, and the service's ``Field is in use.``)."""

    fieldset = models.ForeignKey(CustomFieldset, on_delete=models.CASCADE, related_name="memberships")
    field = models.ForeignKey(CustomField, on_delete=models.PROTECT, related_name="memberships")
    required = models.BooleanField(default=False)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "id"]
        constraints = [models.UniqueConstraint(fields=["fieldset", "field"], name="customfieldsetfield_unique")]

    def __str__(self) -> str:
        return f"{self.field} in {self.fieldset}"


class AssetFieldValue(models.Model):
    """One asset's value of one custom field, as text (an encrypted field's value is stored encrypted).

    ``unique_key`` is set only for fields with ``is_unique`` on live assets: a digest of the value trimmed and lower
    cased (of the plaintext for encrypted fields), so the partial unique constraint makes two concurrent writes of
    one value fail in the database, whatever the length of the value; deleting an asset clears it, restoring sets it
    again. ``unique_scope`` is the asset's company id (0: no company), set with ``unique_key``: the constraint is per
    scope, so with company separation on a value is unique within a company (issue 25; with separation off the
    services check across scopes under a lock of the field: ``inventory.custom_values``). ``?<column>=`` lookups use
    the index on the field and the lower-cased first 191 characters of the value."""

    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="field_values")
    field = models.ForeignKey(CustomField, on_delete=models.CASCADE, related_name="values")
    value = models.TextField(blank=True, default="")
    unique_key = models.CharField(max_length=64, null=True, blank=True)
    unique_scope = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["id"]
        # ``?<column>=`` compares this expression first (inventory.custom_values.lookups): case-insensitive, from the
        # index.
        indexes = [models.Index("field", Lower(Substr("value", 1, 191)), include=["asset"],
                                name="assetfieldvalue_lookup_ci_idx")]
        constraints = [
            models.UniqueConstraint(fields=["asset", "field"], name="assetfieldvalue_asset_field_unique"),
            models.UniqueConstraint(fields=["field", "unique_scope", "unique_key"],
                                    condition=models.Q(unique_key__isnull=False),
                                    name="assetfieldvalue_unique_value_in_scope"),
        ]

    def __str__(self) -> str:
        return f"{self.field} of {self.asset_id}"


class ImportJob(models.Model):
    """A CSV import the admin hands to the task worker (a file of more than ``CSV_IMPORT_TASK_ROWS`` rows; issue 25):
    its dry run (the preview) or the import itself, its progress (rows done of the total, written after each batch)
    and, once finished, its counts, errors and notes, shown by the admin's job page. Only its user sees it."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True)
    kind = models.CharField(max_length=20)
    user = models.ForeignKey(USER_MODEL, on_delete=models.CASCADE, related_name="+")
    #: The kept upload (a random name in ``CSV_IMPORT_DIR``).
    file = models.CharField(max_length=255)
    update = models.BooleanField(default=False)
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True, default="")
    result = models.JSONField(default=dict, blank=True)
    remote_ip = models.CharField(max_length=45, blank=True, default="")
    user_agent = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{'dry run' if self.dry_run else 'import'} of {self.kind}s {self.pk}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def percent(self) -> int:
        return 100 if self.finished else (self.done * 100 // self.total if self.total else 0)
