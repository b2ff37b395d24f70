"""The event registry: every signal has an event with the specification's (or our documented) text."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from inventory import signals
from notifications.events import EVENTS, NO_ACTOR_NAME
from tests.factories import AssetFactory, AssetModelFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_every_inventory_signal_has_an_event():
    declared = {getattr(signals, name) for name in dir(signals) if isinstance(getattr(signals, name), type(
        signals.asset_checked_out))}
    assert {event.signal for event in EVENTS.values()} == declared
    assert {name for name, event in EVENTS.items() if event.default} == {
        "asset.checked_out", "asset.checked_in", "asset.audited", "accessory.checked_out", "accessory.checked_in",
        "consumable.checked_out", "license.checked_out", "license.checked_in"}
    # API-CONTRACT.md §8a's optional events, off by default.
    assert {name for name, event in EVENTS.items() if not event.default} == {
        f"{kind}.{done}" for kind in ("asset", "accessory", "consumable", "component", "license")
        for done in ("created", "updated", "deleted", "restored", "accepted", "declined", "problem_reported")} | {
        "asset.requested", "asset.request_canceled", "model.requested", "model.request_canceled"}


@pytest.fixture
def people():
    return (UserFactory(first_name="Ada", last_name="Admin"), UserFactory(first_name="Grace", last_name="Hopper"))


def test_asset_texts(people):
    admin, grace = people
    asset = AssetFactory(asset_tag="TAG-1", name="Laptop")
    assert EVENTS["asset.checked_out"].render(item=asset, actor=admin, target=grace) == (
        "Asset TAG-1 (Laptop) was checked out to Grace Hopper by Ada Admin")
    assert EVENTS["asset.checked_in"].render(item=asset, actor=admin, target=grace) == (
        "Asset TAG-1 (Laptop) was checked in by Ada Admin")
    assert EVENTS["asset.audited"].render(item=asset, actor=admin) == "Asset TAG-1 (Laptop) was audited by Ada Admin"


def test_unnamed_asset_uses_its_model_name(people):
    admin, grace = people
    asset = AssetFactory(asset_tag="TAG-2", name="", model=AssetModelFactory(name="ThinkPad X1"))
    assert EVENTS["asset.checked_out"].render(item=asset, actor=admin, target=grace) == (
        "Asset TAG-2 (ThinkPad X1) was checked out to Grace Hopper by Ada Admin")


def test_target_names(people):
    admin, _grace = people
    asset = AssetFactory(asset_tag="TAG-3", name="Dock")
    event = EVENTS["asset.checked_out"]
    assert event.render(item=asset, actor=admin, target=LocationFactory(name="Berlin")).endswith(
        "checked out to Berlin by Ada Admin")
    host = AssetFactory(asset_tag="HOST-1", name="Desk PC")
    assert event.render(item=asset, actor=admin, target=host).endswith("checked out to HOST-1 (Desk PC) by Ada Admin")
    nameless = UserFactory(username="jdoe", first_name="", last_name="")
    assert event.render(item=asset, actor=admin, target=nameless).endswith("checked out to jdoe by Ada Admin")
    assert event.render(item=asset, actor=None, target=nameless).endswith(f"by {NO_ACTOR_NAME}")


def test_accessory_consumable_license_texts(people):
    admin, grace = people
    hub = SimpleNamespace(name="USB Hub")
    assert EVENTS["accessory.checked_out"].render(item=hub, actor=admin, target=grace) == (
        "Accessory USB Hub was checked out to Grace Hopper by Ada Admin")
    assert EVENTS["accessory.checked_in"].render(item=hub, actor=admin, target=grace) == (
        "Accessory USB Hub was checked in by Ada Admin")
    assert EVENTS["consumable.checked_out"].render(item=SimpleNamespace(name="Toner"), actor=admin, target=grace) == (
        "Consumable Toner was checked out to Grace Hopper by Ada Admin")
    seat = SimpleNamespace(license=SimpleNamespace(name="Office 365"), name="seat 3")
    assert EVENTS["license.checked_out"].render(item=seat, actor=admin, target=grace) == (
        "License seat for Office 365 was checked out to Grace Hopper by Ada Admin")
    assert EVENTS["license.checked_in"].render(item=SimpleNamespace(name="Office 365"), actor=admin) == (
        "License seat for Office 365 was checked in by Ada Admin")


def test_braces_in_names_are_kept(people):
    admin, grace = people
    asset = AssetFactory(asset_tag="{asset_tag}", name="{admin_name}")
    assert EVENTS["asset.checked_out"].render(item=asset, actor=admin, target=grace) == (
        "Asset {asset_tag} ({admin_name}) was checked out to Grace Hopper by Ada Admin")


def test_item_events_name_an_asset_target_by_its_name_else_its_tag(people):
    # API-CONTRACT.md §10; the asset events keep "<asset_tag> (<asset_name>)" (test_target_names).
    admin, _grace = people
    named = AssetFactory(asset_tag="HOST-2", name="Desk PC")
    unnamed = AssetFactory(asset_tag="HOST-3", name="", model=AssetModelFactory(name="ThinkPad X1"))
    item = SimpleNamespace(name="Thing")
    for event in (EVENTS["accessory.checked_out"], EVENTS["consumable.checked_out"], EVENTS["license.checked_out"]):
        assert event.render(item=item, actor=admin, target=named).endswith("checked out to Desk PC by Ada Admin")
        assert event.render(item=item, actor=admin, target=unnamed).endswith("checked out to HOST-3 by Ada Admin")
    assert EVENTS["asset.checked_out"].render(item=named, actor=admin, target=unnamed).endswith(
        "checked out to HOST-3 (ThinkPad X1) by Ada Admin")
