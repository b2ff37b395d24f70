"""Hardware assets. The action log every domain verb writes is ``activity.models.ActionLog``."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower

from accounts.models import User
from companies.querysets import CompanyScopedQuerySet
from inventory.choices import StatusType, TargetType
from inventory.models.base import MAX_PURCHASE_COST, MAX_WARRANTY_MONTHS, USER_MODEL, TimestampedModel
from inventory.models.catalogue import AssetModel, Location, StatusLabel, Supplier


class AddMonths(models.Func):
    """``date + months`` in the database (the warranty's end), the day clamped to the month's length as
    :func:`inventory.services.assets.add_months` (the record's ``warranty_expires``) does: 31 January + 1 month is
    28 (29) February. PostgreSQL's interval arithmetic clamps; SQLite's date modifier rolls over (3 March), so on
    SQLite a rolled-over day is replaced by the last day of the month meant."""

    output_field = models.DateField()
    arity = 2

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="(%(expressions)s)::date",
                           arg_joiner=" + interval '1 month' * ", **extra_context)

    def as_sqlite(self, compiler, connection, **extra_context):
        start, start_params = compiler.compile(self.source_expressions[0])
        months, months_params = compiler.compile(self.source_expressions[1])
        rolled = f"date({start}, '+' || {months} || ' months')"
        last_day = f"date({start}, 'start of month', '+' || ({months} + 1) || ' months', '-1 day')"
        sql = f"(CASE WHEN strftime('%%d', {rolled}) = strftime('%%d', {start}) THEN {rolled} ELSE {last_day} END)"
        rolled_params = (*start_params, *months_params)
        return sql, (*rolled_params, *start_params, *rolled_params, *start_params, *months_params)


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

    def with_warranty_end(self) -> AssetQuerySet:
        """Annotates ``warranty_end`` (``purchase_date`` + ``warranty_months``, null without either), computed in the
        database so the dashboard, its list filter and the alert digest filter and sort on it."""
        return self.annotate(warranty_end=AddMonths(models.F("purchase_date"), models.F("warranty_months")))


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
    def picker_label(self) -> str:
        """How the admin's asset pickers show an asset (issue 28): "TAG – name (serial)", the model's name when the
        asset has none, leaving out what is empty."""
        name = self.display_name
        label = f"{self.asset_tag} – {name}" if name else self.asset_tag
        return f"{label} ({self.serial})" if self.serial else label

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


def target_type_of(target: models.Model | None) -> str:
    """The action log's ``target_type`` of a checkout target (a user, an asset or a location); "" for none."""
    if target is None:
        return ""
    if isinstance(target, User):
        return TargetType.USER
    if isinstance(target, Asset):
        return TargetType.ASSET
    if isinstance(target, Location):
        return TargetType.LOCATION
    raise TypeError(f"not a checkout target: {target!r}")
