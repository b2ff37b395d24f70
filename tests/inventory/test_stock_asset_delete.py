"""Deleting an asset returns the accessories checked out to it to stock (Snipe-IT leaves them out to an asset
nobody can see any more; docs/decisions.md, issue 10)."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from inventory.models import AccessoryCheckout
from tests.factories import AccessoryFactory, AssetFactory, UserFactory
from tests.factories.inventory import accessory_out

pytestmark = pytest.mark.django_db


def test_deleting_an_asset_checks_its_accessories_in(token_client, superuser):
    asset, dock = AssetFactory(), AccessoryFactory(qty=4)
    accessory_out(asset, dock, qty=3)
    kept = accessory_out(UserFactory(), dock, qty=1)
    body = token_client.delete(f"/api/v1/hardware/{asset.pk}").json()
    assert body["status"] == "success", body
    assert list(AccessoryCheckout.objects.filter(accessory=dock)) == [kept]
    assert token_client.get(f"/api/v1/accessories/{dock.pk}").json()["remaining"] == 3
    log = ActionLog.objects.get(item_type="accessory", item_id=dock.pk, action_type="checkin from")
    assert (log.target_type, log.target_id, log.note, log.created_by) == ("asset", asset.pk, "Checkin on delete",
                                                                          superuser)
    assert log.log_meta == {"checkin_qty": {"old": None, "new": 3}, "assigned_qty": {"old": 3, "new": 0}}
