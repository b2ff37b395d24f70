"""The six counts of a company record (specification: Company) and the rule-9 delete guard, from one registry.

The record's keys are fixed (:data:`COUNT_NAMES`); each kind of item that belongs to a company fills its key with
:func:`register_company_count` in its app's ``AppConfig.ready()`` (``inventory`` registers assets, ``accounts``
users), so ``companies`` never imports the apps above it. A key nobody registered counts 0 (the kinds not built
yet). ``tests/companies/test_scoped_models.py`` fails while a :class:`~companies.models.CompanyScopedModel` is
missing from the registry; the counts, the sort keys and the delete guard pick a new kind up without other changes.

Counts are correlated subqueries, so a company list runs a constant number of queries whatever the page size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db import models
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from assetsvc.registry import entries, register_entry
from assetsvc.services import alive

#: The record's count keys, in the record's order (specification: Company).
COUNT_NAMES: tuple[str, ...] = (
    "assets_count", "licenses_count", "accessories_count", "consumables_count", "components_count", "users_count",
)


@dataclass(frozen=True)
class CountedKind:
    """``count_name`` is the record key; ``model_label`` the model (``None``: not built yet, always 0);
    ``listed`` narrows the rows shown in the record's count (the delete guard counts every live row)."""

    count_name: str
    model_label: str | None
    listed: Callable[[models.QuerySet], models.QuerySet] = alive

    @property
    def model(self) -> type[models.Model] | None:
        return apps.get_model(self.model_label) if self.model_label else None


def register_company_count(kind: CountedKind) -> None:
    """Fill one of the record's count keys (called from an app's ``ready()``)."""
    if kind.count_name not in COUNT_NAMES:
        raise ValueError(f"{kind.count_name!r} is not a company count ({', '.join(COUNT_NAMES)})")
    register_entry("company_counts", kind.count_name, kind)


def company_counts() -> tuple[CountedKind, ...]:
    """Every count key in the record's order; unregistered keys count 0."""
    registered = entries("company_counts")
    return tuple(registered.get(name) or CountedKind(name, None) for name in COUNT_NAMES)


def _count_subquery(queryset: models.QuerySet) -> Coalesce:
    # COUNT(*), not COUNT(id): the count then reads only the (company, live) index, never the table (issue 13)
    rows = queryset.filter(company_id=OuterRef("pk")).order_by().values("company_id").annotate(n=Count("*"))
    return Coalesce(Subquery(rows.values("n")[:1], output_field=IntegerField()), Value(0))


def annotate_company_counts(queryset: models.QuerySet) -> models.QuerySet:
    """Add the six ``*_count`` annotations to a company queryset."""
    annotations = {}
    for kind in company_counts():
        model = kind.model
        if model is None:
            annotations[kind.count_name] = Value(0, output_field=IntegerField())
        else:
            annotations[kind.count_name] = _count_subquery(kind.listed(model._default_manager.all()))
    return queryset.annotate(**annotations)


#: How each count names its rows in a refusal (singular, plural).
COUNT_NOUNS: dict[str, tuple[str, str]] = {
    "assets_count": ("asset", "assets"), "licenses_count": ("license", "licenses"),
    "accessories_count": ("accessory", "accessories"), "consumables_count": ("consumable", "consumables"),
    "components_count": ("component", "components"), "users_count": ("user", "users"),
}


def detach_deleted_rows(company_id: int) -> dict[str, int]:
    """Soft-deleted rows of every registered kind stop pointing at the company (rule 9 counts only rows that are
    not deleted, as Snipe-IT's ``isDeletable``); returns how many per count key, for the log."""
    detached: dict[str, int] = {}
    for kind in company_counts():
        model = kind.model
        if model is None or not any(f.name == "deleted_at" for f in model._meta.concrete_fields):
            continue
        count = model._default_manager.filter(company_id=company_id, deleted_at__isnull=False).update(company=None)
        if count:
            detached[kind.count_name] = count
    return detached


def blocking_counts(company_id: int) -> dict[str, int]:
    """Rule 9: live rows of every kind that still belong to the company (archived assets included)."""
    out: dict[str, int] = {}
    for kind in company_counts():
        model = kind.model
        rows = None if model is None else alive(model._default_manager.filter(company_id=company_id))
        out[kind.count_name] = 0 if rows is None else rows.count()
    return out
