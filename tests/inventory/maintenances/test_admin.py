"""The maintenance admin goes through ``inventory.services.maintenances``: it lists and searches maintenances at a
constant cost, adds and edits them with the API's rules and messages (the time follows the dates, a completion before
the start is refused), deletes softly with a log row, scopes by the asset's company, and the asset's page lists its
maintenances."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory.models import Maintenance
from inventory.services.maintenances import COMPLETION_BEFORE_START
from tests.factories import AssetFactory, CompanyFactory, SupplierFactory, UserFactory
from tests.factories.maintenances import MaintenanceFactory
from tests.ops.test_admin_services import form_data, form_errors, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def listed(client, **params) -> list[str]:
    return [row.title for row in client.get(url(Maintenance), params).context["cl"].result_list]


def test_list_search_filters_at_a_constant_cost(admin_client):
    asset = AssetFactory(asset_tag="LAP-7")
    MaintenanceFactory(asset=asset, title="Keyboard")
    MaintenanceFactory(title="Battery", completion_date=datetime.date.today())
    assert sorted(listed(admin_client)) == ["Battery", "Keyboard"]
    assert listed(admin_client, q="lap-7") == ["Keyboard"]
    assert listed(admin_client, completion_date__isempty="1") == ["Keyboard"]

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(url(Maintenance)).status_code == 200
        return len(captured)

    one = queries()
    for _ in range(5):
        MaintenanceFactory()
    assert queries() == one


def test_add_and_edit_go_through_the_services(admin_client, superuser):
    asset, supplier = AssetFactory(), SupplierFactory()
    data = {"asset": asset.pk, "supplier": supplier.pk, "asset_maintenance_type": "Repair", "title": "Fan",
            "start_date": "2026-03-02", "completion_date": "2026-03-01", "cost": "", "notes": ""}
    response = admin_client.post(url(Maintenance, "add"), data)
    assert response.status_code == 200 and COMPLETION_BEFORE_START in form_errors(response)
    assert not Maintenance.objects.exists()
    response = admin_client.post(url(Maintenance, "add"), {**data, "completion_date": "2026-03-06"})
    assert response.status_code == 302, form_errors(response)
    obj = Maintenance.objects.get()
    assert (obj.asset_maintenance_time, obj.created_by) == (4, superuser)
    page = url(Maintenance, "change", obj.pk)
    response = admin_client.post(page, form_data(admin_client, page, completion_date=""))
    assert response.status_code == 302, form_errors(response)
    obj.refresh_from_db()
    assert obj.completion_date is None and obj.asset_maintenance_time is None
    assert list(ActionLog.objects.filter(item_type="maintenance", item_id=obj.pk).order_by("pk")
                .values_list("action_type", "action_source")) == [("create", "gui"), ("update", "gui")]
    history = admin_client.get(f"/admin/inventory/maintenance/{obj.pk}/history/")
    assert history.status_code == 200 and len(history.context["rows"]) == 2


def test_delete_is_soft_and_logged(admin_client):
    obj = MaintenanceFactory()
    response = admin_client.post(url(Maintenance, "delete", obj.pk), {"post": "yes"}, follow=True)
    assert response.status_code == 200
    obj.refresh_from_db()
    assert obj.deleted_at is not None
    assert ActionLog.objects.filter(item_type="maintenance", item_id=obj.pk, action_type="delete").exists()


def test_an_administrator_sees_only_their_companys_maintenances(client, fmcs_on):
    mine = CompanyFactory()
    admin_user = UserFactory(company=mine, permissions={"admin": 1})
    client.force_login(admin_user)
    MaintenanceFactory(company=mine, title="Ours")
    theirs = MaintenanceFactory(company=CompanyFactory(), title="Theirs")
    assert listed(client) == ["Ours"]
    assert client.get(url(Maintenance, "change", theirs.pk)).status_code == 302  # "does not exist" redirect


def test_the_assets_page_lists_its_maintenances(admin_client):
    asset = AssetFactory()
    MaintenanceFactory(asset=asset, title="Screen")
    MaintenanceFactory(asset=asset, title="Gone", deleted_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    page = admin_client.get(f"/admin/inventory/asset/{asset.pk}/change/").content.decode()
    assert "Screen" in page and "in progress" in page and "Gone" not in page
    assert f"/admin/inventory/maintenance/add/?asset={asset.pk}" in page
