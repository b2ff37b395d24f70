"""Predefined kits (Snipe-IT's ``PredefinedKit``): create, update, delete, their lines, and the checkout of a whole
kit to a user in one transaction.

Kits are shared records (no company). As for the shared catalogue records (issue 25), a kit and its lines are
changed only by callers whom company separation does not limit (``ensure_may_change_shared``); anyone with
``kits.create`` may create one. What a limited caller *sees* of a kit is filtered per line: a line whose license,
accessory or consumable belongs to another company is hidden (:func:`visible_lines`), and a checkout never hands
out what the caller could not check out item by item.

:func:`kit_checkout` checks a kit out to a user, all or nothing: it locks what it will hand out (the assets picked
for each model line, each license, accessory and consumable), decides every shortage before changing anything, and
then calls the kinds' own checkout (``item_checkout`` with ``ASSET``, ``LICENSE``, ``ACCESSORY``, ``CONSUMABLE``), so
the note rule, the locks, the log rows and the signals are those of a single checkout. One short line and nothing
is checked out; the refusal lists every line that is short (Snipe-IT's texts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import models, transaction

from accounts.models import User
from accounts.permissions import has_access
from accounts.services import USER_NOT_FOUND
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update, save_unique
from companies.querysets import may_change_catalogue_record
from inventory.models import (
    Accessory,
    Asset,
    AssetModel,
    Consumable,
    Kit,
    KitAccessory,
    KitConsumable,
    KitLicense,
    KitLine,
    KitModel,
    License,
)
from inventory.services.assets import ASSET
from inventory.services.catalogue import ensure_may_change_shared
from inventory.services.checkout import CheckoutKind, item_checkout, require_note, visible_target
from inventory.services.licenses import LICENSE
from inventory.services.stock import ACCESSORY, CONSUMABLE

ITEM_TYPE = "kit"
NOT_FOUND = "PredefinedKit not found"
NAME_TAKEN = "The name has already been taken."
#: The largest quantity of one line (what a stock may hold).
MAX_LINE_QUANTITY = 100_000
CHECKOUT_ERROR = "Checkout error"
CHECKOUT_SUCCESS = "Checkout was successful"
#: A line a limited caller may not see: named by nothing, so the refusal does not tell what another company holds.
HIDDEN_LINE_SHORT = "This kit contains items you cannot check out."


@dataclass(frozen=True)
class LineKind:
    """One of the four kinds of kit line: its route segment (``models``), pivot model, item model and field, the
    checkout kind and permission key, and Snipe-IT's texts."""

    segment: str
    line_model: type[KitLine]
    item_model: type[models.Model]
    field: str
    #: The checkout permission key; None for none (Snipe-IT checks ``assets.checkout`` for model lines).
    checkout_key: str
    scoped: bool
    added: str
    updated: str
    removed: str
    already: str
    none: str
    short: str

    def lines(self, kit: Kit | int) -> models.QuerySet:
        """The kit's lines of this kind whose item is live (a soft-deleted item's line is kept but not shown)."""
        return (self.line_model._default_manager.filter(kit=kit, **{f"{self.field}__deleted_at__isnull": True})
                .select_related(self.field).order_by("id"))

    def visible_items(self, user: User | None) -> models.QuerySet:
        items = self.item_model._default_manager.filter(deleted_at__isnull=True)
        return items.restrict(user) if self.scoped else items


