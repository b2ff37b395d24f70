"""The counts a catalogue record shows (how many assets, accessories, ... use a category, a manufacturer, a
supplier, a location, a status label or a model), from one registry.

Each record's count keys are fixed here (:data:`CATALOGUE_COUNT_NAMES`, Snipe-IT's record shapes). A kind that is
counted registers where its rows point at the catalogue entry with :func:`register_catalogue_count` in
``InventoryConfig.ready()``; a key nobody registered is 0 (the kinds not built yet), so a new kind fills its counts
on every record with one line per key. Counts are correlated subqueries over what the caller may see (company
separation), so a list runs a constant number of queries whatever its page size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db import models
from django.db.models import Count, IntegerField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from assetsvc.registry import entries, register_entry
from assetsvc.services import alive

ZERO = Value(0, output_field=IntegerField())
_KINDS = ("assets_count", "accessories_count", "consumables_count", "components_count", "licenses_count")

#: Every catalogue record's count keys.
CATALOGUE_COUNT_NAMES: dict[str, tuple[str, ...]] = {
    "inventory.StatusLabel": ("assets_count",),
    "inventory.Category": _KINDS,
    "inventory.Manufacturer": _KINDS,
    "inventory.Supplier": _KINDS,
    "inventory.Location": ("assets_count", "rtd_assets_count", "assigned_assets_count", "users_count",
                           "accessories_count", "assigned_accessories_count"),
    "inventory.AssetModel": ("assets_count",),
    "inventory.Depreciation": ("assets_count", "models_count", "licenses_count"),
}


@dataclass(frozen=True)
class CatalogueCount:
    """``count_name`` on the records of ``catalogue`` counts the rows of ``model_label`` whose ``field`` is the
    entry (``rows`` narrows them: live rows by default). ``units`` names a column of units per row (an accessory
    checkout of 3): the count sums it, as Snipe-IT counts its one row per unit."""

    catalogue: str
    count_name: str
    model_label: str
    field: str
    rows: Callable[[models.QuerySet], models.QuerySet] = alive
    units: str | None = None


def register_catalogue_count(count: CatalogueCount) -> None:
    if count.count_name not in CATALOGUE_COUNT_NAMES.get(count.catalogue, ()):
        raise ValueError(f"{count.catalogue} records have no {count.count_name!r}")
    register_entry("catalogue_counts", f"{count.catalogue}.{count.count_name}", count)


def count_of(queryset: models.QuerySet, field: str, units: str | None = None) -> Coalesce:
    """``COUNT(*)`` of ``queryset`` rows whose ``field`` is the outer row (or the sum of their ``units``), as a
    correlated subquery."""
    amount = Sum(units) if units else Count("pk")
    rows = queryset.filter(**{field: OuterRef("pk")}).order_by().values(field).annotate(n=amount).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), ZERO)


def annotate_catalogue_counts(queryset: models.QuerySet, user) -> models.QuerySet:
    """Every count key of the queryset's records, limited to the rows ``user`` may see."""
    label = queryset.model._meta.label
    registered = entries("catalogue_counts")
    annotations = {}
    for name in CATALOGUE_COUNT_NAMES[label]:
        count = registered.get(f"{label}.{name}")
        if count is None:
            annotations[name] = ZERO
            continue
        source = apps.get_model(count.model_label)._default_manager.all()
        restrict = getattr(source, "restrict", None)
        if restrict is not None:
            source = restrict(user)
        annotations[name] = count_of(count.rows(source), count.field, count.units)
    return queryset.annotate(**annotations)


# --- what holds a catalogue entry (its delete guard) ----------------------------------------------------------------


def every_row(queryset: models.QuerySet) -> models.QuerySet:
    """Status labels, categories, suppliers and locations are deleted for real, so even a soft-deleted row that
    points at them holds them (the foreign key would dangle)."""
    return queryset


@dataclass(frozen=True)
class CatalogueReference:
    """Rows of ``model_label`` whose ``field`` is a ``catalogue`` entry hold it: the entry cannot be deleted while
    one exists. ``rows`` narrows them (live rows only for soft-deleted entries)."""

    catalogue: str
    model_label: str
    field: str
    rows: Callable[[models.QuerySet], models.QuerySet] = every_row


def register_catalogue_reference(reference: CatalogueReference) -> None:
    key = f"{reference.catalogue}.{reference.model_label}.{reference.field}"
    register_entry("catalogue_references", key, reference)


def holders_of(model: type[models.Model]):
    """A boolean expression per row of the catalogue ``model``: true while something holds the entry (a delete
    would be refused). Used for the records' ``available_actions.delete`` and by the delete services, so the flag
    and the refusal always agree."""
    from django.db.models import Exists, Q

    label = model._meta.label
    expression = Q(pk__in=[])
    for reference in entries("catalogue_references").values():
        if reference.catalogue != label:
            continue
        source = apps.get_model(reference.model_label)._default_manager.all()
        expression |= Q(Exists(reference.rows(source).filter(**{reference.field: OuterRef("pk")})))
    return expression


def holders_by_kind(entry: models.Model) -> list[tuple[type[models.Model], int]]:
    """What holds ``entry``: each kind of row that does (in registration order) with how many of its rows, for
    refusals that count what blocks."""
    label = type(entry)._meta.label
    counts: dict[type[models.Model], int] = {}
    for reference in entries("catalogue_references").values():
        if reference.catalogue != label:
            continue
        model = apps.get_model(reference.model_label)
        count = reference.rows(model._default_manager.filter(**{reference.field: entry})).count()
        if count:
            counts[model] = counts.get(model, 0) + count
    return list(counts.items())


def is_held(entry: models.Model) -> bool:
    model = type(entry)
    return model._default_manager.filter(pk=entry.pk).filter(holders_of(model)).exists()
