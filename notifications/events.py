"""The registry of notifying events: event name → signal, message text template and the values it needs.

The texts of the specification's five events (Events / Events and message text) are copied verbatim, with
``<placeholder>`` written as ``{placeholder}``; API-CONTRACT.md §8 adds asset audit, accessory checkin and license
checkin, whose texts follow the same pattern (docs/notifications.md). A new kind of item adds a signal in its app and
one entry here; nothing else in this app changes.

Name rules (docs/notifications.md):

* ``asset_name``: the asset's name, else its model's name (API-CONTRACT.md §8);
* ``target_name``: a user's full name ("first last", the username when both are empty), a location's name; an
  asset is ``"<asset_tag> (<asset_name>)"`` in the asset events (the documented rule) but its name, else its tag,
  in the accessory, consumable and license events (API-CONTRACT.md §10), so each entry carries its rule;
* ``admin_name``: the acting user's full name, ``"system"`` when the change had no acting user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.dispatch import Signal

from inventory import signals

#: ``admin_name`` when a change was made without an acting user (a command, a data migration).
NO_ACTOR_NAME = "system"


def display_name(obj: Any) -> str:
    """The name a message shows for a user, a location, an asset or any named item."""
    if obj is None:
        return ""
    # Imported here: this module is imported by AppConfig.ready() through receivers.
    from accounts.models import User
    from inventory.models import Asset

    if isinstance(obj, User):
        return obj.full_name
    if isinstance(obj, Asset):
        return f"{obj.asset_tag} ({obj.display_name})"
    name = getattr(obj, "name", None)
    return str(name) if name else str(obj)


def item_target_name(obj: Any) -> str:
    """``<target_name>`` in the accessory, consumable and license events (API-CONTRACT.md §10): an asset target is
    its own name, else its tag (its model's name would not say which machine got the item); users and locations
    as :func:`display_name`."""
    from inventory.models import Asset

    if isinstance(obj, Asset):
        return obj.name or obj.asset_tag
    return display_name(obj)


def _asset_values(item: Any) -> dict[str, str]:
    return {"asset_tag": item.asset_tag, "asset_name": item.display_name}


def _named(key: str) -> Callable[[Any], dict[str, str]]:
    def values(item: Any) -> dict[str, str]:
        return {key: display_name(item)}

    return values


def _license_values(item: Any) -> dict[str, str]:
    # The signal may carry the seat (which has a ``license``) or the license itself.
    license_ = getattr(item, "license", None) or item
    return {"license_name": display_name(license_)}


@dataclass(frozen=True)
class EventType:
    """One notifying event: ``name`` follows ``"<entity>.<past_tense>"`` (STYLE.md §8)."""

    name: str
    signal: Signal
    template: str
    item_values: Callable[[Any], dict[str, str]]
    label: str
    #: How this event names its target (asset targets differ between events, see the module docstring).
    target_name: Callable[[Any], str] = display_name
    #: Whether the general kind's payload carries ``quantity`` (API-CONTRACT.md §8a: accessory and consumable
    #: checkouts, accessory checkins).
    quantity: bool = False
    #: Sent unless the settings' event list leaves it out (API-CONTRACT.md §8a: the eight of the specification and
    #: §8 are on by default; the created / updated / deleted / restored events are off).
    default: bool = True
    #: For a signal shared by every kind (``checkout_accepted`` / ``checkout_declined``, issue 29;
    #: ``item_problem_reported``, issue 32): the event fires only when the signal's kind (its ``kind`` argument, else
    #: ``acceptance.item_type``) is this event's kind.
    per_kind: bool = False

    def applies(self, kwargs: dict[str, Any]) -> bool:
        if not self.per_kind:
            return True
        kind = kwargs.get("kind") or getattr(kwargs.get("acceptance"), "item_type", None)
        return kind == self.kind

    def render(self, *, item: Any, actor: Any = None, target: Any = None) -> str:
        values = {
            **self.item_values(item),
            "target_name": self.target_name(target),
            "admin_name": display_name(actor) if actor is not None else NO_ACTOR_NAME,
        }
        # format_map only parses the template, so braces inside names are kept literally.
        return self.template.format_map(values)

    @property
    def kind(self) -> str:
        """The item kind (``asset``, ``accessory``, ``consumable``, ``component``, ``license``)."""
        return self.name.split(".", 1)[0]

    def item_name(self, item: Any) -> str:
        """The item's name as the text shows it (an unnamed asset: its model's name; a seat: its license's)."""
        if self.kind == "asset":
            return item.display_name
        if self.kind == "license":
            return display_name(getattr(item, "license", None) or item)
        return display_name(item)


EVENTS: dict[str, EventType] = {
    event.name: event
    for event in [
        # The specification's five.
        EventType("asset.checked_out", signals.asset_checked_out,
                  "Asset {asset_tag} ({asset_name}) was checked out to {target_name} by {admin_name}",
                  _asset_values, "asset checkout"),
        EventType("asset.checked_in", signals.asset_checked_in,
                  "Asset {asset_tag} ({asset_name}) was checked in by {admin_name}",
                  _asset_values, "asset checkin"),
        EventType("accessory.checked_out", signals.accessory_checked_out,
                  "Accessory {accessory_name} was checked out to {target_name} by {admin_name}",
                  _named("accessory_name"), "accessory checkout", item_target_name, quantity=True),
        EventType("consumable.checked_out", signals.consumable_checked_out,
                  "Consumable {consumable_name} was checked out to {target_name} by {admin_name}",
                  _named("consumable_name"), "consumable checkout", item_target_name, quantity=True),
        EventType("license.checked_out", signals.license_checked_out,
                  "License seat for {license_name} was checked out to {target_name} by {admin_name}",
                  _license_values, "license checkout", item_target_name),
        # API-CONTRACT.md §8's three more; texts are ours, shaped like the specification's.
        EventType("asset.audited", signals.asset_audited,
                  "Asset {asset_tag} ({asset_name}) was audited by {admin_name}",
                  _asset_values, "asset audit"),
        EventType("accessory.checked_in", signals.accessory_checked_in,
                  "Accessory {accessory_name} was checked in by {admin_name}",
                  _named("accessory_name"), "accessory checkin", item_target_name, quantity=True),
        EventType("license.checked_in", signals.license_checked_in,
                  "License seat for {license_name} was checked in by {admin_name}",
                  _license_values, "license checkin", item_target_name),
    ]
    + [
        # API-CONTRACT.md §8a's optional events, off by default: a record's own life.
        EventType(f"{kind}.{done}", signals.lifecycle(kind, action),
                  (f"Asset {{asset_tag}} ({{asset_name}}) was {done} by {{admin_name}}" if kind == "asset"
                   else f"{kind.capitalize()} {{{kind}_name}} was {done} by {{admin_name}}"),
                  _asset_values if kind == "asset" else _named(f"{kind}_name"), f"{kind} {action}", default=False)
        for kind in ("asset", "accessory", "consumable", "component", "license")
        for action, done in signals.LIFECYCLE_ACTIONS.items()
    ]
    + [
        # Checkout acceptance (issue 29), off by default: the actor is the person who answered.
        EventType(f"{kind}.{done}", getattr(signals, f"checkout_{done}"),
                  (f"Asset {{asset_tag}} ({{asset_name}}) was {done} by {{admin_name}}" if kind == "asset"
                   else f"License seat for {{license_name}} was {done} by {{admin_name}}" if kind == "license"
                   else f"{kind.capitalize()} {{{kind}_name}} was {done} by {{admin_name}}"),
                  (_asset_values if kind == "asset" else _license_values if kind == "license"
                   else _named(f"{kind}_name")),
                  f"{kind} {done}", item_target_name if kind != "asset" else display_name, default=False,
                  per_kind=True)
        for kind in ("asset", "accessory", "consumable", "component", "license")
        for done in ("accepted", "declined")
    ]
    + [
        # A problem reported by the holder on the portal (issue 32), off by default: the actor is that person.
        EventType(f"{kind}.problem_reported", signals.item_problem_reported,
                  ("Asset {asset_tag} ({asset_name}): a problem was reported by {admin_name}" if kind == "asset"
                   else "License seat for {license_name}: a problem was reported by {admin_name}"
                   if kind == "license"
                   else f"{kind.capitalize()} {{{kind}_name}}: a problem was reported by {{admin_name}}"),
                  (_asset_values if kind == "asset" else _license_values if kind == "license"
                   else _named(f"{kind}_name")),
                  f"{kind} problem reported", item_target_name if kind != "asset" else display_name, default=False,
                  per_kind=True)
        for kind in ("asset", "accessory", "consumable", "component", "license")
    ]
    + [
        # Checkout requests (issue 27), off by default: the actor is the employee who asks.
        EventType("asset.requested", signals.asset_requested,
                  "Asset {asset_tag} ({asset_name}) was requested by {admin_name}",
                  _asset_values, "asset request", default=False),
        EventType("asset.request_canceled", signals.asset_request_canceled,
                  "The request for asset {asset_tag} ({asset_name}) was canceled by {admin_name}",
                  _asset_values, "asset request canceled", default=False),
        # Requests of a model (issue 32), off by default likewise.
        EventType("model.requested", signals.model_requested,
                  "Model {model_name} was requested by {admin_name}",
                  _named("model_name"), "model request", default=False),
        EventType("model.request_canceled", signals.model_request_canceled,
                  "The request for model {model_name} was canceled by {admin_name}",
                  _named("model_name"), "model request canceled", default=False),
    ]
}


def default_event_names() -> list[str]:
    """The events sent when the settings name none (in the registry's order)."""
    return [name for name, event in EVENTS.items() if event.default]


#: Event name of the admin's and ``send_test_webhook``'s test message (a delivery-log value, not a signal).
TEST_EVENT = "test"
