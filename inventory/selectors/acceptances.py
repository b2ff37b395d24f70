"""Reads of checkout acceptances (issues 29 and 32) shared by the API (``account/eulas``, ``users/{id}/eulas``) and
the portal's "Waiting for me" and "Agreements" pages."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import QuerySet

from inventory.models import Accessory, Asset, CheckoutAcceptance, Component, Consumable, License

#: The model of each acceptance's ``item_type`` (the checkout kinds' models).
MODELS = {"asset": Asset, "accessory": Accessory, "consumable": Consumable, "component": Component, "license": License}


def accepted_of(user_id: int) -> QuerySet:
    """The acceptances ``user_id`` accepted that have a signed PDF, newest first."""
    return (CheckoutAcceptance.objects.filter(user_id=user_id, state=CheckoutAcceptance.State.ACCEPTED,
                                              signed_file__isnull=False)
            .select_related("signed_file").order_by("-answered_at", "-id"))


def pending_of(user_id: int) -> QuerySet:
    """The checkouts awaiting ``user_id``'s answer, oldest first, with who handed each out."""
    return (CheckoutAcceptance.objects.pending().filter(user_id=user_id)
            .select_related("user", "checkout_log__created_by").order_by("created_at", "id"))


def pending_count(user_id: int) -> int:
    return CheckoutAcceptance.objects.pending().filter(user_id=user_id).count()


def acceptance_items(rows: list[CheckoutAcceptance]) -> dict[tuple[str, int], Any]:
    """The items of ``rows`` (soft-deleted ones too), one query per kind present (never one per row)."""
    ids: dict[str, set[int]] = defaultdict(set)
    for row in rows:
        ids[row.item_type].add(row.item_id)
    items: dict[tuple[str, int], Any] = {}
    for item_type, pks in ids.items():
        model = MODELS[item_type]
        found = model._base_manager.filter(pk__in=pks)
        if model is Asset:
            found = found.select_related("model")
        items.update({(item_type, item.pk): item for item in found})
    return items


def item_names(rows: list[CheckoutAcceptance]) -> dict[tuple[str, int], str]:
    """The items' names, one query per kind present (never one per row)."""
    ids: dict[str, set[int]] = defaultdict(set)
    for row in rows:
        ids[row.item_type].add(row.item_id)
    names: dict[tuple[str, int], str] = {}
    for item_type, pks in ids.items():
        model = MODELS[item_type]
        if model is Asset:
            for asset in Asset.objects.select_related("model").filter(pk__in=pks):
                names[item_type, asset.pk] = f"{asset.asset_tag} ({asset.display_name})"
        else:
            names.update({(item_type, pk): name for pk, name in
                          model._base_manager.filter(pk__in=pks).values_list("pk", "name")})
    return names
