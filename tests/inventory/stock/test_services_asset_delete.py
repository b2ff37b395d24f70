"""Deleting an asset returns the accessories checked out to it and the components installed in it to stock (Snipe-IT
leaves them out to an asset nobody can see any more; docs/decisions.md, issues 10 and 11)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from activity.models import ActionLog
from inventory.models import AccessoryCheckout, ComponentAssignment
from tests.factories import AccessoryFactory, AssetFactory, ComponentFactory
from tests.factories.inventory import accessory_out, component_in

pytestmark = pytest.mark.django_db

#: Per kind: the item factory, how units are put out to an asset (test setup), the row model, the item's URL.
KINDS: dict[str, tuple[Callable[..., Any], Callable[..., Any], type, str]] = {
    "accessory": (AccessoryFactory, accessory_out, AccessoryCheckout, "/api/v1/accessories"),
    "component": (ComponentFactory, component_in, ComponentAssignment, "/api/v1/components"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_deleting_an_asset_takes_back_what_it_holds(token_client, superuser, kind):
    """Every row the asset holds comes back, one ``checkin from`` log row each with the note ``Checkin on delete``;
    rows held elsewhere stay."""
    factory, put_out, rows, url = KINDS[kind]
    asset, item, other = AssetFactory(), factory(qty=6), factory(qty=2)
    put_out(asset, item, qty=3)
    put_out(asset, item, qty=1)
    put_out(asset, other, qty=2)
    kept = put_out(AssetFactory(), item, qty=1)
    body = token_client.delete(f"/api/v1/hardware/{asset.pk}").json()
    assert body["status"] == "success", body
    assert list(rows.objects.all()) == [kept]
    assert token_client.get(f"{url}/{item.pk}").json()["remaining"] == 5
    assert token_client.get(f"{url}/{other.pk}").json()["remaining"] == 2
    logs = ActionLog.objects.filter(item_type=kind, action_type="checkin from").order_by("item_id", "pk")
    assert [(log.item_id, log.target_type, log.target_id, log.note, log.created_by) for log in logs] == [
        (item.pk, "asset", asset.pk, "Checkin on delete", superuser),
        (item.pk, "asset", asset.pk, "Checkin on delete", superuser),
        (other.pk, "asset", asset.pk, "Checkin on delete", superuser),
    ]
    assert sorted(log.log_meta["checkin_qty"]["new"] for log in logs) == [1, 2, 3]
    assert all(log.log_meta["assigned_qty"]["new"] == 0 for log in logs)
    assert token_client.delete(f"{url}/{other.pk}").json()["status"] == "success"  # nothing of it is out now
