"""The change pages of accessories, consumables, components and licenses (issue 14): a button checks units out
through the same service as the API, another leads to where they are checked in, the remaining units and the
holders are shown, and HISTORY is the item's action log."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from activity.models import ActionLog
from inventory.models import AccessoryCheckout, ComponentAssignment, ConsumableAssignment, LicenseSeat
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    ComponentFactory,
    ConsumableFactory,
    LicenseFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(superuser):
    client = Client()
    client.force_login(superuser)
    return client


def texts(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_accessory_page_checks_out_and_links_to_checkin(admin_client, superuser):
    item, holder = AccessoryFactory(name="Dock", qty=5), UserFactory()
    change = f"/admin/inventory/accessory/{item.pk}/change/"
    content = admin_client.get(change).content.decode()
    assert f'href="/admin/inventory/accessory/{item.pk}/checkout/"' in content
    assert f"/admin/inventory/accessorycheckout/?accessory__id__exact={item.pk}" in content
    resp = admin_client.post(f"/admin/inventory/accessory/{item.pk}/checkout/",
                             {"user": holder.pk, "quantity": 2, "note": "desk"})
    assert resp.status_code == 302 and resp["Location"] == change
    row = AccessoryCheckout.objects.get()
    assert row.assigned_user == holder and row.assigned_qty == 2
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.note, log.created_by) == ("checkout", "accessory", "desk", superuser)
    page = admin_client.get(change).content.decode()
    assert re.search(r"field-remaining.*?<div class=\"readonly\">3</div>", page, re.S)  # remaining units
    history = admin_client.get(f"/admin/inventory/accessory/{item.pk}/history/").content.decode()
    assert history.count('class="log-row"') == 1 and "desk" in history


def test_a_refused_checkout_is_an_error_beside_the_quantity(admin_client):
    item = AccessoryFactory(qty=1)
    resp = admin_client.post(f"/admin/inventory/accessory/{item.pk}/checkout/",
                             {"user": UserFactory().pk, "quantity": 3, "note": ""})
    assert resp.status_code == 200 and not texts(resp)
    assert resp.context["form"].errors["quantity"], resp.context["form"].errors
    assert not AccessoryCheckout.objects.exists() and not ActionLog.objects.exists()


def test_consumable_component_and_license_pages(admin_client):
    holder, asset = UserFactory(), AssetFactory()
    consumable, component, license = ConsumableFactory(qty=4), ComponentFactory(qty=4), LicenseFactory(seats=2)
    assert admin_client.post(f"/admin/inventory/consumable/{consumable.pk}/checkout/",
                             {"user": holder.pk, "quantity": 1, "note": ""}).status_code == 302
    assert ConsumableAssignment.objects.get().assigned_user == holder
    assert admin_client.post(f"/admin/inventory/component/{component.pk}/checkout/",
                             {"asset": asset.pk, "quantity": 2, "note": ""}).status_code == 302
    assert ComponentAssignment.objects.get().assigned_asset == asset
    license_page = admin_client.get(f"/admin/inventory/license/{license.pk}/change/").content.decode()
    assert "Check out a seat" in license_page
    assert f"/admin/inventory/licenseseat/?license__id__exact={license.pk}" in license_page
    assert admin_client.post(f"/admin/inventory/license/{license.pk}/checkout/",
                             {"user": holder.pk, "quantity": 1, "note": ""}).status_code == 302
    assert LicenseSeat.objects.filter(license=license, assigned_user=holder).count() == 1
    assert "Check in…" not in admin_client.get(f"/admin/inventory/consumable/{consumable.pk}/change/").content.decode()
    assert list(ActionLog.objects.order_by("id").values_list("item_type", flat=True)) == [
        "consumable", "component", "license"]
