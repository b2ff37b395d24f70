"""Mails caused by changes (issue 29): the checkout mail (with the acceptance link when the item's category requires
acceptance), the checkin mail (when the category has ``checkin_email``), and a user's inventory
(``POST /users/{id}/email``).

The receivers run inside the service's transaction, like the webhook receivers: they render the mail while the
objects are at hand and queue it in that transaction (``notifications.mail.queue_mail_quietly``: a problem is
logged and never fails the change). Only a live, active user with an e-mail address gets one. A mail names the item
(name, tag, serial, model), never a license key or a custom field value: those stay behind the permission checks of
the API and the admin.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from django.utils import timezone

from accounts.models import User
from assetsvc.conf import app_settings
from inventory import signals
from inventory.acceptance_links import acceptance_url
from inventory.models import AccessoryCheckout, Asset, ConsumableAssignment, LicenseSeat
from notifications.delivery import transaction_doomed
from notifications.events import NO_ACTOR_NAME, display_name
from notifications.mail import queue_mail, queue_mail_quietly

logger = logging.getLogger("notifications.mail")

#: The words a mail uses for each kind (``signals`` sender's item ``kind``).
KIND_LABELS = {"asset": "asset", "accessory": "accessory", "consumable": "consumable", "component": "component",
               "license": "license"}


def mailable(user: Any) -> bool:
    return (isinstance(user, User) and bool(user.email) and user.is_active
            and getattr(user, "deleted_at", None) is None)


def category_of(kind: str, item: Any) -> Any:
    """The category whose rules (``require_acceptance``, ``checkin_email``) apply to ``item``."""
    if kind == "asset":
        return item.model.category if item.model_id else None
    record = item.license if kind == "license" and hasattr(item, "license") else item
    return getattr(record, "category", None)


def describe(kind: str, item: Any) -> dict[str, Any]:
    """What a mail shows of an item: its kind, name and, for an asset, tag, serial and model."""
    if kind == "asset":
        return {"kind": "asset", "name": item.display_name, "tag": item.asset_tag, "serial": item.serial or "",
                "model": item.model.name if item.model_id else ""}
    record = item.license if kind == "license" and hasattr(item, "license") else item
    return {"kind": KIND_LABELS.get(kind, kind), "name": display_name(record), "tag": "", "serial": "", "model": ""}


def _subject(text: str) -> str:
    return f"[{app_settings.SITE_NAME}] {text}"


def checkout_mail(kind: str, *, item: Any, actor: Any = None, target: Any = None, note: str = "",
                  log: Any = None, quantity: int | None = None, acceptance: Any = None, **_: Any) -> None:
    if not mailable(target):
        return
    described = describe(kind, item)
    context = {
        "user": target, "item": described, "quantity": quantity if kind in ("accessory", "consumable") else None,
        "note": note, "admin_name": display_name(actor) if actor is not None else NO_ACTOR_NAME,
        "when": getattr(log, "action_date", None) or timezone.now(),
        "expected_checkin": getattr(log, "expected_checkin", None),
        "acceptance_url": acceptance_url(acceptance) if acceptance is not None else "",
        "eula": acceptance.eula_text if acceptance is not None else "",
        "link_days": _link_days(),
    }
    verb = "Please accept" if acceptance is not None else "Checked out to you:"
    queue_mail_quietly(to=target.email, subject=_subject(f"{verb} {described['kind']} {described['name']}"),
                       template="checkout", context=context, event=f"{kind}.checked_out", user=target,
                       company_id=getattr(item, "company_id", None))


def checkin_mail(kind: str, *, item: Any, actor: Any = None, target: Any = None, note: str = "", log: Any = None,
                 quantity: int | None = None, **_: Any) -> None:
    if not mailable(target):
        return
    category = category_of(kind, item)
    if category is None or not category.checkin_email:
        return
    described = describe(kind, item)
    context = {"user": target, "item": described, "quantity": quantity if kind == "accessory" else None,
               "note": note, "admin_name": display_name(actor) if actor is not None else NO_ACTOR_NAME,
               "when": getattr(log, "action_date", None) or timezone.now()}
    queue_mail_quietly(to=target.email, subject=_subject(f"Checked in: {described['kind']} {described['name']}"),
                       template="checkin", context=context, event=f"{kind}.checked_in", user=target,
                       company_id=getattr(item, "company_id", None))


def _link_days() -> int:
    from django.conf import settings

    return settings.ACCEPTANCE_LINK_DAYS


def user_inventory(user: User) -> dict[str, list[dict[str, Any]]]:
    """What ``user`` holds, for the inventory mail: assets, accessories, consumables and license seats (names, tags,
    serials and dates; never a license key). Four queries."""
    assets = [{"name": a.display_name, "tag": a.asset_tag, "serial": a.serial or "",
               "model": a.model.name if a.model_id else "", "since": a.last_checkout,
               "expected_checkin": a.expected_checkin}
              for a in Asset.objects.filter(assigned_user=user, deleted_at__isnull=True)
              .select_related("model").order_by("asset_tag")]
    accessories = [{"name": row.accessory.name, "quantity": row.assigned_qty, "since": row.created_at}
                   for row in AccessoryCheckout.objects.filter(assigned_user=user, accessory__deleted_at__isnull=True)
                   .select_related("accessory").order_by("accessory__name", "id")]
    consumables = [{"name": row.consumable.name, "quantity": row.assigned_qty, "since": row.created_at}
                   for row in ConsumableAssignment.objects.filter(assigned_user=user,
                                                                  consumable__deleted_at__isnull=True)
                   .select_related("consumable").order_by("consumable__name", "id")]
    licenses = [{"name": seat.license.name}
                for seat in LicenseSeat.objects.filter(assigned_user=user, license__deleted_at__isnull=True)
                .select_related("license").order_by("license__name", "id")]
    return {"assets": assets, "accessories": accessories, "consumables": consumables, "licenses": licenses}


def queue_inventory_mail(user: User, *, actor: Any = None) -> Any:
    """Queue the mail of everything ``user`` holds (``POST /users/{id}/email``); the caller checked the rights."""
    holdings = user_inventory(user)
    count = sum(len(rows) for rows in holdings.values())
    return queue_mail(to=user.email, subject=_subject("Your current inventory"), template="inventory",
                      context={"user": user, "holdings": holdings, "count": count, "today": date.today(),
                               "admin_name": display_name(actor) if actor is not None else NO_ACTOR_NAME},
                      event="user.inventory", user=user, company_id=user.company_id)


def _safely(build: Any, kind: str, kwargs: dict[str, Any]) -> None:
    """A mail problem is logged, never raised: it must not fail the checkout."""
    try:
        build(kind, **kwargs)
    except Exception:
        if transaction_doomed():
            raise  # the database failed under the checkout itself: it must not answer success
        logger.exception("Could not prepare the %s mail of a %s", build.__name__, kind)


def _connect() -> None:
    pairs = [("asset", signals.asset_checked_out, signals.asset_checked_in),
             ("accessory", signals.accessory_checked_out, signals.accessory_checked_in),
             ("consumable", signals.consumable_checked_out, None),
             ("license", signals.license_checked_out, signals.license_checked_in)]
    for kind, checked_out, checked_in in pairs:
        def on_checkout(sender: Any, _kind: str = kind, **kwargs: Any) -> None:
            _safely(checkout_mail, _kind, kwargs)

        checked_out.connect(on_checkout, weak=False, dispatch_uid=f"notifications.mail:{kind}.checked_out")
        if checked_in is not None:
            def on_checkin(sender: Any, _kind: str = kind, **kwargs: Any) -> None:
                _safely(checkin_mail, _kind, kwargs)

            checked_in.connect(on_checkin, weak=False, dispatch_uid=f"notifications.mail:{kind}.checked_in")


_connect()
