"""The general kind's machine-readable payload (API-CONTRACT.md §8a) posted to a real local receiver: the §8 keys
unchanged, then event, occurred_at, actor, item, target, quantity (accessory and consumable checkouts, accessory
checkins only), note and a delivery_id that is the same on every attempt of one notification."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from inventory.models import LicenseSeat
from inventory.services.assets import asset_audit, asset_checkin, asset_checkout
from inventory.services.checkout import item_checkin, item_checkout
from inventory.services.licenses import seat_update
from inventory.services.stock import ACCESSORY, CONSUMABLE
from notifications.models import WebhookDelivery
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ConsumableFactory,
    LicenseFactory,
    LocationFactory,
    UserFactory,
)
from tests.notifications.conftest import HOOK_PATH, posted_bodies, serve_platform, wait_for_idle
from tests.notifications.test_receivers import EXPECTED

SPEC_KEYS = ["channel", "text", "username", "icon_emoji"]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def general(webhook, receiver):
    serve_platform(webhook, receiver, "general")
    return receiver


@pytest.fixture
def grace(transactional_db):
    return UserFactory(first_name="Grace", last_name="Hopper")


def one_post(receiver) -> dict:
    assert wait_for_idle(10)
    body, = posted_bodies(receiver)
    receiver.log.clear()
    return body


def check_common(body: dict, event: str, text: str, admin) -> None:
    assert list(body)[:4] == SPEC_KEYS  # §8's keys first, in their order, with their values
    assert body["channel"] == "#it" and body["username"] == "AssetBot" and body["icon_emoji"] == ""
    assert body["text"] == text
    assert body["event"] == event
    assert UUID.fullmatch(body["delivery_id"]) and str(uuid.UUID(body["delivery_id"])) == body["delivery_id"]
    occurred = datetime.strptime(body["occurred_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs(timezone.now() - occurred) < timedelta(minutes=1)
    assert body["actor"] == {"id": admin.pk, "name": "Ada Admin"}


def test_asset_checkout_and_checkin(general, admin_user, grace):
    asset = AssetFactory(asset_tag="TAG-1", name="", model=AssetModelFactory(name="ThinkPad X1"))
    asset_checkout(asset=asset, target=grace, actor=admin_user, note="new starter")
    out = one_post(general)
    check_common(out, "asset.checked_out", "Asset TAG-1 (ThinkPad X1) was checked out to Grace Hopper by Ada Admin",
                 admin_user)
    assert out["item"] == {"type": "asset", "id": asset.pk, "name": "ThinkPad X1", "tag": "TAG-1"}
    assert out["target"] == {"type": "user", "id": grace.pk, "name": "Grace Hopper"}
    assert out["note"] == "new starter"
    assert "quantity" not in out

    asset_checkin(asset=asset, actor=admin_user)
    back = one_post(general)
    check_common(back, "asset.checked_in", "Asset TAG-1 (ThinkPad X1) was checked in by Ada Admin", admin_user)
    assert back["target"] == {"type": "user", "id": grace.pk, "name": "Grace Hopper"}  # the previous holder
    assert back["note"] is None and "quantity" not in back
    assert back["delivery_id"] != out["delivery_id"]


def test_audit_has_no_target(general, admin_user):
    asset = AssetFactory(asset_tag="TAG-2", name="Laptop")
    asset_audit(asset=asset, actor=admin_user, note="")
    body = one_post(general)
    check_common(body, "asset.audited", "Asset TAG-2 (Laptop) was audited by Ada Admin", admin_user)
    assert body["target"] is None and body["note"] is None and "quantity" not in body
    assert body["item"] == {"type": "asset", "id": asset.pk, "name": "Laptop", "tag": "TAG-2"}


def test_accessory_checkout_and_checkins_carry_the_quantity(general, admin_user, grace):
    hub = AccessoryFactory(name="USB Hub", qty=5)
    item_checkout(kind=ACCESSORY, item=hub, target=grace, actor=admin_user, quantity=3, note="desk")
    out = one_post(general)
    check_common(out, "accessory.checked_out", "Accessory USB Hub was checked out to Grace Hopper by Ada Admin",
                 admin_user)
    assert out["item"] == {"type": "accessory", "id": hub.pk, "name": "USB Hub", "tag": None}
    assert out["target"] == {"type": "user", "id": grace.pk, "name": "Grace Hopper"}
    assert out["quantity"] == 3 and out["note"] == "desk"

    row = hub.checkouts.get()
    item_checkin(kind=ACCESSORY, item=hub, actor=admin_user, assignment=row, quantity=1)
    part = one_post(general)
    check_common(part, "accessory.checked_in", "Accessory USB Hub was checked in by Ada Admin", admin_user)
    assert part["quantity"] == 1
    assert part["target"] == {"type": "user", "id": grace.pk, "name": "Grace Hopper"}

    item_checkin(kind=ACCESSORY, item=hub, actor=admin_user, assignment=hub.checkouts.get())
    assert one_post(general)["quantity"] == 2  # a whole checkin: what came back (it was None before)


def test_consumable_checkout(general, admin_user, grace):
    toner = ConsumableFactory(name="Toner", qty=5)
    item_checkout(kind=CONSUMABLE, item=toner, target=grace, actor=admin_user, quantity=2)
    body = one_post(general)
    check_common(body, "consumable.checked_out", "Consumable Toner was checked out to Grace Hopper by Ada Admin",
                 admin_user)
    assert body["item"] == {"type": "consumable", "id": toner.pk, "name": "Toner", "tag": None}
    assert body["quantity"] == 2 and body["note"] is None


def test_license_seat_checkout_names_the_license(general, admin_user):
    office = LicenseFactory(name="Office", seats=2)
    seat = LicenseSeat.objects.filter(license=office).order_by("pk").first()
    host = AssetFactory(asset_tag="HOST-1", name="", model=AssetModelFactory(name="Desk PC"))
    seat_update(license=office, seat=seat, target=host, actor=admin_user, note="desk")
    body = one_post(general)
    check_common(body, "license.checked_out", "License seat for Office was checked out to HOST-1 by Ada Admin",
                 admin_user)
    assert body["item"] == {"type": "license", "id": office.pk, "name": "Office", "tag": None}
    assert body["target"] == {"type": "asset", "id": host.pk, "name": "HOST-1"}
    assert "quantity" not in body


def test_location_target(general, admin_user):
    berlin = LocationFactory(name="Berlin")
    asset = AssetFactory(asset_tag="TAG-3", name="Dock")
    asset_checkout(asset=asset, target=berlin, actor=admin_user)
    assert one_post(general)["target"] == {"type": "location", "id": berlin.pk, "name": "Berlin"}


def test_delivery_id_is_the_same_on_a_second_attempt_of_the_task(general, admin_user, grace):
    asset = AssetFactory(asset_tag="TAG-4", name="Laptop")
    asset_checkout(asset=asset, target=grace, actor=admin_user)
    queued = DBTaskResult.objects.get()
    assert wait_for_idle(10)
    # The same task run again (as the orphan sweep puts a stopped worker's task back), its mark gone so it posts.
    DBTaskResult.objects.filter(pk=queued.pk).update(status=TaskResultStatus.READY)
    WebhookDelivery.objects.all().delete()
    assert wait_for_idle(10)
    first, second = posted_bodies(general)
    assert first == second and UUID.fullmatch(first["delivery_id"])
    assert queued.args_kwargs["kwargs"]["job"]["delivery_id"] == first["delivery_id"]


@pytest.mark.parametrize("platform", ["slack", "google", "microsoft"])
def test_chat_kinds_are_unchanged(webhook, receiver, admin_user, grace, platform):
    serve_platform(webhook, receiver, platform)
    hub = AccessoryFactory(name="USB Hub", qty=5)
    item_checkout(kind=ACCESSORY, item=hub, target=grace, actor=admin_user, quantity=3, note="desk")
    assert wait_for_idle(10)
    body, = posted_bodies(receiver)
    assert body == EXPECTED[platform]("Accessory USB Hub was checked out to Grace Hopper by Ada Admin")
    assert type(body) is dict and "delivery_id" not in str(body)


def test_general_test_message_carries_the_same_keys(webhook, receiver, admin_user):
    from io import StringIO

    from django.core.management import call_command

    webhook("general", receiver.url_for(HOOK_PATH), channel="#it")
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    call_command("send_test_webhook", stdout=StringIO())
    body, = posted_bodies(receiver)
    assert list(body)[:4] == SPEC_KEYS
    assert body["event"] == "test" and UUID.fullmatch(body["delivery_id"])
    assert {"occurred_at", "actor", "item", "target", "note"} <= set(body)
