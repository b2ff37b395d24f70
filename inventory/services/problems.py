"""A problem reported by the person who holds an item (issue 32, the portal's "Report a problem"): a note in the item's
action log that IT reads in the admin's history, and an optional webhook event (``<kind>.problem_reported``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction

from activity.choices import ActionType
from activity.models import ActionLog
from activity.services import log_action
from assetsvc.exceptions import InvalidInputError, NotFoundError
from inventory import signals
from inventory.selectors.holdings import KINDS, held_item
from inventory.services.checkout import CHECKOUT_KINDS

if TYPE_CHECKING:
    from accounts.models import User

NOTE_MAX = 2000
NOT_HELD = "You do not hold this item."
NOTE_REQUIRED = "Describe the problem."
NOTE_TOO_LONG = f"The description may be at most {NOTE_MAX} characters."


@transaction.atomic
def item_problem_report(*, kind: str, item: Any, actor: User, note: str) -> ActionLog:
    """Record a problem ``actor`` has with ``item`` (of ``kind``, an action-log ``item_type``), which they must hold
    now (:func:`inventory.selectors.holdings.held_item`, checked with the item locked): one ``problem reported`` row
    (the item; the person as target and actor; their text as the note), then ``item_problem_reported``."""
    text = (note or "").strip()
    if not text:
        raise InvalidInputError(NOTE_REQUIRED, code="problem_note_required", messages={"note": [NOTE_REQUIRED]})
    if len(text) > NOTE_MAX:
        raise InvalidInputError(NOTE_TOO_LONG, code="problem_note_too_long", messages={"note": [NOTE_TOO_LONG]})
    if kind not in KINDS:
        raise NotFoundError(NOT_HELD, code="item_not_held")
    CHECKOUT_KINDS[kind].lock(item)
    held = held_item(actor, kind, getattr(item, "pk", item))
    if held is None:
        raise NotFoundError(NOT_HELD, code="item_not_held")
    log = log_action(action_type=ActionType.PROBLEM_REPORTED, item_type=kind, item_id=held.pk, item=held,
                     actor=actor, company_id=getattr(held, "company_id", None), target_type="user",
                     target_id=actor.pk, target=actor, note=text)
    signals.item_problem_reported.send(sender=type(held), item=held, actor=actor, target=actor, note=text, log=log,
                                       kind=kind)
    return log