LINE_KINDS: dict[str, LineKind] = {
    "models": LineKind(
        "models", KitModel, AssetModel, "model", "assets.checkout", False,
        added="Model added successfull", updated="Model was successfully updated",
        removed="Model was successfully detached", already="Model already attached to kit",
        none="Model does not exist",
        short="There are not enough available assets for {name} to checkout. {qty} are required. "),
    "licenses": LineKind(
        "licenses", KitLicense, License, "license", "licenses.checkout", True,
        added="License added successfully", updated="License was successfully updated",
        removed="License was successfully detached", already="License already attached to kit",
        none="License does not exist",
        short="There are not enough available seats for {name} to checkout. {qty} are required. "),
    "accessories": LineKind(
        "accessories", KitAccessory, Accessory, "accessory", "accessories.checkout", True,
        added="Accessory added successfully", updated="Accessory was successfully updated",
        removed="Delete was successful", already="Accessory already attached to kit",
        none="The accessory does not exist",
        short="There are not enough available units of {name} to checkout. {qty} are required. "),
    "consumables": LineKind(
        "consumables", KitConsumable, Consumable, "consumable", "consumables.checkout", True,
        added="Consumable added successfully", updated="Consumable was successfully updated",
        removed="Delete was successful", already="Consumable already attached to kit",
        none="Consumable does not exist",
        short="There are not enough available units of {name} to checkout. {qty} are required. "),
}


def visible_lines(kit: Kit | int, kind: LineKind, user: User | None) -> models.QuerySet:
    """The lines of ``kit`` of ``kind`` that ``user`` may see: live items, and for licenses, accessories and
    consumables only those of companies the caller sees (company separation), so a shared kit never shows another
    company's item to a limited caller."""
    lines = kind.lines(kit)
    if kind.scoped:
        lines = lines.filter(**{f"{kind.field}__in": kind.visible_items(user)})
    return lines


def visible_lines_of_kind(kind: LineKind, user: User | None) -> models.QuerySet:
    """Every kit's lines of ``kind`` that ``user`` may see (the admin's inlines)."""
    lines = kind.line_model._default_manager.all()
    if kind.scoped:
        lines = lines.filter(**{f"{kind.field}__in": kind.visible_items(user)})
    return lines


def may_change_kits(user: User | None) -> bool:
    """Whether ``user`` may change kits and their lines (shared records: issue 25's rule)."""
    return may_change_catalogue_record(user, None)


# --- the kit record -------------------------------------------------------------------------------------------------


def _log(action: str, kit: Kit, actor: User | None, meta: dict | None = None) -> None:
    log_action(action_type=action, item_type=ITEM_TYPE, item_id=kit.pk, actor=actor, company_id=None, item=kit,
               log_meta=meta)


def _save(kit: Kit) -> None:
    save_unique(kit, lambda exc: InvalidInputError(NAME_TAKEN, messages={"name": [NAME_TAKEN]}))


def name_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    rows = Kit.objects.filter(name__iexact=name)
    return (rows.exclude(pk=exclude_pk) if exclude_pk else rows).exists()


def _locked(kit: Kit | int, actor: User | None) -> Kit:
    locked = lock_or_not_found(Kit, kit, lambda: NotFoundError(NOT_FOUND))
    ensure_may_change_shared(actor, locked)
    return locked


@transaction.atomic
def kit_create(*, model: type[Kit] = Kit, data: dict[str, Any], actor: User | None, pk: int | None = None,
               log: bool = True) -> Kit:
    """Create a kit (``name``) and log it. ``pk`` and ``log=False``: the Snipe-IT import (issue 31)."""
    kit = model(**data)
    if pk is not None:
        kit.pk = pk
    if actor is not None and actor.pk:
        kit.created_by = actor
    _save(kit)
    if log:
        _log(ActionType.CREATE, kit, actor)
    return kit


@transaction.atomic
def kit_update(*, item: Kit, data: dict[str, Any], actor: User | None) -> Kit:
    """Rename a kit (locked first; only callers separation does not limit), logging what changed."""
    kit = _locked(item, actor)
    changes = model_update(kit, data)
    if changes:
        _save(kit)
        _log(ActionType.UPDATE, kit, actor, changes)
    return kit


@transaction.atomic
def kit_delete(*, item: Kit, actor: User | None) -> None:
    """Delete a kit and its lines (Snipe-IT detaches them first); nothing it lists is touched."""
    kit = _locked(item, actor)
    _log(ActionType.DELETE, kit, actor)
    kit.delete()


