"""The asset admin goes through the services: its actions write the same log rows as the API."""

from __future__ import annotations

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client

from activity.models import ActionLog
from inventory.models import Asset
from tests.factories import AssetFactory, AssetModelFactory, StatusLabelFactory, UserFactory
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/inventory/asset/"


@pytest.fixture
def admin_client(superuser):
    client = Client()
    client.force_login(superuser)
    return client


def test_changelist_and_change_form(admin_client):
    asset = checked_out_asset(UserFactory())
    assert admin_client.get(CHANGELIST).status_code == 200
    page = admin_client.get(f"{CHANGELIST}{asset.pk}/change/")
    assert page.status_code == 200
    # the assignment belongs to checkout and checkin; the status is edited (through asset_update)
    assert b'name="assigned_user"' not in page.content and b'name="status"' in page.content


def test_add_creates_through_service(admin_client, superuser):
    model, status = AssetModelFactory(), StatusLabelFactory()
    resp = admin_client.post(f"{CHANGELIST}add/", {"asset_tag": "ADM-1", "model": model.pk, "status": status.pk,
                                                   "name": "", "serial": "", "notes": "", "order_number": ""})
    assert resp.status_code == 302, resp.content
    asset = Asset.objects.get(asset_tag="ADM-1")
    assert asset.created_by == superuser
    assert ActionLog.objects.get(item_id=asset.pk).action_type == "create"


def test_add_refuses_duplicate_tag(admin_client):
    AssetFactory(asset_tag="adm-1")
    model, status = AssetModelFactory(), StatusLabelFactory()
    resp = admin_client.post(f"{CHANGELIST}add/", {"asset_tag": "ADM-1", "model": model.pk, "status": status.pk})
    assert resp.status_code == 200 and b"The asset tag must be unique." in resp.content
    assert Asset.objects.count() == 1


def test_checkout_checkin_audit_actions(admin_client):
    asset = AssetFactory()
    user = UserFactory()
    page = admin_client.post(CHANGELIST, {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [asset.pk]})
    assert page.status_code == 200 and b"Check out" in page.content
    resp = admin_client.post(CHANGELIST, {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [asset.pk],
                                          "user": user.pk, "note": "from admin", "apply": "1"})
    assert resp.status_code == 302
    asset.refresh_from_db()
    assert asset.assigned_user == user
    admin_client.post(CHANGELIST, {"action": "checkin_selected", ACTION_CHECKBOX_NAME: [asset.pk], "note": "",
                                   "apply": "1"})
    admin_client.post(CHANGELIST, {"action": "audit_selected", ACTION_CHECKBOX_NAME: [asset.pk]})
    admin_client.post(CHANGELIST, {"action": "delete_selected_assets", ACTION_CHECKBOX_NAME: [asset.pk]})
    admin_client.post(f"{CHANGELIST}?deleted=yes", {"action": "restore_selected", ACTION_CHECKBOX_NAME: [asset.pk]})
    assert list(ActionLog.objects.order_by("id").values_list("action_type", flat=True)) == [
        "checkout", "checkin from", "audit", "delete", "restore"]


def test_refused_action_reports_error(admin_client):
    asset = AssetFactory()
    resp = admin_client.post(CHANGELIST, {"action": "checkin_selected", ACTION_CHECKBOX_NAME: [asset.pk],
                                          "apply": "1"}, follow=True)
    assert b"0 assets checked in; 1 refused: " in resp.content
    assert b"That asset is already checked in." in resp.content
    assert ActionLog.objects.count() == 0
