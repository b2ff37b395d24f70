"""Receivers of inventory's domain signals: each turns an event into a webhook notification.

Every receiver is the same function, :func:`notify`, connected once per entry of
:data:`notifications.events.EVENTS` (``dispatch_uid="notifications:<event>"``):

================================  ==========================  ===============================================
signal (``inventory.signals``)    event                       sent by
================================  ==========================  ===============================================
``asset_checked_out``             ``asset.checked_out``       ``inventory.services.asset_checkout``
``asset_checked_in``              ``asset.checked_in``        ``inventory.services.asset_checkin``
``asset_audited``                 ``asset.audited``           ``inventory.services.asset_audit``
``accessory_checked_out``         ``accessory.checked_out``   ``inventory.stock`` via ``inventory.checkout``'s
                                                              ``item_checkout(kind=ACCESSORY, ...)``
``accessory_checked_in``          ``accessory.checked_in``    ``inventory.stock`` via ``inventory.checkout``'s
                                                              ``item_checkin(kind=ACCESSORY, ...)``
``consumable_checked_out``        ``consumable.checked_out``  ``inventory.stock`` via ``inventory.checkout``'s
                                                              ``item_checkout(kind=CONSUMABLE, ...)``
``license_checked_out``           ``license.checked_out``     the license services (a later issue)
``license_checked_in``            ``license.checked_in``      the license services (a later issue)
================================  ==========================  ===============================================

A receiver runs inside the service's transaction: it reads the configuration and renders the text there (the
objects are at hand, no lazy loading later) and enqueues the delivery task in that same transaction
(:func:`notifications.delivery.schedule`): a worker process posts it once the change has committed. It never
raises: a notification problem must not fail the change.
"""

from __future__ import annotations

import logging
from typing import Any

from notifications import delivery
from notifications.config import get_webhook_config
from notifications.events import EVENTS, EventType

logger = logging.getLogger("notifications.receivers")


def notify(event: EventType, *, item: Any, actor: Any = None, target: Any = None, **kwargs: Any) -> None:
    try:
        config = get_webhook_config()
        if not config.enabled or event.name not in config.events:
            return
        delivery.schedule(event.name, config, event.render(item=item, actor=actor, target=target))
    except Exception:
        logger.exception("Could not prepare the %s notification", event.name)


def _connect() -> None:
    for event in EVENTS.values():
        def receiver(sender: Any, _event: EventType = event, **kwargs: Any) -> None:
            notify(_event, **kwargs)

        # weak=False: the closure has no other reference.
        event.signal.connect(receiver, weak=False, dispatch_uid=f"notifications:{event.name}")


_connect()
