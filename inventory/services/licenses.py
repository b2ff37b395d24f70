"""Licenses: software with ``seats`` seats, each assigned to a user or to an asset, or free (API-CONTRACT.md §10).

:class:`LicenseKind` is a stock kind (``inventory.services.stock``) on the shared checkout shape
(``inventory.services.checkout``)
with the seat as the assignment: a seat checkout or checkin locks the license row and re-reads the seat under that
lock, so of concurrent requests for one seat only the first assigns it, and a seat removed by a concurrent ``seats``
change is "not found". A license is created (``license_create``: ``stock_create`` and its seats), updated
(``license_update``), deleted and restored (``stock_delete``, ``stock_restore``) in one transaction each:

* ``seats`` is 1 to :data:`MAX_SEATS`; the license has exactly that many seat rows, added or removed (free ones only,
  newest first) as ``seats`` changes; fewer than the assigned seats is a field error on ``seats``;
* the category must be a ``license`` category; rule 7 decides the company;
* a license with an assigned seat cannot be deleted (reference §4.14); its seat rows stay with a deleted license,
  hidden, and come back with it on restore;
* the product key (``serial``) is a secret: an update logs that it changed, never its values (:data:`HIDDEN_KEY`).

Seat changes are logged against the license (``item_type`` ``license``, reference §12) with the user or asset as the
target. Assigning a seat that is already assigned is refused unless the license is ``reassignable``, in which case
the previous holder's checkin is logged (and notified) before the checkout.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from accounts.models import User
from accounts.permissions import has_access
from activity.choices import ActionType
from activity.services import log_action
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from assetsvc.services import model_update
from companies.querysets import caller_chooses_company
from inventory import signals
from inventory.choices import CategoryType, TargetType
from inventory.models import License, LicenseSeat
from inventory.services.checkout import (
    Target,
    checkin_locked,
    item_checkout,
    log_company_id,
    require_note,
    target_type_of,
)
from inventory.services.stock import STOCK_KINDS, StockKind, check_category, stock_create

#: The largest ``seats`` of a license (API-CONTRACT.md §10).
MAX_SEATS = 100_000
#: What a caller who may not see product keys reads instead of one (reference §3.12), and what the action log keeps
#: for a changed key.
HIDDEN_KEY = "------------"
#: The permission keys that show product keys (Snipe-IT's ``viewKeys`` ability).
KEY_PERMISSIONS = ("licenses.keys", "licenses.create", "licenses.edit")
NOT_FOUND = "License not found"
#: Reference §2.6: the seat routes' texts.
LICENSE_NOT_FOUND = "License does not exist or you do not have permission to view it."
SEAT_NOT_FOUND = "Seat not found"
SEAT_OF_ANOTHER_LICENSE = "Seat does not belong to the specified license"
TARGET_NOT_FOUND = "Target not found"
SEAT_UNAVAILABLE = "This seat is not available for checkout."
NO_FREE_SEAT = "Not enough license seats available for checkout"
SEAT_NOT_ASSIGNED = "This seat is not checked out."
DELETE_REFUSED = ("This license is currently checked out to a user and cannot be deleted. Please check the license "
                  "in first, and then try deleting again. ")


def seat_not_found() -> NotFoundError:
    """A seat that does not exist, is gone, or belongs to a license the caller may not see (or a deleted one)."""
    return NotFoundError(SEAT_NOT_FOUND, code="checkout_not_found")


def can_view_keys(user: User | None) -> bool:
    """Whether ``user`` may read product keys: ``licenses.keys``, ``licenses.create`` or ``licenses.edit``."""
    return user is not None and any(has_access(user, key) for key in KEY_PERMISSIONS)


class LicenseKind(StockKind):
    """License seats: to a user or an asset, one seat per checkout. The item locked is the license and the
    assignment is the seat (passed as ``seat=``; None picks the first free seat under the lock), so a license's
    "units out" are its assigned seats and what remains its free ones. As a stock kind, a license is created,
    deleted (refused while a seat is assigned) and restored by the services of ``inventory.services.stock``."""

    item_type = "license"
    model = License
    assignment_model = LicenseSeat
    item_field = "license"
    total_field = "seats"
    targets = frozenset({TargetType.USER, TargetType.ASSET})
    assignment_target_fields: ClassVar[dict[str, str]] = {TargetType.USER: "assigned_user",
                                                          TargetType.ASSET: "assigned_asset"}
    #: The input naming a seat's target of each type (reference §4.12).
    target_inputs: ClassVar[dict[str, str]] = {TargetType.USER: "assigned_to", TargetType.ASSET: "asset_id"}
    checked_out = signals.license_checked_out
    checked_in = signals.license_checked_in
    not_found_message = NOT_FOUND
    row_not_found_message = SEAT_NOT_FOUND
    category_type = CategoryType.LICENSE
    delete_refused = DELETE_REFUSED
    label = "license"

    # --- seats are counted, not summed --------------------------------------------------------------------------

    def assigned_subquery(self) -> Coalesce:
        """Assigned seats per license, as a correlated subquery (annotate it on license lists: one query per page)."""
        rows = (LicenseSeat.objects.filter(license=OuterRef("pk")).assigned().order_by().values("license")
                .annotate(n=Count("pk")).values("n")[:1])
        return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))

    def units_out(self, item) -> int:
        return LicenseSeat.objects.filter(license=item).assigned().count()

    def remaining(self, item) -> int:
        return LicenseSeat.objects.filter(license=item).free().count()

    # --- checkout and checkin of one seat -----------------------------------------------------------------------

    def invalid_target(self, item, target_type, target_id, reason=None) -> Exception:
        """A field error on the input naming the target, identical for a missing and an invisible id."""
        return super().invalid_target(item, target_type, target_id, reason or TARGET_NOT_FOUND)

    def ensure_available(self, item, *, quantity: int, seat: LicenseSeat | None = None, **options) -> None:
        """The seat re-read under the lock (or the first free one): an assigned seat is refused unless the license
        is reassignable. The fresh seat rides on the license for :meth:`assign` and the caller."""
        self.ensure_live(item)
        if seat is None:
            fresh = LicenseSeat.objects.select_for_update().filter(license=item).free().order_by("pk").first()
            if fresh is None:
                raise ConflictError(NO_FREE_SEAT, code="no_free_seat")
        else:
            fresh = self.lock_assignment(item, seat)
            if fresh is None:
                raise seat_not_found()
            if fresh.is_assigned and not item.reassignable:
                raise ConflictError(SEAT_UNAVAILABLE, code="not_reassignable")
        item.checkout_row = fresh

    def assign(self, item, target, *, actor, quantity, note, seat_notes: str | None = None, **options):
        seat = item.checkout_row
        if seat.is_assigned:  # reassignable: the previous holder gives the seat back first (logged, notified)
            checkin_locked(kind=self, locked=item, actor=actor, assignment=seat, note=note)
        target_type = target_type_of(target)
        for kind, field in self.assignment_target_fields.items():
            setattr(seat, field, target if kind == target_type else None)
        if seat_notes is not None:
            seat.notes = seat_notes
        seat.save(update_fields=["assigned_user", "assigned_asset", "notes", "updated_at"])
        return {"location_id": getattr(target, "location_id", None)}

    def ensure_checked_out(self, item, assignment) -> None:
        super().ensure_checked_out(item, assignment)
        if not assignment.is_assigned:
            raise ConflictError(SEAT_NOT_ASSIGNED, code="seat_not_assigned")

    def unassign(self, item, *, assignment, actor, quantity, note, seat_notes: str | None = None, **options):
        previous = assignment.assigned_target
        assignment.assigned_user = assignment.assigned_asset = None
        if seat_notes is not None:
            assignment.notes = seat_notes
        assignment.save(update_fields=["assigned_user", "assigned_asset", "notes", "updated_at"])
        return previous, {}


LICENSE = LicenseKind()
# The stock services create, delete and restore a license as they do any stock item (category type, rule 7, the
# delete guard on what is out, the log rows); seats and the product key are handled below.
STOCK_KINDS[License] = LICENSE


# --- seats --------------------------------------------------------------------------------------------------------


def same_target(seat: LicenseSeat, target: Target) -> bool:
    return target_type_of(seat.assigned_target) == target_type_of(target) and seat.assigned_target.pk == target.pk


@transaction.atomic
def seat_update(*, license: License | int, seat: LicenseSeat, target: Target | None, actor: User,
                clears: frozenset[str] = frozenset(LicenseKind.targets), note: str = "", notes: str | None = None,
                ) -> LicenseSeat:
    """``PATCH licenses/{id}/seats/{seat_id}`` (reference §4.12), decided on the seat as it is under the license's
    lock: ``target`` checks the seat out to it (nothing happens when it holds the seat already); None checks it in
    when its holder's type is in ``clears`` (the target keys the request sent as null), else nothing happens.
    ``note`` is the log's, ``notes`` (when sent) is written on the seat. Returns the seat as it is now."""
    locked = LICENSE.lock(license)
    LICENSE.ensure_live(locked)
    current = LICENSE.lock_assignment(locked, seat)
    if current is None:
        raise seat_not_found()
    if target is None:
        if current.is_assigned and target_type_of(current.assigned_target) in clears:
            require_note(note)
            checkin_locked(kind=LICENSE, locked=locked, actor=actor, assignment=current, note=note, seat_notes=notes)
    elif not (current.is_assigned and same_target(current, target)):
        item_checkout(kind=LICENSE, item=locked, target=target, actor=actor, note=note, seat=current,
                      seat_notes=notes)
    return LicenseSeat.objects.select_related("license", "assigned_user", "assigned_asset").get(pk=current.pk)


