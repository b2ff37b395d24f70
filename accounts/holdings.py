"""What a user holds, from one registry: the user record's counts, the delete guard and the company-change guard.

``accounts`` sits below ``inventory``, so it cannot name assets (or, later, accessories, consumables and licenses).
Each kind a user can hold registers a :class:`UserHolding` in its app's ``AppConfig.ready()``
(``inventory.apps`` registers assets and managed locations). The user services and the user list read this registry,
so a new kind is counted, blocks a delete and follows the company rule without edits here.
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
from assetsvc.typing import Actor

#: Count keys of the user record (specification: Actor), in the record's order; unregistered keys are 0.
USER_COUNT_NAMES: tuple[str, ...] = ("assets_count", "licenses_count", "accessories_count", "consumables_count")


@dataclass(frozen=True)
class UserHolding:
    """One kind of thing a user holds.

    ``user_field`` is the path from the model's rows to the holding user. ``count_name`` is the user record's count
    key (None: not counted). ``blocks_delete`` holds the refusal texts ``(one, many)`` (``:count`` is replaced),
    ``messages_key`` and ``code`` name the refusal in the envelope. ``company_field`` (None: the rows have no
    company) makes the kind part of the company-change guard. ``follows_user_location`` moves the rows' ``location``
    with the user (Snipe-IT moves assets checked out to a user who moves). ``units`` names a column of units per row
    (an accessory checkout of 3): counts and refusals sum it instead of counting rows.
    """

    name: str
    model_label: str
    user_field: str
    count_name: str | None = None
    blocks_delete: tuple[str, str] | None = None
    messages_key: str = ""
    code: str = "user_has_items"
    company_field: str | None = "company"
    follows_user_location: bool = False
    units: str | None = None
    rows: Callable[[models.QuerySet], models.QuerySet] = alive
    #: Something the person gives back when they leave (assets, accessories, license seats; not consumables, not
    #: managed locations): what makes a deactivated user a leaver still holding items (issue 30).
    returnable: bool = False

    @property
    def model(self) -> type[models.Model]:
        return apps.get_model(self.model_label)

    def held_by(self, user) -> models.QuerySet:
        return self.rows(self.model._default_manager.filter(**{self.user_field: user}))

    def amount(self):
        """What one count adds up: the rows, or their units."""
        return Sum(self.units) if self.units else Count("pk")

    def count_held_by(self, user) -> int:
        return self.held_by(user).aggregate(n=self.amount())["n"] or 0


def register_user_holding(holding: UserHolding) -> None:
    if holding.count_name is not None and holding.count_name not in USER_COUNT_NAMES:
        raise ValueError(f"{holding.count_name!r} is not a user count ({', '.join(USER_COUNT_NAMES)})")
    register_entry("user_holdings", holding.name, holding)


def user_holdings() -> tuple[UserHolding, ...]:
    return tuple(entries("user_holdings").values())


def annotate_user_counts(queryset: models.QuerySet, viewer: Actor | None = None) -> models.QuerySet:
    """The record's counts as correlated subqueries, so a user list runs a constant number of queries. With a
    ``viewer``, only what they may see is counted (company separation: another company's items held by a user of
    theirs are never counted, as they are never listed)."""
    annotations = {}
    for holding in user_holdings():
        if holding.count_name is None:
            continue
        source = holding.model._default_manager.all()
        restrict = getattr(source, "restrict", None) if viewer is not None else None
        if restrict is not None:
            source = restrict(viewer)
        rows = (
            holding.rows(source.filter(**{holding.user_field: OuterRef("pk")}))
            .order_by().values(holding.user_field).annotate(n=holding.amount()).values("n")[:1]
        )
        annotations[holding.count_name] = Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))
    return queryset.annotate(**annotations)


def holds_returnables() -> models.Q:
    """Users holding anything they must give back (one EXISTS per returnable kind, OR-ed)."""
    condition = models.Q(pk__in=[])
    for holding in user_holdings():
        if holding.returnable:
            rows = holding.rows(holding.model._default_manager.filter(**{holding.user_field: OuterRef("pk")}))
            condition |= models.Q(models.Exists(rows))
    return condition


def leavers(queryset: models.QuerySet) -> models.QuerySet:
    """Offboarding (issue 30): users who are deactivated (or deleted) and still hold something to give back."""
    return queryset.filter(models.Q(is_active=False) | models.Q(deleted_at__isnull=False)).filter(holds_returnables())


def blocking_holdings(user) -> list[tuple[UserHolding, int]]:
    """Kinds that still block deleting ``user``, in registration order, with how many rows each."""
    out = []
    for holding in user_holdings():
        if holding.blocks_delete is None:
            continue
        count = holding.count_held_by(user)
        if count:
            out.append((holding, count))
    return out


def holds_items_of_other_company(user, company_id: int | None) -> bool:
    """True when ``user`` holds a live item of a company other than ``company_id`` (the company-change guard)."""
    for holding in user_holdings():
        if holding.company_field is None:
            continue
        if holding.held_by(user).exclude(**{f"{holding.company_field}_id": company_id}).exists():
            return True
    return False


def move_held_items(user, location) -> None:
    """Rows that follow their holder move to ``location`` with the user."""
    from django.utils import timezone

    for holding in user_holdings():
        if holding.follows_user_location:
            holding.model._default_manager.filter(**{holding.user_field: user}).update(
                location=location, updated_at=timezone.now())
