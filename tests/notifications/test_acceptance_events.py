"""Issue 29's optional events: ``<kind>.accepted`` / ``<kind>.declined``, sent when the person answers on the
acceptance page, to a real local receiver when enabled in ``webhook_events``."""

from __future__ import annotations

import pytest
from django.test import Client

from assetsvc.models import SiteSettings
from inventory.acceptance_links import acceptance_token
from inventory.models import CheckoutAcceptance
from tests.factories import AssetFactory, CategoryFactory, UserFactory
from tests.factories.inventory import AccessoryFactory, AssetModelFactory
from tests.notifications.conftest import posted_bodies, serve_platform, wait_for_idle


@pytest.fixture
def general(webhook, receiver):
    serve_platform(webhook, receiver, "general")
    site = SiteSettings.load()
    site.webhook_events = "asset.accepted,asset.declined,accessory.accepted,accessory.declined,asset.checked_in"
    site.full_clean()
    site.save()
    return receiver


def test_accepted_and_declined_reach_the_receiver(general, admin_user, make_client):
    api = make_client(admin_user)
    grace = UserFactory(first_name="Grace", last_name="Hopper")
    asset = AssetFactory(asset_tag="TAG-9", name="Laptop",
                         model=AssetModelFactory(category=CategoryFactory(require_acceptance=True)))
    dock = AccessoryFactory(name="Dock", category=CategoryFactory(category_type="accessory", require_acceptance=True))
    assert api.post(f"/api/v1/hardware/{asset.pk}/checkout", {"checkout_to_type": "user", "assigned_user": grace.pk},
                    format="json").json()["status"] == "success"
    assert api.post(f"/api/v1/accessories/{dock.pk}/checkout", {"assigned_user": grace.pk},
                    format="json").json()["status"] == "success"
    rows = {row.item_type: row for row in CheckoutAcceptance.objects.all()}
    assert Client().post(f"/accept/{acceptance_token(rows['asset'])}/", {"answer": "accept"}).status_code == 200
    assert Client().post(f"/accept/{acceptance_token(rows['accessory'])}/", {"answer": "decline"}).status_code == 200
    assert wait_for_idle(10)
    person = {"type": "user", "id": grace.pk, "name": "Grace Hopper"}
    assert [(body["event"], body["text"], body["actor"]["id"], body["target"]) for body in posted_bodies(general)] == [
        ("asset.accepted", "Asset TAG-9 (Laptop) was accepted by Grace Hopper", grace.pk, person),
        ("accessory.declined", "Accessory Dock was declined by Grace Hopper", grace.pk, person),
    ]
