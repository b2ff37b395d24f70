"""Maintenance races on PostgreSQL (row locks): concurrent deletes of one maintenance have one winner and one log
row; a maintenance filed while its asset is being deleted is either written before the delete or refused, never
attached to an asset already deleted."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from inventory.models import Asset, Maintenance
from tests.factories import AssetFactory
from tests.factories.maintenances import MaintenanceFactory
from tests.inventory.test_concurrency import THREADS, clients, run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
URL = "/api/v1/maintenances"


def test_concurrent_deletes_of_one_maintenance_have_one_winner():
    obj = MaintenanceFactory()
    http = clients(THREADS)
    results = run_together([(lambda c=c: c.delete(f"{URL}/{obj.pk}")) for c in http])
    statuses = [r.json()["status"] for r in results]
    assert statuses.count("success") == 1 and statuses.count("error") == THREADS - 1
    assert ActionLog.objects.filter(item_type="maintenance", item_id=obj.pk, action_type="delete").count() == 1


def test_filing_while_the_asset_is_deleted_never_maintains_a_deleted_asset():
    for _ in range(3):
        asset = AssetFactory()
        filer, deleter = clients(2)
        body = {"asset_id": asset.pk, "asset_maintenance_type": "Repair", "title": "Race",
                "start_date": "2026-03-02"}
        created, deleted = run_together([
            lambda filer=filer, body=body: filer.post(URL, body, format="json"),
            lambda deleter=deleter, path=f"/api/v1/hardware/{asset.pk}": deleter.delete(path)])
        assert deleted.json()["status"] == "success"
        asset = Asset.objects.get(pk=asset.pk)
        maintenance = Maintenance.objects.filter(asset=asset).first()
        if created.json()["status"] == "success":
            assert maintenance is not None and maintenance.created_at <= asset.deleted_at
        else:
            assert maintenance is None
            assert created.json()["messages"] == {"asset_id": ["The selected asset id is invalid."]}
