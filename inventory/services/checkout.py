"""One checkout shape for every tracked kind: ``item_checkout`` / ``item_checkin``, parameterised by a kind.

A kind (:class:`CheckoutKind`) declares what differs: its model and action-log ``item_type``, the target types it
accepts, how its row is locked, when it is available, and what checking out or in changes. Everything else is
shared, in this order, in one transaction:

1. the note rule (``require_checkinout_notes``) and the quantity (a whole number from 1 to :data:`MAX_QUANTITY`);
2. the item row re-read with ``select_for_update()`` (a missing row is the kind's "not found"), so of two racing
   checkouts one wins and a quantity is never over-issued;
3. the kind's availability check (assets: not assigned, deployable; quantity kinds: ``quantity <= remaining``);
4. the target: of a type the kind accepts, visible to the caller (company separation), a live and active user, a
   live asset or an existing location (:func:`check_target`), then the kind's own rules (assets: not itself, no
   assignment loop);
5. the change (``assign`` / ``unassign``), one action-log row, and the kind's domain signal.

A checkout to a user of an item whose category has ``require_acceptance`` also opens a pending
:class:`~inventory.models.CheckoutAcceptance` (issue 29, :func:`acceptance_open`), passed in the signal as
``acceptance``; a whole checkin of that item or assignment row cancels a pending one (:func:`acceptance_cancel`).
The answers are ``inventory.services.acceptance``.

Assets are the kind with quantity 1 whose assignment lives on the asset row. Kinds handed out by quantity
(accessories, consumables, components, license seats) subclass :class:`QuantityKind`: each checkout is an assignment
row with a quantity, and what is left is the item's total minus the assigned quantities, computed by a subquery on
the locked item.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import IntegerField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.utils import timezone

from accounts.models import User
from activity.choices import ActionType
from activity.models import ActionLog
from activity.services import log_action
from assetsvc.exceptions import InvalidInputError
from assetsvc.services import lock_or_not_found
from assetsvc.site import get_site_settings
from inventory.acceptance_links import new_nonce
from inventory.choices import TargetType
from inventory.models import Asset, Category, CheckoutAcceptance, Location, target_type_of

Target = User | Asset | Location
NOTE_REQUIRED = "The note field is required."
#: The largest quantity one checkout may hand out (a 32-bit column holds every total).
MAX_QUANTITY = 2_147_483_647
NOT_ENOUGH = "There are not enough items remaining to check out {quantity}."

#: Every kind that can be checked out, by ``item_type`` (filled by the kinds' modules at import).
CHECKOUT_KINDS: dict[str, CheckoutKind] = {}


def require_note(note: str) -> None:
    if get_site_settings().require_checkinout_notes and not (note or "").strip():
        raise ValidationError({"note": [NOTE_REQUIRED]})


def ensure_quantity(quantity: Any, field: str = "checkout_qty") -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= MAX_QUANTITY:
        text = f"The {field.replace('_', ' ')} must be at least 1."
        raise InvalidInputError(text, messages={field: [text]})
    return quantity


def log_company_id(actor: User | None, item: models.Model, target: Target | None) -> int | None:
    """The company an action-log row belongs to: the item's, whoever acts and wherever it goes (issue 25).

    Snipe-IT files a super user's row under the target's company and anyone else's under their own (reference §8,
    last bullets), so a cross-company checkout showed company B's asset to company A and took it out of B's history.
    The target's company sees the row through ``ActionLog.target_company``, without the item."""
    return getattr(item, "company_id", None)


def _usable_targets(model: type[models.Model], actor: User) -> models.QuerySet:
    """The one target rule, as the rows of ``model`` the caller may use: a user the caller may see, live and
    active; an asset the caller may see, live; an existing location (locations are shared)."""
    if issubclass(model, User):
        return User.objects.restrict(actor).filter(deleted_at__isnull=True, is_active=True)
    if issubclass(model, Asset):
        return Asset.objects.restrict(actor).filter(deleted_at__isnull=True)
    return Location.objects.all()


def visible_target(target: Target, actor: User) -> bool:
    """Whether ``target`` is (still) a target the caller may use."""
    if isinstance(target, Asset) and target.deleted_at is not None:
        return False
    return _usable_targets(type(target), actor).filter(pk=target.pk).exists()


