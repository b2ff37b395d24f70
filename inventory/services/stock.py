"""Accessories and consumables: stocks of identical units handed out by quantity (API-CONTRACT.md §10).

Each kind is a :class:`~inventory.services.checkout.QuantityKind` (the shared checkout shape: note rule, quantity rule,
the
item row locked, ``remaining`` computed under the lock, the one target rule, one log row, the domain signal) plus
its texts, and the services below create, update, delete and restore the item in one transaction each:

* ``qty`` is 1 to :data:`MAX_STOCK`; lowering it below the units out is a field error (checked on the locked row);
* the category must be of the kind's type (``accessory`` / ``consumable``);
* an accessory with units out cannot be deleted (reference §4.14); consumed units never block a delete;
* rule 7 decides the company of a new item; changing it follows the same rule.

One checkout is one assignment row holding its units (``assigned_qty``), not one row per unit as in Snipe-IT; an
accessory checkin by row id returns what that row holds, or ``checkin_qty`` of it (docs/decisions.md, issue 10).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import models, transaction
from django.db.models import Sum
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import model_update
from companies.querysets import caller_chooses_company
from inventory import signals
from inventory.choices import CategoryType, TargetType
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
)
from inventory.services.checkout import QuantityKind, log_company_id, target_type_of

#: The largest ``qty`` of a stock (API-CONTRACT.md §10).
MAX_STOCK = 100_000
#: An accessory checkout row that does not exist, is checked in already, or belongs to an invisible accessory.
CHECKOUT_ROW_NOT_FOUND = "The accessory checkout does not exist."
#: A component assignment row that does not exist, was taken out already, or belongs to an invisible component
#: (Snipe-IT's text).
COMPONENT_ROW_NOT_FOUND = "No matching checkouts for that component join record"
TARGET_NOT_FOUND = {TargetType.USER: "User not found", TargetType.ASSET: "Asset not found",
                    TargetType.LOCATION: "Location not found"}


class StockKind(QuantityKind):
    """What accessories and consumables share: texts of refusals, and the target location in the log row."""

    not_found_message: ClassVar[str]
    #: The input key naming a target of each type, for the field error of an unusable target.
    target_inputs: ClassVar[dict[str, str]] = {
        TargetType.USER: "assigned_user", TargetType.ASSET: "assigned_asset",
        TargetType.LOCATION: "assigned_location",
    }
    category_type: ClassVar[str]
    #: Texts of reference §4.14 and Snipe-IT's messages.
    delete_refused: ClassVar[str | None] = None
    label: ClassVar[str]
    #: The refusal of a checkin whose assignment row does not exist (or is gone, or invisible).
    row_not_found_message: ClassVar[str] = ""

    def not_found(self) -> Exception:
        return NotFoundError(self.not_found_message)

    def ensure_checked_out(self, item, assignment) -> None:
        if assignment is None or getattr(assignment, f"{self.item_field}_id") != item.pk:
            raise NotFoundError(self.row_not_found_message, code="checkout_not_found")

    def invalid_target(self, item, target_type, target_id, reason=None) -> Exception:
        key = self.target_inputs.get(target_type, "assigned_to")
        text = f"The selected {key.replace('_', ' ')} is invalid."
        return InvalidInputError(reason or TARGET_NOT_FOUND.get(target_type, "Target not found"),
                                 code="invalid_target", messages={key: [text]})

    def assign(self, item, target, *, actor, quantity, note, **options):
        fields = super().assign(item, target, actor=actor, quantity=quantity, note=note, **options)
        fields["location_id"] = (target.pk if target_type_of(target) == TargetType.LOCATION
                              else getattr(target, "location_id", None))
        return fields

    def units_out(self, item: models.Model) -> int:
        return (self.assignment_model._default_manager.filter(**{self.item_field: item})
                .aggregate(n=Sum(self.quantity_column))["n"] or 0)


class AccessoryKind(StockKind):
    """Accessories: to a user, an asset or a location; checked in by checkout row."""

    item_type = "accessory"
    model = Accessory
    assignment_model = AccessoryCheckout
    item_field = "accessory"
    checked_out = signals.accessory_checked_out
    checked_in = signals.accessory_checked_in
    not_found_message = "Accessory not found"
    category_type = CategoryType.ACCESSORY
    delete_refused = "This accessory cannot be deleted yet because some items are still checked out."
    label = "accessory"
    row_not_found_message = CHECKOUT_ROW_NOT_FOUND

    def not_enough(self, item, quantity: int) -> Exception:
        """Snipe-IT's ``checkout_qty.lte`` text, as a field error (422 in ``http`` mode)."""
        remaining = max(self.remaining(item), 0)
        if remaining == 1:
            text = (f"There is currently only one available accessory of this type, and you are trying to check out "
                    f"{quantity}. Please adjust the checkout quantity or the total stock of this accessory and try "
                    f"again.")
        else:
            text = (f"There are {remaining} total available accessories, and you are trying to check out {quantity}. "
                    f"Please adjust the checkout quantity or the total stock of this accessory and try again.")
        return InvalidInputError(text, code="not_enough_remaining", messages={self.quantity_field: [text]})