# --- lines ----------------------------------------------------------------------------------------------------------


def ensure_line_quantity(quantity: Any) -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= MAX_LINE_QUANTITY:
        text = f"The quantity must be between 1 and {MAX_LINE_QUANTITY}."
        raise InvalidInputError(text, messages={"quantity": [text]})
    return quantity


def _line_log(kit: Kit, actor: User | None, kind: LineKind, item_id: int | None, old: tuple, new: tuple) -> None:
    _log(ActionType.UPDATE, kit, actor, {
        f"{kind.field}_id": {"old": old[0], "new": new[0]},
        f"{kind.field}_quantity": {"old": old[1], "new": new[1]},
    })


@transaction.atomic
def kit_line_add(*, kit: Kit, kind: LineKind, item: models.Model, quantity: int, actor: User | None,
                 pk: int | None = None, log: bool = True) -> KitLine:
    """Put ``quantity`` of ``item`` on ``kit``; an item already on the kit is refused (Snipe-IT's text). ``pk`` (the
    line's ``pivot_id``) and ``log=False``: the Snipe-IT import (issue 31)."""
    kit = _locked(kit, actor)
    ensure_line_quantity(quantity)
    if not kind.visible_items(actor).filter(pk=item.pk).exists():
        text = f"The selected {kind.field} is invalid."
        raise InvalidInputError(text, messages={kind.field: [text]})
    if kind.line_model._default_manager.filter(kit=kit, **{kind.field: item}).exists():
        raise InvalidInputError(kind.already, code="already_attached", messages={kind.field: [kind.already]})
    line = kind.line_model._default_manager.create(pk=pk, kit=kit, quantity=quantity, **{kind.field: item})
    if log:
        _line_log(kit, actor, kind, item.pk, (None, None), (item.pk, quantity))
    return line


def _locked_line(kit: Kit, kind: LineKind, item_id: Any, actor: User | None) -> KitLine:
    try:
        line = visible_lines(kit, kind, actor).select_for_update(of=("self",)).filter(
            **{f"{kind.field}_id": int(item_id)}).first()
    except (TypeError, ValueError, OverflowError):
        line = None
    if line is None:
        raise NotFoundError(kind.none)
    return line


@transaction.atomic
def kit_line_update(*, kit: Kit, kind: LineKind, item_id: Any, quantity: int, actor: User | None) -> KitLine:
    """Change the quantity of the line of ``item_id`` (an item not on the kit is not found)."""
    kit = _locked(kit, actor)
    ensure_line_quantity(quantity)
    line = _locked_line(kit, kind, item_id, actor)
    old = line.quantity
    if old != quantity:
        line.quantity = quantity
        line.save(update_fields=["quantity", "updated_at"])
        _line_log(kit, actor, kind, line.item.pk, (line.item.pk, old), (line.item.pk, quantity))
    return line


@transaction.atomic
def kit_line_remove(*, kit: Kit, kind: LineKind, item_id: Any, actor: User | None) -> None:
    """Take the line of ``item_id`` off the kit (an item not on the kit is not found)."""
    kit = _locked(kit, actor)
    line = _locked_line(kit, kind, item_id, actor)
    pk, quantity = getattr(line, f"{kind.field}_id"), line.quantity
    line.delete()
    _line_log(kit, actor, kind, pk, (pk, quantity), (None, None))


# --- checkout -------------------------------------------------------------------------------------------------------


@dataclass
class KitCheckout:
    """What a kit checkout handed out."""

    assets: list[Asset] = field(default_factory=list)
    licenses: list[License] = field(default_factory=list)
    accessories: list[Accessory] = field(default_factory=list)
    consumables: list[Consumable] = field(default_factory=list)


def kit_checkout_keys(kit: Kit | int) -> set[str]:
    """The checkout keys a kit's checkout needs: one per kind of line it has (live items)."""
    return {kind.checkout_key for kind in LINE_KINDS.values() if kind.lines(kit).exists()}


