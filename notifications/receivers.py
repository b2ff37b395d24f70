"""Receivers of inventory's domain signals: each turns an event into a webhook notification.

Every receiver is the same function, :func:`notify`, connected once per entry of
:data:`notifications.events.EVENTS` (``dispatch_uid="notifications:<event>"``):

================================  ==========================  ===============================================
signal (``inventory.signals``)    event                       sent by
================================  ==========================  ===============================================
``asset_checked_out``             ``asset.checked_out``       ``inventory.services.assets.asset_checkout``
``asset_checked_in``              ``asset.checked_in``        ``inventory.services.assets.asset_checkin``
``asset_audited``                 ``asset.audited``           ``inventory.services.assets.asset_audit``
``accessory_checked_out``         ``accessory.checked_out``   ``inventory.services.stock`` via
``inventory.services.checkout``'s
                                                              ``item_checkout(kind=ACCESSORY, ...)``
``accessory_checked_in``          ``accessory.checked_in``    ``inventory.services.stock`` via
``inventory.services.checkout``'s
                                                              ``item_checkin(kind=ACCESSORY, ...)``
``consumable_checked_out``        ``consumable.checked_out``  ``inventory.services.stock`` via
``inventory.services.checkout``'s
                                                              ``item_checkout(kind=CONSUMABLE, ...)``
``license_checked_out``           ``license.checked_out``     the license services (a later issue)
``license_checked_in``            ``license.checked_in``      the license services (a later issue)
``<kind>_created`` ... (20)       ``<kind>.created`` ...      the create / update / delete / restore services
                                                              (``inventory.signals.send_lifecycle``); off by
                                                              default (API-CONTRACT.md §8a)
``checkout_accepted``             ``<kind>.accepted`` (5)     ``inventory.services.acceptance.acceptance_accept``;
                                                              one event per kind, picked by the signal's
                                                              ``acceptance.item_type``; off by default (issue 29)
``checkout_declined``             ``<kind>.declined`` (5)     ``inventory.services.acceptance.acceptance_decline``
``item_problem_reported``         ``<kind>.problem_reported`` ``inventory.services.problems.item_problem_report``;
                                  (5)                         one event per kind, picked by the signal's ``kind``;
                                                              off by default (issue 32)
================================  ==========================  ===============================================

An event is sent when :func:`enabled` says so. The general kind's body adds :func:`details` (API-CONTRACT.md §8a).

A receiver runs inside the service's transaction: it reads the configuration and renders the text there (the
objects are at hand, no lazy loading later) and enqueues the delivery task in that same transaction
(:func:`notifications.delivery.schedule`): a worker process posts it once the change has committed. It never
raises: a notification problem must not fail the change.
"""

from __future__ import annotations

import logging
from datetime import UTC
from typing import Any

from django.utils import timezone

from inventory.models import target_type_of
from notifications import delivery
from notifications.config import get_webhook_config
from notifications.events import EVENTS, EventType, display_name

#: Events without a target in the payload (a record's own life, API-CONTRACT.md §8a).
LIFECYCLE = (".created", ".updated", ".deleted", ".restored")

logger = logging.getLogger("notifications.receivers")


def enabled(config: Any, event: EventType) -> bool:
    """Whether ``event`` is sent: it is in the configuration's event list (``webhook_events`` / ``WEBHOOK_EVENTS``,
    the registry's defaults when unset). A disabled event enqueues nothing and writes no delivery-log row."""
    return event.name in config.events


def _ref(obj: Any, kind: str, name: str, **more: Any) -> dict[str, Any]:
    return {"type": kind, "id": obj.pk, "name": name, **more}


def details(event: EventType, *, item: Any, actor: Any = None, target: Any = None, note: str | None = "",
            log: Any = None, quantity: int | None = None) -> dict[str, Any]:
    """The general kind's machine-readable keys (API-CONTRACT.md §8a), ``delivery_id`` aside (set per job)."""
    record = getattr(item, "license", None) if event.kind == "license" else None
    record = record or item
    occurred = getattr(log, "created_at", None) or timezone.now()
    values: dict[str, Any] = {
        "event": event.name,
        "occurred_at": occurred.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "actor": {"id": actor.pk, "name": display_name(actor)} if actor is not None else None,
        "item": _ref(record, event.kind, event.item_name(item),
                     tag=getattr(item, "asset_tag", None) if event.kind == "asset" else None),
        "target": (_ref(target, str(target_type_of(target)), event.target_name(target))
                   if target is not None and not event.name.endswith(LIFECYCLE) else None),
    }
    if event.quantity:
        values["quantity"] = quantity
    values["note"] = note or None
    return values


def notify(event: EventType, *, item: Any, actor: Any = None, target: Any = None, **kwargs: Any) -> None:
    try:
        if not event.applies(kwargs):
            return
        config = get_webhook_config()
        if not config.enabled or not enabled(config, event):
            return
        text = event.render(item=item, actor=actor, target=target)
        extra = details(event, item=item, actor=actor, target=target, note=kwargs.get("note"), log=kwargs.get("log"),
                        quantity=kwargs.get("quantity"))
        delivery.schedule(event.name, config, text, details=extra)
    except Exception:
        if delivery.transaction_doomed():
            raise  # the change itself cannot commit: it must not answer success
        logger.exception("Could not prepare the %s notification", event.name)


def _connect() -> None:
    for event in EVENTS.values():
        def receiver(sender: Any, _event: EventType = event, **kwargs: Any) -> None:
            notify(_event, **kwargs)

        # weak=False: the closure has no other reference.
        event.signal.connect(receiver, weak=False, dispatch_uid=f"notifications:{event.name}")


_connect()