def visible_seat(license: License, seat_pk: Any, actor: User) -> LicenseSeat:
    """Seat ``seat_pk`` under ``license`` (already found visible and live): a seat that does not exist or whose
    license the caller may not see is "not found", one of another license is refused (reference §4.12)."""
    try:
        pk = int(str(seat_pk).strip())
    except (TypeError, ValueError):
        pk = 0
    seat = None
    if 0 < pk < 2**62:
        visible = License.objects.restrict(actor).filter(deleted_at__isnull=True)
        seat = LicenseSeat.objects.filter(pk=pk, license__in=visible).first()
    if seat is None:
        raise seat_not_found()
    if seat.license_id != license.pk:
        raise NotFoundError(SEAT_OF_ANOTHER_LICENSE, code="seat_of_another_license")
    return seat


# --- licenses -----------------------------------------------------------------------------------------------------


def hide_key(changes: dict[str, dict]) -> dict[str, dict]:
    """The action log says the product key changed, never what it was or became."""
    if "serial" in changes:
        changes = {**changes, "serial": {"old": HIDDEN_KEY, "new": HIDDEN_KEY}}
    return changes


def set_seats(license: License, seats: int, actor: User | None) -> None:
    """Make the license's seat rows number ``seats``: add free seats, or remove free ones (newest first); fewer
    than the assigned seats is a field error on ``seats`` (checked on the locked license)."""
    rows = LicenseSeat.objects.filter(license=license)
    current = rows.count()
    if seats > current:
        creator = actor if actor is not None and actor.pk else None
        LicenseSeat.objects.bulk_create([LicenseSeat(license=license, created_by=creator)
                                         for _ in range(seats - current)], batch_size=1000)
    elif seats < current:
        free = list(rows.free().order_by("-pk").values_list("pk", flat=True)[:current - seats])
        if len(free) < current - seats:
            assigned = current - rows.free().count()
            text = f"The seats must be at least {assigned}: {assigned} {'is' if assigned == 1 else 'are'} assigned."
            raise InvalidInputError(text, messages={"seats": [text]})
        LicenseSeat.objects.filter(pk__in=free).delete()


