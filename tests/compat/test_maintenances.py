"""A repair filed, followed and closed the way SnipeitPS files one (``New-SnipeitAssetMaintenance``,
``Get-SnipeitAssetMaintenance``, ``Set-SnipeitAssetMaintenance``, ``Remove-SnipeitAssetMaintenance``), replayed through
the API. Written from reading the client, not copied from it:

- create: ``POST /maintenances`` with ``asset_id``, ``supplier_id``, ``asset_maintenance_type``, ``title``,
  ``start_date`` (``yyyy-MM-dd``) and ``is_warranty`` as a JSON boolean; ``cost`` and ``notes`` when given;
- list: ``GET /maintenances?asset_id=<id>`` with ``limit``/``offset``/``sort``/``order``; the client reads ``rows``;
- close: ``PATCH /maintenances/{id}`` with ``completion_date`` (newer versions of the client send the title as
  ``name``);
- delete: ``DELETE /maintenances/{id}``; the client treats any ``"status": "error"`` as a failure.
"""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from inventory.models import Maintenance
from tests.factories import AssetFactory, SupplierFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/maintenances"


def succeeded(response) -> dict:
    body = response.json()
    assert response.status_code == 200 and body["status"] == "success", body
    return body


def test_a_repair_filed_listed_closed_and_deleted(make_client):
    # Snipe-IT authorizes maintenances with the asset keys: a technician's token with assets.view/assets.edit works
    client = make_client(UserFactory(permissions={"assets.view": 1, "assets.edit": 1}))
    asset, supplier = AssetFactory(), SupplierFactory(name="Repair Shop Ltd")
    AssetFactory()  # another asset, never in the answers below

    created = succeeded(client.post(URL, {
        "asset_id": asset.pk, "supplier_id": supplier.pk, "asset_maintenance_type": "Repair",
        "title": "replace keyboard", "start_date": "2026-03-02", "is_warranty": False, "cost": 89.9,
        "notes": "coffee",
    }, format="json"))
    assert created["messages"] == "Asset Maintenance created successfully."
    maintenance_id = created["payload"]["id"]
    assert created["payload"]["asset_id"] == asset.pk and created["payload"]["supplier_id"] == supplier.pk
    assert client.get(f"/api/v1/hardware/{asset.pk}").json()["in_maintenance"] is True

    listed = client.get(URL, {"asset_id": asset.pk, "limit": 50, "offset": 0, "sort": "created_at",
                              "order": "desc"}).json()
    assert listed["total"] == 1
    row = listed["rows"][0]
    assert row["id"] == maintenance_id and row["title"] == "replace keyboard"
    assert row["asset"]["asset_tag"] == asset.asset_tag and row["supplier"] == {"id": supplier.pk,
                                                                               "name": "Repair Shop Ltd"}
    assert row["asset_maintenance_type"] == "Repair" and row["cost"] == "89.90" and row["notes"] == "coffee"
    assert row["start_date"] == "2026-03-02" and row["completion_date"] is None
    assert row["asset_maintenance_time"] is None

    closed = succeeded(client.patch(f"{URL}/{maintenance_id}", {"completion_date": "2026-03-05",
                                                                "name": "replace keyboard (done)"}, format="json"))
    assert closed["messages"] == "Asset Maintenance edited successfully."
    assert closed["payload"]["completion_date"] == "2026-03-05" and closed["payload"]["asset_maintenance_time"] == 3
    assert closed["payload"]["title"] == "replace keyboard (done)"
    assert client.get(f"/api/v1/hardware/{asset.pk}").json()["in_maintenance"] is False

    deleted = succeeded(client.delete(f"{URL}/{maintenance_id}"))
    assert deleted["messages"] == "The asset maintenance was deleted successfully."
    assert client.get(URL, {"asset_id": asset.pk}).json() == {"total": 0, "rows": []}
    assert Maintenance.objects.get(pk=maintenance_id).deleted_at is not None  # soft, as in Snipe-IT
    assert list(ActionLog.objects.filter(item_type="maintenance", item_id=maintenance_id).order_by("pk")
                .values_list("action_type", flat=True)) == ["create", "update", "delete"]