def resolve_target(target_type: str, pk: int, actor: User) -> Target | None:
    """The checkout target named by a request (type and id), if the caller may use it; None otherwise (one query).
    Used by the API's checkout actions, so every kind resolves targets the same way."""
    if isinstance(pk, bool) or not isinstance(pk, int) or abs(pk) > 2**62:
        return None
    model = {TargetType.USER: User, TargetType.ASSET: Asset, TargetType.LOCATION: Location}.get(target_type)
    if model is None:
        return None
    return _usable_targets(model, actor).filter(pk=pk).first()


class CheckoutKind(ABC):
    """What one kind of item declares to be checked out and in (see the module docstring for the shared steps)."""

    #: ``action_logs.item_type`` (Snipe-IT's), also the key in :data:`CHECKOUT_KINDS`.
    item_type: ClassVar[str]
    model: ClassVar[type[models.Model]]
    #: Target types this kind may be checked out to.
    targets: ClassVar[frozenset[str]] = frozenset({TargetType.USER, TargetType.ASSET, TargetType.LOCATION})
    checked_out: ClassVar[Signal | None] = None
    checked_in: ClassVar[Signal | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "item_type" in cls.__dict__:
            CHECKOUT_KINDS[cls.item_type] = cls()

    # --- declarations each kind fills in ---------------------------------------------------------------------------

    @abstractmethod
    def not_found(self) -> Exception:
        raise NotImplementedError

    @abstractmethod
    def invalid_target(self, item: models.Model, target_type: str, target_id: Any, reason: str | None = None
                       ) -> Exception:
        raise NotImplementedError

    def acceptance_category(self, item: models.Model) -> Category | None:
        """The item's category when it requires acceptance (issue 29), else None: one query (a kind whose lock reads
        the category with the item answers without one)."""
        return Category.objects.filter(pk=getattr(item, "category_id", None), require_acceptance=True).first()

    def assignment_of(self, item: models.Model) -> Any:
        """The assignment row the last :meth:`assign` made (the ``assignment_id`` of an acceptance), or None."""
        return getattr(item, "checkout_row", None)

    def lock(self, item: models.Model | int) -> models.Model:
        return lock_or_not_found(self.model, item, self.not_found)

    def ensure_live(self, item: models.Model) -> None:
        """A soft-deleted item is not found for checkout and checkin."""
        if getattr(item, "deleted_at", None) is not None:
            raise self.not_found()

    def lock_for_checkout(self, item: models.Model, target: Target) -> tuple[models.Model, Target]:
        """The locked item and the target to use (a kind may lock the target too)."""
        return self.lock(item), target

    @abstractmethod
    def ensure_available(self, item: models.Model, *, quantity: int, **options: Any) -> None:
        raise NotImplementedError

    def check_target(self, item: models.Model, target: Target, actor: User) -> None:
        if not visible_target(target, actor):
            raise self.invalid_target(item, target_type_of(target), target.pk)

    @abstractmethod
    def assign(self, item: models.Model, target: Target, *, actor: User, quantity: int, note: str,
               **options: Any) -> dict[str, Any]:
        """Make the change; return extra action-log fields (``log_meta``, ``location_id``, ``action_date`` ...)."""
        raise NotImplementedError

    def lock_assignment(self, item: models.Model, assignment: Any) -> Any:
        """The assignment to check in, as it is now that the item is locked (a kind with assignment rows re-reads
        it: a concurrent checkin may have removed it)."""
        return assignment

    @abstractmethod
    def ensure_checked_out(self, item: models.Model, assignment: Any) -> None:
        raise NotImplementedError

    @abstractmethod
    def unassign(self, item: models.Model, *, assignment: Any, actor: User, quantity: int | None, note: str,
                 **options: Any) -> tuple[Target | None, dict[str, Any]]:
        """Undo (part of) an assignment; return the previous target and extra action-log fields."""
        raise NotImplementedError


def _log(action_type: str, kind: CheckoutKind, item: models.Model, actor: User, target: Target | None, note: str,
         fields: dict[str, Any]) -> ActionLog:
    return log_action(
        action_type=action_type, item_type=kind.item_type, item_id=item.pk, actor=actor,
        company_id=log_company_id(actor, item, target), target_type=target_type_of(target),
        target_id=target.pk if target is not None else None, item=item, target=target, note=note, **fields,
    )


@transaction.atomic
def item_checkout(*, kind: CheckoutKind, item: models.Model, target: Target, actor: User, quantity: int = 1,
                  note: str = "", **options: Any) -> models.Model:
    """Check ``quantity`` units of ``item`` out to ``target`` (the module docstring lists the steps)."""
    require_note(note)
    ensure_quantity(quantity, getattr(kind, "quantity_field", "checkout_qty"))
    if target_type_of(target) not in kind.targets:
        raise kind.invalid_target(item, target_type_of(target), target.pk)
    locked, target = kind.lock_for_checkout(item, target)
    kind.ensure_available(locked, quantity=quantity, **options)
    kind.check_target(locked, target, actor)
    fields = kind.assign(locked, target, actor=actor, quantity=quantity, note=note, **options)
    log = _log(ActionType.CHECKOUT, kind, locked, actor, target, note, fields)
    acceptance = acceptance_open(kind=kind, item=locked, target=target, log=log)
    if kind.checked_out is not None:
        kind.checked_out.send(sender=kind.model, item=locked, actor=actor, target=target, note=note, log=log,
                              quantity=quantity, acceptance=acceptance)
    return locked


def eula_of(category: Category) -> str:
    """The EULA a category's items are handed out under: the site's default when the category uses it, else its
    own text (Snipe-IT's ``getEula``); may be empty."""
    if category.use_default_eula:
        return get_site_settings().default_eula_text or ""
    return category.eula_text or ""


def acceptance_open(*, kind: CheckoutKind, item: models.Model, target: Target, log: ActionLog
                    ) -> CheckoutAcceptance | None:
    """The pending acceptance of a checkout to a user whose item's category requires one (one read of the category,
    one insert), or None. The EULA is kept as it is now, with its SHA-256, so what is signed is what was shown."""
    if not isinstance(target, User):
        return None
    category = kind.acceptance_category(item)
    if category is None:
        return None
    eula = eula_of(category)
    assignment = kind.assignment_of(item)
    return CheckoutAcceptance.objects.create(
        item_type=kind.item_type, item_id=item.pk, assignment_id=assignment.pk if assignment is not None else None,
        checkout_log=log, user=target, company_id=getattr(item, "company_id", None), eula_text=eula,
        eula_sha256=hashlib.sha256(eula.encode()).hexdigest() if eula else "", link_nonce=new_nonce(),
    )


def acceptance_cancel(*, kind: CheckoutKind, item: models.Model, assignment_id: int | None = None) -> int:
    """Cancel the pending acceptances of ``item`` (of one assignment row when given): the item came back before its
    person answered, so the link now answers "no longer waiting". One UPDATE; answers how many rows."""
    rows = CheckoutAcceptance.objects.pending().for_item(kind.item_type, item.pk)
    if assignment_id is not None:
        rows = rows.filter(assignment_id=assignment_id)
    return rows.update(state=CheckoutAcceptance.State.CANCELED, answered_at=timezone.now())


def checkin_locked(*, kind: CheckoutKind, locked: models.Model, actor: User, assignment: Any = None,
                   quantity: int | None = None, note: str = "", declined: bool = False,
                   **options: Any) -> models.Model:
    """Check in an item whose row the caller already holds locked (a delete checks its item in first).

    ``declined``: the person declined the checkout (``inventory.services.acceptance``), so even a kind that is never
    returned (consumables) takes its handout back (docs/decisions.md, "Issue 29: acceptance")."""
    assignment = kind.lock_assignment(locked, assignment)
    if declined and isinstance(kind, QuantityKind) and not kind.returnable:
        QuantityKind.ensure_checked_out(kind, locked, assignment)
    else:
        kind.ensure_checked_out(locked, assignment)
    held = getattr(assignment, getattr(kind, "quantity_column", ""), None) if assignment is not None else None
    assignment_id = assignment.pk if assignment is not None else None  # a whole checkin deletes the row
    previous, fields = kind.unassign(locked, assignment=assignment, actor=actor, quantity=quantity, note=note,
                                     **options)
    # A whole checkin: what was waiting for an answer no longer is (a kind whose lock read that nothing waits,
    # ``acceptance_pending`` False, spares the UPDATE).
    if (quantity is None or quantity == held) and getattr(locked, "acceptance_pending", True):
        acceptance_cancel(kind=kind, item=locked, assignment_id=assignment_id)
    log = _log(ActionType.CHECKIN, kind, locked, actor, previous, note, fields)
    if quantity is None:  # a whole checkin: the signal carries what came back (the log's checkin_qty)
        quantity = ((fields.get("log_meta") or {}).get("checkin_qty") or {}).get("new")
    if kind.checked_in is not None:
        kind.checked_in.send(sender=kind.model, item=locked, actor=actor, target=previous, note=note, log=log,
                             quantity=quantity)
    return locked


@transaction.atomic
def item_checkin(*, kind: CheckoutKind, item: models.Model, actor: User, assignment: Any = None,
                 quantity: int | None = None, note: str = "", **options: Any) -> models.Model:
    """Check ``item`` (or one of its assignment rows, or part of its quantity) back in (``declined=True``: see
    :func:`checkin_locked`)."""
    require_note(note)
    if quantity is not None:
        ensure_quantity(quantity, "checkin_qty")
    locked = kind.lock(item)
    kind.ensure_live(locked)
    return checkin_locked(kind=kind, locked=locked, actor=actor, assignment=assignment, quantity=quantity,
                          note=note, **options)


class QuantityKind(CheckoutKind):
    """A kind handed out by quantity: each checkout is a row of ``assignment_model`` (its ``item_field`` points at
    the item, ``quantity_column`` holds the units), and ``remaining = item.<total_field> - SUM(assigned units)`` is
    computed on the locked item, so concurrent checkouts never over-issue."""

    assignment_model: ClassVar[type[models.Model]]
    item_field: ClassVar[str]
    total_field: ClassVar[str] = "qty"
    quantity_column: ClassVar[str] = "assigned_qty"
    #: The input name of the quantity, in refusals (``checkout_qty``, ``assigned_qty``).
    quantity_field: ClassVar[str] = "checkout_qty"
    #: Kinds whose units are used up (consumables) are never checked in.
    returnable: ClassVar[bool] = True
    assignment_target_fields: ClassVar[dict[str, str]] = {
        TargetType.USER: "assigned_user", TargetType.ASSET: "assigned_asset", TargetType.LOCATION: "assigned_location",
    }

    def assigned_subquery(self) -> Coalesce:
        """Units assigned per item, as a correlated subquery (annotate it on item lists: one query per page)."""
        rows = (self.assignment_model._default_manager.filter(**{self.item_field: OuterRef("pk")}).order_by()
                .values(self.item_field).annotate(n=Sum(self.quantity_column)).values("n")[:1])
        return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))

    def remaining(self, item: models.Model) -> int:
        assigned = (self.assignment_model._default_manager.filter(**{self.item_field: item})
                    .aggregate(n=Sum(self.quantity_column))["n"] or 0)
        return getattr(item, self.total_field) - assigned

    def not_enough(self, item: models.Model, quantity: int) -> Exception:
        """A field error on the quantity input (API-CONTRACT.md §10: 422 in ``http`` mode)."""
        text = NOT_ENOUGH.format(quantity=quantity)
        return InvalidInputError(text, code="not_enough_remaining", messages={self.quantity_field: [text]})

    def ensure_available(self, item: models.Model, *, quantity: int, **options: Any) -> None:
        if getattr(item, "deleted_at", None) is not None:
            raise self.not_found()
        if quantity > self.remaining(item):
            raise self.not_enough(item, quantity)

    def assign(self, item, target, *, actor, quantity, note, **options):
        field = self.assignment_target_fields[target_type_of(target)]
        # The new row rides on the returned item, so an API answer can name it (its id checks it back in).
        item.checkout_row = self.assignment_model._default_manager.create(
            **{self.item_field: item, field: target, self.quantity_column: quantity, "note": note,
               "created_by": actor if actor is not None and actor.pk else None},
        )
        return {"log_meta": {self.quantity_field: {"old": None, "new": quantity}}}

    def lock_assignment(self, item, assignment):
        if assignment is None:
            return None
        return (self.assignment_model._default_manager.select_for_update()
                .filter(pk=assignment.pk, **{self.item_field: item}).first())

    def ensure_checked_out(self, item, assignment) -> None:
        if assignment is None or getattr(assignment, f"{self.item_field}_id") != item.pk:
            raise self.not_found()

    def assignment_target(self, assignment) -> Target | None:
        for field in self.assignment_target_fields.values():
            value = getattr(assignment, field, None)
            if value is not None:
                return value
        return None

    def unassign(self, item, *, assignment, actor, quantity, note, **options):
        held = getattr(assignment, self.quantity_column)
        quantity = held if quantity is None else quantity
        if quantity > held:
            text = f"The checkin qty may not be greater than {held}."
            raise InvalidInputError(text, messages={"checkin_qty": [text]})
        previous = self.assignment_target(assignment)
        if quantity == held:
            assignment.delete()
        else:
            setattr(assignment, self.quantity_column, held - quantity)
            assignment.save(update_fields=[self.quantity_column])
        # What came back (as a checkout logs what went out) and what the row holds before and after.
        return previous, {"log_meta": {"checkin_qty": {"old": None, "new": quantity},
                                       self.quantity_column: {"old": held, "new": held - quantity}}}