class ConsumableKind(StockKind):
    """Consumables: to a user only; used up, never checked in."""

    item_type = "consumable"
    model = Consumable
    assignment_model = ConsumableAssignment
    item_field = "consumable"
    targets = frozenset({TargetType.USER})
    returnable = False
    assignment_target_fields: ClassVar[dict[str, str]] = {TargetType.USER: "assigned_user"}
    target_inputs: ClassVar[dict[str, str]] = {TargetType.USER: "assigned_to"}
    checked_out = signals.consumable_checked_out
    not_found_message = "Consumable does not exist."
    category_type = CategoryType.CONSUMABLE
    label = "consumable"

    def not_enough(self, item, quantity: int) -> Exception:
        text = "There are not enough consumables for this checkout. Please check the quantity left."
        return InvalidInputError(text, code="not_enough_remaining", messages={self.quantity_field: [text]})

    def ensure_checked_out(self, item, assignment) -> None:
        raise ConflictError("Consumables are used up and cannot be checked in.", code="not_returnable")


class ComponentKind(StockKind):
    """Components: installed into an asset (``assigned_to``), taken out by assignment row with ``checkin_qty``;
    they send no notifications (API-CONTRACT.md §10)."""

    item_type = "component"
    model = Component
    assignment_model = ComponentAssignment
    item_field = "component"
    targets = frozenset({TargetType.ASSET})
    quantity_field = "assigned_qty"
    assignment_target_fields: ClassVar[dict[str, str]] = {TargetType.ASSET: "assigned_asset"}
    target_inputs: ClassVar[dict[str, str]] = {TargetType.ASSET: "assigned_to"}
    not_found_message = "Component does not exist."
    category_type = CategoryType.COMPONENT
    delete_refused = "Some components of this type are still checked out. Please check them in and try again."
    label = "component"
    row_not_found_message = COMPONENT_ROW_NOT_FOUND

    def not_enough(self, item, quantity: int) -> Exception:
        """Snipe-IT's text, as a field error on ``assigned_qty`` (422 in ``http`` mode)."""
        text = f"Not enough components remaining: {max(self.remaining(item), 0)} remaining, {quantity} requested"
        return InvalidInputError(text, code="not_enough_remaining", messages={self.quantity_field: [text]})


ACCESSORY = AccessoryKind()
CONSUMABLE = ConsumableKind()
COMPONENT = ComponentKind()
STOCK_KINDS: dict[type[models.Model], StockKind] = {Accessory: ACCESSORY, Consumable: CONSUMABLE,
                                                    Component: COMPONENT}


# --- services -----------------------------------------------------------------------------------------------------


def _log(action: str, item: models.Model, actor: User | None, meta: dict | None = None) -> None:
    """The action-log row of a create / update / delete / restore, then its lifecycle signal."""
    kind = STOCK_KINDS[type(item)]
    log = log_action(action_type=action, item_type=kind.item_type, item_id=item.pk, actor=actor,
                     company_id=log_company_id(actor, item, None), item=item, log_meta=meta)
    signals.send_lifecycle(kind.item_type, action, item=item, actor=actor, log=log)


