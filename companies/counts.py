"""The six counts of a company record (specification: Company) and the rule-9 delete guard, in one registry.

Each kind of item that belongs to a company is one :class:`CountedKind`. Accessories, consumables, components and
licenses do not exist yet: their entries have ``model_label=None`` and count 0. The issue that adds one of them sets
its label here (``tests/companies/test_scoped_models.py`` fails while a :class:`~companies.models.CompanyScopedModel`
is missing from this registry), and the counts, the sort keys and the delete guard pick it up without other changes.

Counts are correlated subqueries, so a company list runs a constant number of queries whatever the page size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db import models
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def _alive(queryset: models.QuerySet) -> models.QuerySet:
    """Soft-deleted rows are not counted (Snipe-IT's ``withCount`` skips them)."""
    if any(f.name == "deleted_at" for f in queryset.model._meta.concrete_fields):
        return queryset.filter(deleted_at__isnull=True)
    return queryset


def _assets_for_show(queryset: models.QuerySet) -> models.QuerySet:
    """Listed asset counts skip archived assets unless the site shows them (Snipe-IT ``scopeAssetsForShow``)."""
    from assetsvc.site import get_site_settings
    from inventory.choices import StatusType

    queryset = _alive(queryset)
    if not get_site_settings().show_archived_in_list:
        queryset = queryset.exclude(status__type=StatusType.ARCHIVED)
    return queryset


@dataclass(frozen=True)
class CountedKind:
    """``count_name`` is the record key; ``model_label`` the model (``None``: not built yet, always 0);
    ``listed`` narrows the rows shown in the record's count (the delete guard counts every live row)."""

    count_name: str
    model_label: str | None
    listed: Callable[[models.QuerySet], models.QuerySet] = _alive

    @property
    def model(self) -> type[models.Model] | None:
        return apps.get_model(self.model_label) if self.model_label else None


COMPANY_COUNTS: tuple[CountedKind, ...] = (
    CountedKind("assets_count", "inventory.Asset", _assets_for_show),
    CountedKind("licenses_count", None),  # licenses: a later issue
    CountedKind("accessories_count", None),  # accessories: a later issue
    CountedKind("consumables_count", None),  # consumables: a later issue
    CountedKind("components_count", None),  # components: a later issue
    CountedKind("users_count", "accounts.User"),
)
COUNT_NAMES: tuple[str, ...] = tuple(kind.count_name for kind in COMPANY_COUNTS)


def _count_subquery(queryset: models.QuerySet) -> Coalesce:
    rows = queryset.filter(company_id=OuterRef("pk")).order_by().values("company_id").annotate(n=Count("pk"))
    return Coalesce(Subquery(rows.values("n")[:1], output_field=IntegerField()), Value(0))


def annotate_company_counts(queryset: models.QuerySet) -> models.QuerySet:
    """Add the six ``*_count`` annotations to a company queryset."""
    annotations = {}
    for kind in COMPANY_COUNTS:
        model = kind.model
        if model is None:
            annotations[kind.count_name] = Value(0, output_field=IntegerField())
        else:
            annotations[kind.count_name] = _count_subquery(kind.listed(model._default_manager.all()))
    return queryset.annotate(**annotations)


def blocking_counts(company_id: int) -> dict[str, int]:
    """Rule 9: live rows of every kind that still belong to the company (archived assets included)."""
    out: dict[str, int] = {}
    for kind in COMPANY_COUNTS:
        model = kind.model
        rows = None if model is None else _alive(model._default_manager.filter(company_id=company_id))
        out[kind.count_name] = 0 if rows is None else rows.count()
    return out
