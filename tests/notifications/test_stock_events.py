"""Accessory and consumable events end to end: the real checkout services
(``inventory.services.checkout.item_checkout`` /
``item_checkin`` with the kinds of ``inventory.services.stock``), the real receivers and a real local receiver.

They post the specification's texts (API-CONTRACT.md §10 for the accessory checkin) in each platform's body, with
``<target_name>`` by §10: a user's full name, a location's name, an asset's name or, unnamed, its tag. A refused
checkout posts nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

from assetsvc.exceptions import InvalidInputError
from inventory.services.checkout import item_checkin, item_checkout
from inventory.services.stock import ACCESSORY, CONSUMABLE
from notifications.models import WebhookDelivery
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ConsumableFactory,
    LocationFactory,
    UserFactory,
)
from tests.notifications.conftest import HOOK_PATH, posted_bodies, serve_platform, wait_for_idle
from tests.notifications.test_receivers import EXPECTED

OUT_TO_GRACE = "Accessory USB Hub was checked out to Grace Hopper by Ada Admin"


@pytest.fixture
def scene(admin_user) -> SimpleNamespace:
    return SimpleNamespace(
        admin=admin_user,
        grace=UserFactory(first_name="Grace", last_name="Hopper"),
        berlin=LocationFactory(name="Berlin"),
        # Unnamed, with a model: §10 names it by its tag, not by its model as the asset events would.
        host=AssetFactory(asset_tag="HOST-1", name="", model=AssetModelFactory(name="Desk PC")),
        hub=AccessoryFactory(name="USB Hub", qty=5),
        toner=ConsumableFactory(name="Toner", qty=5),
    )


def accessory_to(target: str) -> Callable[[SimpleNamespace], None]:
    def run(s: SimpleNamespace) -> None:
        item_checkout(kind=ACCESSORY, item=s.hub, target=getattr(s, target), actor=s.admin, quantity=2, note="desk")

    return run


def consumable_to_grace(s: SimpleNamespace) -> None:
    item_checkout(kind=CONSUMABLE, item=s.toner, target=s.grace, actor=s.admin, quantity=3)


def accessory_out_and_back(s: SimpleNamespace) -> None:
    accessory_to("grace")(s)
    assert wait_for_idle(10)  # the checkout's notification is delivered before the checkin's
    item_checkin(kind=ACCESSORY, item=s.hub, actor=s.admin, assignment=s.hub.checkouts.get())


#: case → (what it does, the (event, text) of each post in order).
CASES: dict[str, tuple[Callable[[SimpleNamespace], None], list[tuple[str, str]]]] = {
    "accessory to a user": (accessory_to("grace"), [("accessory.checked_out", OUT_TO_GRACE)]),
    "accessory to a location": (accessory_to("berlin"), [
        ("accessory.checked_out", "Accessory USB Hub was checked out to Berlin by Ada Admin")]),
    "accessory to an unnamed asset": (accessory_to("host"), [
        ("accessory.checked_out", "Accessory USB Hub was checked out to HOST-1 by Ada Admin")]),
    "consumable to a user": (consumable_to_grace, [
        ("consumable.checked_out", "Consumable Toner was checked out to Grace Hopper by Ada Admin")]),
    "accessory checkin": (accessory_out_and_back, [
        ("accessory.checked_out", OUT_TO_GRACE),
        ("accessory.checked_in", "Accessory USB Hub was checked in by Ada Admin")]),
}


@pytest.mark.parametrize("platform", ["slack", "general", "google", "microsoft"])
@pytest.mark.parametrize("case", list(CASES))
def test_stock_events_post_the_spec_bodies(webhook, receiver, scene, case, platform):
    endpoint = serve_platform(webhook, receiver, platform)
    run, posts = CASES[case]

    run(scene)
    assert wait_for_idle(10)

    assert posted_bodies(receiver) == [EXPECTED[platform](text) for _event, text in posts]
    assert [request.headers["Content-Type"] for request, _ in receiver.log] == ["application/json"] * len(posts)
    rows = list(WebhookDelivery.objects.order_by("id").values_list("event", "success", "status_code", "endpoint"))
    assert rows == [(event, True, 200, endpoint) for event, _text in posts]


def test_a_refused_checkout_posts_nothing(webhook, receiver, scene):
    webhook("google", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({})
    item_checkout(kind=ACCESSORY, item=scene.hub, target=scene.grace, actor=scene.admin, quantity=4)
    assert wait_for_idle(10)

    refusals = [
        dict(kind=ACCESSORY, item=scene.hub, target=scene.grace, quantity=2),  # 1 remains
        dict(kind=CONSUMABLE, item=scene.toner, target=scene.grace, quantity=6),  # qty is 5
        dict(kind=CONSUMABLE, item=scene.toner, target=scene.berlin, quantity=1),  # consumables go to users only
    ]
    for refusal in refusals:
        with pytest.raises(InvalidInputError):
            item_checkout(actor=scene.admin, **refusal)
    assert wait_for_idle(10)

    assert posted_bodies(receiver) == [{"text": OUT_TO_GRACE}]
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["accessory.checked_out"]


def test_without_an_endpoint_nothing_is_posted_or_logged(webhook, receiver, scene):
    # Notifications are switched off as a whole by an empty endpoint; single events cannot be switched yet
    # (API-CONTRACT.md §8a's webhook_events is not implemented).
    webhook("slack", "")
    accessory_to("grace")(scene)
    consumable_to_grace(scene)
    assert wait_for_idle(10)
    assert receiver.log == []
    assert WebhookDelivery.objects.count() == 0