@transaction.atomic
def license_create(*, model: type[License] = License, data: dict[str, Any], actor: User | None) -> License:
    """Create a license as any stock item (``stock_create``: category type, rule 7, the log row) with ``seats``
    free seats."""
    item = stock_create(model=model, data=data, actor=actor)
    set_seats(item, item.seats, actor)
    return item


@transaction.atomic
def license_update(*, item: License, data: dict[str, Any], actor: User | None) -> License:
    """Apply validated (partial) changes on the locked license: seats added or removed as ``seats`` changes (never
    below the assigned ones), the company by rule 7, the changes logged with the product key hidden."""
    locked = LICENSE.lock(item)
    if locked.deleted_at is not None:
        raise ConflictError("This item has been deleted. Restore it before editing it.", code="deleted")
    check_category(LICENSE, data)
    if "seats" in data:
        set_seats(locked, data["seats"], actor)
    if "company" in data and not caller_chooses_company(actor):
        data = {key: value for key, value in data.items() if key != "company"}
    changes = model_update(locked, data)
    locked.save()
    if changes:
        log = log_action(action_type=ActionType.UPDATE, item_type=LICENSE.item_type, item_id=locked.pk, actor=actor,
                         company_id=log_company_id(actor, locked, None), item=locked, log_meta=hide_key(changes))
        signals.send_lifecycle(LICENSE.item_type, ActionType.UPDATE, item=locked, actor=actor, log=log)
    return locked
