"""Where a change came from is recorded on every action-log row written during a request, by one middleware:
catalogue, companies and users as well as hardware (before, only the hardware views recorded it), and the admin as
``gui``."""

from __future__ import annotations

import pytest
from django.urls import reverse

from activity.models import ActionLog
from tests.factories import SupplierFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url, body, item_type", [
    ("/api/v1/suppliers", {"name": "Meta supplier"}, "supplier"),
    ("/api/v1/companies", {"name": "Meta company"}, "company"),
    ("/api/v1/users", {"first_name": "Meta", "username": "meta", "password": "long-enough-1",
                       "password_confirmation": "long-enough-1"}, "user"),
])
def test_every_api_write_records_address_agent_and_source(token_client, url, body, item_type):
    response = token_client.post(url, body, format="json", HTTP_USER_AGENT="sync-script/2.0",
                                 REMOTE_ADDR="192.0.2.7")
    assert response.json()["status"] == "success", response.content
    row = ActionLog.objects.filter(item_type=item_type).latest("pk")
    assert (row.remote_ip, row.user_agent, row.action_source) == ("192.0.2.7", "sync-script/2.0", "api")


def test_admin_writes_are_recorded_as_gui(client, superuser):
    supplier = SupplierFactory(name="Before")
    client.force_login(superuser)
    url = reverse("admin:inventory_supplier_change", args=[supplier.pk])
    form = {"name": "After"}
    response = client.post(url, form, HTTP_USER_AGENT="Mozilla/5.0 admin", REMOTE_ADDR="198.51.100.9")
    assert response.status_code == 302, response.content[:2000]
    row = ActionLog.objects.filter(item_type="supplier", item_id=supplier.pk, action_type="update").get()
    assert (row.remote_ip, row.user_agent, row.action_source) == ("198.51.100.9", "Mozilla/5.0 admin", "gui")


def test_outside_a_request_nothing_is_invented(superuser):
    from inventory.models import Supplier
    from inventory.services.catalogue import catalogue_item_create

    supplier = catalogue_item_create(model=Supplier, data={"name": "From a command"}, actor=superuser)
    row = ActionLog.objects.get(item_type="supplier", item_id=supplier.pk)
    assert (row.remote_ip, row.user_agent) == ("", "")
