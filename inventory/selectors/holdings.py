"""What a person holds (issue 32, the portal's "My items"): the same rows the API lists for them, in a constant number
of queries.

The rows are those of ``GET users/{id}/assets`` (``inventory.api.assets.views.user_assets``: the live assets assigned to
the user, the hardware list's default filters, scoped to the caller) and of ``GET users/{id}/accessories``,
``/consumables`` and ``/licenses`` (``inventory.api.checkout.StockViewSet.user_items``: the assignment rows of live
items the caller may see), with the person as the caller: company separation hides an item of another company from
its holder here exactly as the API hides it from them. Components are those installed in the assets listed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet

from activity.models import ActionLog
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    CheckoutAcceptance,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
    License,
    LicenseSeat,
)
from inventory.selectors.assets import filter_assets

if TYPE_CHECKING:
    from accounts.models import User

#: The kinds a person may hold, in the page's order (action-log ``item_type`` values).
KINDS = ("asset", "accessory", "consumable", "license", "component")


@dataclass
class HeldItem:
    """One card of "My items": the item, the assignment row that gives it to the person (None for an asset), when it
    was handed out, its history with the person (action-log rows, newest first) and whether it awaits their
    acceptance."""

    kind: str
    item: Any
    row: Any = None
    checked_out_at: Any = None
    history: list[ActionLog] = field(default_factory=list)
    pending: bool = False

    @property
    def key(self) -> tuple[str, int]:
        return self.kind, self.item.pk


@dataclass
class Holdings:
    assets: list[HeldItem]
    accessories: list[HeldItem]
    consumables: list[HeldItem]
    licenses: list[HeldItem]
    components: list[HeldItem]

    def all(self) -> list[HeldItem]:
        return [*self.assets, *self.accessories, *self.consumables, *self.licenses, *self.components]

    @property
    def count(self) -> int:
        return len(self.all())


def held_assets(user: User) -> QuerySet:
    """``GET users/{id}/assets`` for ``user`` as the caller (archived labels hidden as in the hardware list)."""
    rows = Asset.objects.restrict(user).alive().filter(assigned_user_id=user.pk)
    return filter_assets(rows, {}).select_related("model").order_by("asset_tag", "pk")


def _live(model, user: User) -> QuerySet:
    return model.objects.restrict(user).filter(deleted_at__isnull=True)


def held_accessory_rows(user: User) -> QuerySet:
    """``GET users/{id}/accessories``: one checkout row per record, newest first."""
    return (AccessoryCheckout.objects.filter(accessory__in=_live(Accessory, user), assigned_user_id=user.pk)
            .select_related("accessory").order_by("-created_at", "-id"))


def held_consumable_rows(user: User) -> QuerySet:
    """``GET users/{id}/consumables``: one handout per record, newest first."""
    return (ConsumableAssignment.objects.filter(consumable__in=_live(Consumable, user), assigned_user_id=user.pk)
            .select_related("consumable").order_by("-created_at", "-id"))


def held_seats(user: User) -> QuerySet:
    """``GET users/{id}/licenses``: one seat per record, in the API's order."""
    return (LicenseSeat.objects.filter(license__in=_live(License, user), assigned_user_id=user.pk)
            .select_related("license").order_by("-updated_at", "-pk"))


def installed_components(user: User, asset_ids: list[int]) -> QuerySet:
    """The components installed in the assets ``user`` holds (``asset_ids``: those of :func:`held_assets`)."""
    return (ComponentAssignment.objects.filter(component__in=_live(Component, user), assigned_asset_id__in=asset_ids)
            .select_related("component", "assigned_asset__model").order_by("assigned_asset_id", "-created_at", "-id"))


def holdings(user: User) -> Holdings:
    """Everything ``user`` holds, each item with its history with them and its pending flag: one query per kind, one
    for the histories and one for the pending acceptances, whatever the number of items."""
    assets = [HeldItem("asset", asset, checked_out_at=asset.last_checkout) for asset in held_assets(user)]
    accessories: dict[int, HeldItem] = {}
    for row in held_accessory_rows(user):
        held = accessories.get(row.accessory_id)
        if held is None:
            held = accessories[row.accessory_id] = HeldItem("accessory", row.accessory, row=[],
                                                            checked_out_at=row.created_at)
        held.row.append(row)  # every checkout of the accessory to the person, newest first
    consumables = [HeldItem("consumable", row.consumable, row=row, checked_out_at=row.created_at)
                   for row in held_consumable_rows(user)]
    licenses = [HeldItem("license", seat.license, row=seat, checked_out_at=seat.updated_at)
                for seat in held_seats(user)]
    components = [HeldItem("component", row.component, row=row, checked_out_at=row.created_at)
                  for row in installed_components(user, [held.item.pk for held in assets])]
    result = Holdings(assets, list(accessories.values()), consumables, licenses, components)
    cards = result.all()
    histories = histories_with(user, {card.key for card in cards})
    pending = pending_keys(user)
    for card in cards:
        card.history = histories.get(card.key, [])
        card.pending = card.key in pending
    return result


def histories_with(user: User, keys: set[tuple[str, int]]) -> dict[tuple[str, int], list[ActionLog]]:
    """The action-log rows of the items ``keys`` (``(item_type, item_id)``) whose target is ``user``, newest first,
    in one query."""
    if not keys:
        return {}
    ids: dict[str, set[int]] = defaultdict(set)
    for item_type, item_id in keys:
        ids[item_type].add(item_id)
    items = Q()
    for item_type, pks in ids.items():
        items |= Q(item_type=item_type, item_id__in=sorted(pks))
    rows = (ActionLog.objects.restrict(user).filter(items, target_type="user", target_id=user.pk)
            .select_related("created_by").order_by("-action_date", "-id"))
    found: dict[tuple[str, int], list[ActionLog]] = defaultdict(list)
    for row in rows:
        found[row.item_type, row.item_id].append(row)
    return found


def pending_keys(user: User) -> set[tuple[str, int]]:
    """The items awaiting ``user``'s acceptance."""
    return set(CheckoutAcceptance.objects.pending().filter(user_id=user.pk).values_list("item_type", "item_id"))


def held_item(user: User, kind: str, pk: int) -> Any | None:
    """The item of ``kind`` and id ``pk`` if ``user`` holds it now (by the rules of :func:`holdings`), else None."""
    if kind == "asset":
        return held_assets(user).filter(pk=pk).first()
    if kind == "accessory":
        row = held_accessory_rows(user).filter(accessory_id=pk).first()
        return row.accessory if row else None
    if kind == "consumable":
        row = held_consumable_rows(user).filter(consumable_id=pk).first()
        return row.consumable if row else None
    if kind == "license":
        seat = held_seats(user).filter(license_id=pk).first()
        return seat.license if seat else None
    if kind == "component":
        assets = list(held_assets(user).values_list("pk", flat=True))
        row = installed_components(user, assets).filter(component_id=pk).first()
        return row.component if row else None
    return None
