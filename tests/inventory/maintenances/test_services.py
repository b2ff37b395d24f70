"""``inventory.services.maintenances`` directly (the admin and the API call these): the time follows the dates, the
asset is checked under lock for life and company, a deleted maintenance is gone, and every write logs one row with
the asset's company."""

from __future__ import annotations

import datetime

import pytest

from activity.models import ActionLog
from assetsvc.exceptions import ConflictError, InvalidInputError, NotFoundError
from inventory.models import Maintenance
from inventory.services.maintenances import (
    maintenance_create,
    maintenance_delete,
    maintenance_time,
    maintenance_update,
)
from tests.factories import AssetFactory, CompanyFactory, UserFactory
from tests.factories.maintenances import MaintenanceFactory

pytestmark = pytest.mark.django_db
D = datetime.date


def data(**kwargs):
    return {"asset_maintenance_type": "Repair", "title": "Fan", "start_date": D(2026, 3, 2), **kwargs}


def test_maintenance_time():
    assert maintenance_time(D(2026, 3, 2), None) is None
    assert maintenance_time(D(2026, 2, 27), D(2026, 3, 2)) == 3
    assert maintenance_time(D(2026, 3, 2), D(2026, 3, 2)) == 0


def test_create_update_delete_log_with_the_assets_company(superuser):
    company = CompanyFactory()
    asset = AssetFactory(company=company)
    made = maintenance_create(data=data(asset=asset, completion_date=D(2026, 3, 4)), actor=superuser)
    assert (made.asset_maintenance_time, made.created_by) == (2, superuser)
    changed = maintenance_update(maintenance=made, data={"completion_date": None}, actor=superuser)
    assert changed.asset_maintenance_time is None
    maintenance_delete(maintenance=changed, actor=superuser)
    rows = list(ActionLog.objects.filter(item_type="maintenance", item_id=made.pk).order_by("pk"))
    assert [row.action_type for row in rows] == ["create", "update", "delete"]
    assert {(row.company_id, row.target_type, row.target_id) for row in rows} == {(company.pk, "asset", asset.pk)}
    assert rows[1].log_meta == {"completion_date": {"old": "2026-03-04", "new": None},
                                "asset_maintenance_time": {"old": 2, "new": None}}
    with pytest.raises(NotFoundError):
        maintenance_update(maintenance=changed, data={"title": "x"}, actor=superuser)
    with pytest.raises(NotFoundError):
        maintenance_delete(maintenance=changed, actor=superuser)


def test_an_unchanged_update_writes_no_row(superuser):
    obj = MaintenanceFactory(title="Same")
    maintenance_update(maintenance=obj, data={"title": "Same"}, actor=superuser)
    assert not ActionLog.objects.filter(item_type="maintenance", action_type="update").exists()


def test_the_asset_must_be_live_and_visible_to_the_actor(fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    actor = UserFactory(company=mine)
    for asset in (AssetFactory(company=theirs), AssetFactory(company=mine, deleted_at=datetime.datetime.now(
            datetime.UTC))):
        with pytest.raises(InvalidInputError) as refused:
            maintenance_create(data=data(asset=asset), actor=actor)
        assert refused.value.messages == {"asset_id": ["The selected asset id is invalid."]}
        own = MaintenanceFactory(company=mine)
        with pytest.raises(InvalidInputError):
            maintenance_update(maintenance=own, data={"asset": asset}, actor=actor)
    assert not ActionLog.objects.exists()
    assert maintenance_create(data=data(asset=AssetFactory(company=mine)), actor=actor).pk


def test_completion_before_start_and_a_deleted_asset_are_refused(superuser):
    asset = AssetFactory()
    with pytest.raises(InvalidInputError):
        maintenance_create(data=data(asset=asset, completion_date=D(2026, 3, 1)), actor=superuser)
    obj = MaintenanceFactory(asset=asset, start_date=D(2026, 3, 2))
    with pytest.raises(InvalidInputError):
        maintenance_update(maintenance=obj, data={"completion_date": D(2026, 3, 1)}, actor=superuser)
    asset.deleted_at = datetime.datetime.now(datetime.UTC)
    asset.save()
    with pytest.raises(ConflictError):
        maintenance_update(maintenance=obj, data={"title": "Other"}, actor=superuser)
    maintenance_delete(maintenance=obj, actor=superuser)  # still deletable
    assert Maintenance.objects.get(pk=obj.pk).deleted_at is not None


def test_in_progress(superuser):
    today = datetime.date.today()
    open_ = MaintenanceFactory(start_date=today - datetime.timedelta(days=1))
    MaintenanceFactory(start_date=today + datetime.timedelta(days=2))
    MaintenanceFactory(completion_date=today)
    MaintenanceFactory(deleted_at=datetime.datetime.now(datetime.UTC))
    assert list(Maintenance.objects.in_progress()) == [open_]