def _available_assets(model_id: int, actor: User, count: int) -> list[Asset]:
    """Up to ``count`` deployable, unassigned live assets of a model that ``actor`` may check out, locked (rows a
    concurrent checkout holds are skipped, and conditions are re-checked under the lock on PostgreSQL)."""
    rows = (Asset.objects.restrict(actor, "checkout").available().filter(model_id=model_id)
            .select_for_update(skip_locked=True, of=("self",)).order_by("pk"))
    return list(rows[:count])


def _plan(kit: Kit, actor: User) -> tuple[list[tuple[CheckoutKind, models.Model, int]], dict[str, list[str]]]:
    """Every checkout the kit needs and every shortage, with what will be handed out locked."""
    plan: list[tuple[CheckoutKind, models.Model, int]] = []
    short: dict[str, list[str]] = {}
    for kind in LINE_KINDS.values():
        all_lines = list(kind.lines(kit))
        visible = {line.pk for line in visible_lines(kit, kind, actor)}
        for line in all_lines:
            item = line.item
            if line.pk not in visible:
                short.setdefault(kind.segment, []).append(HIDDEN_LINE_SHORT)
                continue
            if kind.segment == "models":
                assets = _available_assets(item.pk, actor, line.quantity)
                if len(assets) < line.quantity:
                    short.setdefault(kind.segment, []).append(kind.short.format(name=item.name, qty=line.quantity))
                plan.extend((ASSET, asset, 1) for asset in assets)
                continue
            checkout_kind = {"licenses": LICENSE, "accessories": ACCESSORY, "consumables": CONSUMABLE}[kind.segment]
            locked = checkout_kind.lock(item)
            if locked.deleted_at is not None or checkout_kind.remaining(locked) < line.quantity:
                short.setdefault(kind.segment, []).append(kind.short.format(name=item.name, qty=line.quantity))
                continue
            if kind.segment == "licenses":
                plan.extend((LICENSE, locked, 1) for _ in range(line.quantity))
            else:
                plan.append((checkout_kind, locked, line.quantity))
    return plan, short


@transaction.atomic
def kit_checkout(*, kit: Kit | int, target: User, actor: User, note: str = "", checkout_at: datetime | None = None,
                 expected_checkin: date | None = None) -> KitCheckout:
    """Check everything ``kit`` lists out to the user ``target``, all or nothing.

    Refused with 403 when the caller lacks the checkout key of a kind the kit holds; with ``ConflictError``
    (``kit_not_available``, ``messages`` listing each short line by kind) when anything is short; with the user
    input's field error when the user is not one the caller may check out to. Each item goes through its kind's
    checkout (its own log row and signal)."""
    kit = lock_or_not_found(Kit, kit, lambda: NotFoundError(NOT_FOUND))
    if any(not has_access(actor, key) for key in kit_checkout_keys(kit)):
        raise PermissionDenied("the kit holds items of a kind the caller may not check out")
    require_note(note)
    if not isinstance(target, User) or not visible_target(target, actor):
        raise InvalidInputError(USER_NOT_FOUND, code="invalid_target", messages={"user_id": [USER_NOT_FOUND]})
    plan, short = _plan(kit, actor)
    if short:
        raise ConflictError(CHECKOUT_ERROR, code="kit_not_available", messages=short)
    done = KitCheckout()
    for checkout_kind, item, quantity in plan:
        options: dict[str, Any] = {}
        if checkout_kind is ASSET:
            options = {"checkout_at": checkout_at, "expected_checkin": expected_checkin}
        item_checkout(kind=checkout_kind, item=item, target=target, actor=actor, quantity=quantity, note=note,
                      **options)
        bucket = {ASSET: done.assets, LICENSE: done.licenses, ACCESSORY: done.accessories,
                  CONSUMABLE: done.consumables}[checkout_kind]
        bucket.append(item)
    return done
