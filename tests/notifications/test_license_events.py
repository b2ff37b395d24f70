"""License seat events end to end: the real seat service (``inventory.services.licenses.seat_update``, which runs
``item_checkout`` / ``item_checkin`` with ``LicenseKind``), the real receivers and a real local receiver.

They post the specification's checkout text and API-CONTRACT.md §10's checkin text in each platform's body, with
``<license_name>`` the license's name and ``<target_name>`` by §10 (a user's full name, an asset's name or, unnamed,
its tag). A reassigned seat posts its checkin, then its checkout; an asset delete posts the checkin of the seats it
held; a refused checkout posts nothing; the product key is never in a body.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

from assetsvc.exceptions import ConflictError
from inventory.models import LicenseSeat
from inventory.services.assets import asset_delete
from inventory.services.licenses import seat_update
from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, AssetModelFactory, LicenseFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, serve_platform, wait_for_idle
from tests.notifications.test_receivers import EXPECTED, chat_keys

KEY = "SECRET-PRODUCT-KEY-42"
OUT_TO_GRACE = "License seat for Office was checked out to Grace Hopper by Ada Admin"
BACK = "License seat for Office was checked in by Ada Admin"


@pytest.fixture
def scene(admin_user) -> SimpleNamespace:
    office = LicenseFactory(name="Office", seats=2, serial=KEY)
    return SimpleNamespace(
        admin=admin_user,
        grace=UserFactory(first_name="Grace", last_name="Hopper"),
        # Unnamed, with a model: §10 names it by its tag.
        host=AssetFactory(asset_tag="HOST-1", name="", model=AssetModelFactory(name="Desk PC")),
        office=office,
        seat=LicenseSeat.objects.filter(license=office).order_by("pk").first(),
    )


def seat_to(target: str) -> Callable[[SimpleNamespace], None]:
    def run(s: SimpleNamespace) -> None:
        seat_update(license=s.office, seat=s.seat, target=getattr(s, target), actor=s.admin, note="desk")

    return run


def seat_out_and_back(s: SimpleNamespace) -> None:
    seat_to("grace")(s)
    assert wait_for_idle(10)  # the checkout's notification is delivered before the checkin's
    seat_update(license=s.office, seat=s.seat, target=None, actor=s.admin)


def seat_reassigned(s: SimpleNamespace) -> None:
    seat_to("grace")(s)
    assert wait_for_idle(10)
    seat_to("host")(s)


def asset_deleted(s: SimpleNamespace) -> None:
    seat_to("host")(s)
    assert wait_for_idle(10)
    asset_delete(asset=s.host, actor=s.admin)


#: case → (what it does, the (event, text) of each post in order).
CASES: dict[str, tuple[Callable[[SimpleNamespace], None], list[tuple[str, str]]]] = {
    "seat to a user": (seat_to("grace"), [("license.checked_out", OUT_TO_GRACE)]),
    "seat to an unnamed asset": (seat_to("host"), [
        ("license.checked_out", "License seat for Office was checked out to HOST-1 by Ada Admin")]),
    "seat checkin": (seat_out_and_back, [("license.checked_out", OUT_TO_GRACE), ("license.checked_in", BACK)]),
    "seat reassigned": (seat_reassigned, [
        ("license.checked_out", OUT_TO_GRACE), ("license.checked_in", BACK),
        ("license.checked_out", "License seat for Office was checked out to HOST-1 by Ada Admin")]),
    "asset deleted": (asset_deleted, [
        ("license.checked_out", "License seat for Office was checked out to HOST-1 by Ada Admin"),
        ("license.checked_in", BACK)]),
}


@pytest.mark.parametrize("platform", ["slack", "general", "google", "microsoft"])
@pytest.mark.parametrize("case", list(CASES))
def test_license_events_post_the_spec_bodies(webhook, receiver, scene, case, platform):
    endpoint = serve_platform(webhook, receiver, platform)
    run, posts = CASES[case]

    run(scene)
    assert wait_for_idle(10)

    # Posts of one transaction (a reassignment's checkin and checkout) are queued in order but delivered by
    # several workers, so they may arrive in either order: compared as lists sorted the same way.
    assert sorted(repr(chat_keys(body)) for body in posted_bodies(receiver)) == sorted(
        repr(EXPECTED[platform](text)) for _, text in posts)
    assert all(KEY not in request.get_data(as_text=True) for request, _ in receiver.log)
    rows = list(WebhookDelivery.objects.values_list("event", "success", "status_code", "endpoint"))
    assert sorted(rows) == sorted((event, True, 200, endpoint) for event, _text in posts)


def test_a_refused_seat_checkout_posts_nothing(webhook, receiver, scene):
    webhook("google", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({})
    scene.office.reassignable = False
    scene.office.save()
    seat_to("grace")(scene)
    assert wait_for_idle(10)

    with pytest.raises(ConflictError):
        seat_to("host")(scene)
    assert wait_for_idle(10)

    assert posted_bodies(receiver) == [{"text": OUT_TO_GRACE}]
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["license.checked_out"]