def check_category(kind: StockKind, data: dict[str, Any]) -> None:
    category = data.get("category")
    if category is not None and category.category_type != kind.category_type:
        text = f"The category must be {'an' if kind.label[0] in 'aeiou' else 'a'} {kind.label} category."
        raise InvalidInputError(text, messages={"category_id": [text]})


def check_qty(kind: StockKind, item: models.Model, qty: int) -> None:
    """``qty`` may not go below the units out (consumed units included), read on the locked row."""
    out = kind.units_out(item)
    if qty < out:
        text = f"The qty must be at least {out}: {out} {'is' if out == 1 else 'are'} checked out."
        raise InvalidInputError(text, messages={"qty": [text]})


@transaction.atomic
def stock_create(*, model: type[models.Model], data: dict[str, Any], actor: User | None, pk: int | None = None,
                 log: bool = True) -> models.Model:
    """Create an accessory or a consumable (its company by rule 7) and log ``create``.

    ``pk`` and ``log=False`` are for the Snipe-IT import (issue 31): the item keeps its Snipe-IT id, and its history
    comes from Snipe-IT's action log (no ``create`` row, no signal)."""
    kind = STOCK_KINDS[model]
    check_category(kind, data)
    data = dict(data)
    if not caller_chooses_company(actor):
        data["company"] = getattr(actor, "company", None)
    item = model(**data)
    if pk is not None:
        item.pk = pk
    if actor is not None and actor.pk:
        item.created_by = actor
    item.save(force_insert=pk is not None)
    if log:
        _log(ActionType.CREATE, item, actor)
    return item


@transaction.atomic
def stock_update(*, item: models.Model, data: dict[str, Any], actor: User | None) -> models.Model:
    """Apply validated (partial) changes on the locked row; ``qty`` never below what is out; log the changes."""
    kind = STOCK_KINDS[type(item)]
    locked = kind.lock(item)
    if locked.deleted_at is not None:
        raise ConflictError("This item has been deleted. Restore it before editing it.", code="deleted")
    check_category(kind, data)
    if "qty" in data:
        check_qty(kind, locked, data["qty"])
    if "company" in data and not caller_chooses_company(actor):
        data = {key: value for key, value in data.items() if key != "company"}
    changes = model_update(locked, data)
    locked.save()
    if changes:
        _log(ActionType.UPDATE, locked, actor, changes)
    return locked


@transaction.atomic
def stock_delete(*, item: models.Model, actor: User | None) -> None:
    """Soft-delete; an accessory with units out is refused (reference §4.14), consumed units never block."""
    kind = STOCK_KINDS[type(item)]
    locked = kind.lock(item)
    if locked.deleted_at is not None:
        raise kind.not_found()
    if kind.returnable and kind.delete_refused and kind.units_out(locked):
        raise ConflictError(kind.delete_refused, code="in_use")
    locked.deleted_at = timezone.now()
    locked.save(update_fields=["deleted_at", "updated_at"])
    _log(ActionType.DELETE, locked, actor)


@transaction.atomic
def stock_restore(*, item: models.Model, actor: User | None) -> models.Model:
    """Bring a soft-deleted accessory or consumable back."""
    kind = STOCK_KINDS[type(item)]
    locked = kind.lock(item)
    if locked.deleted_at is None:
        raise ConflictError(f"The {kind.label} was not deleted and therefore cannot be restored",
                            code="not_deleted")
    locked.deleted_at = None
    locked.save(update_fields=["deleted_at", "updated_at"])
    _log(ActionType.RESTORE, locked, actor)
    return locked


def assignment_row(kind: StockKind, pk: Any, actor: User) -> models.Model | None:
    """The assignment row ``pk`` of ``kind`` (an accessory checkout, a component's installed units) whose live item
    the caller may see (company separation), with its item and holder; None otherwise."""
    try:
        pk = int(str(pk).strip())
    except (TypeError, ValueError):
        return None
    if not 0 < pk < 2**62:
        return None
    visible = kind.model.objects.restrict(actor).filter(deleted_at__isnull=True)
    related = [kind.item_field, *kind.assignment_target_fields.values()]
    return (kind.assignment_model._default_manager.select_related(*related)
            .filter(pk=pk, **{f"{kind.item_field}__in": visible}).first())
