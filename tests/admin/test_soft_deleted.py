"""Issue 28 item 8: soft-deleted records are hidden from every admin change list by default; the "deleted" filter
(No, the default / Yes / All) shows them, and a deleted record opened by its URL shows read-only, with a button that
restores it where the admin restores. Through Django's test client, as a super user and as a company administrator."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from assetsvc.admin_services import DeletedListFilter, SoftDeleteAdminMixin
from assetsvc.admin_site import is_soft_deleting
from inventory.models import Asset, Maintenance
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ComponentFactory,
    ConsumableFactory,
    LicenseFactory,
    ManufacturerFactory,
    UserFactory,
)
from tests.factories.maintenances import MaintenanceFactory

pytestmark = pytest.mark.django_db

#: admin URL name of the change list → the factory of its rows.
KINDS = {
    "inventory_asset": AssetFactory,
    "inventory_accessory": AccessoryFactory,
    "inventory_consumable": ConsumableFactory,
    "inventory_component": ComponentFactory,
    "inventory_license": LicenseFactory,
    "inventory_maintenance": MaintenanceFactory,
    "inventory_manufacturer": ManufacturerFactory,
    "inventory_assetmodel": AssetModelFactory,
    "accounts_user": UserFactory,
}



def listed(client: Client, url: str, **params: str) -> set[int]:
    response = client.get(url, params)
    assert response.status_code == 200
    return {row.pk for row in response.context["cl"].result_list}


def test_every_admin_of_a_soft_deleting_model_hides_deleted_rows():
    """The audit: an admin registered later for a model with ``deleted_at`` must take the mixin too."""
    soft = {model: model_admin for model, model_admin in admin.site._registry.items() if is_soft_deleting(model)}
    assert {f"{model._meta.app_label}_{model._meta.model_name}" for model in soft} == set(KINDS)
    assert [model for model, model_admin in soft.items() if not isinstance(model_admin, SoftDeleteAdminMixin)] == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_deleted_rows_are_listed_only_when_the_filter_asks(super_client, superuser, kind):
    factory = KINDS[kind]
    alive, deleted = factory(), factory(deleted_at=timezone.now())
    url = reverse(f"admin:{kind}_changelist")
    everyone = {superuser.pk} if kind == "accounts_user" else set()  # the signed-in super user is a user too

    assert listed(super_client, url) == {alive.pk} | everyone
    assert listed(super_client, url, deleted="no") == {alive.pk} | everyone
    assert listed(super_client, url, deleted="yes") == {deleted.pk}
    assert listed(super_client, url, deleted="all") == {alive.pk, deleted.pk} | everyone


def test_the_filter_offers_no_yes_and_all_with_no_selected(super_client):
    response = super_client.get(reverse("admin:inventory_asset_changelist"))
    spec = next(spec for spec in response.context["cl"].filter_specs if isinstance(spec, DeletedListFilter))
    choices = list(spec.choices(response.context["cl"]))
    assert [(choice["display"], choice["selected"]) for choice in choices] == [("No", True), ("Yes", False),
                                                                               ("All", False)]
    assert "deleted=yes" in choices[1]["query_string"] and "deleted" not in choices[0]["query_string"]
    assert "By deleted" in response.content.decode()


def test_a_deleted_asset_opened_by_url_is_read_only_and_restored_by_its_button(super_client):
    asset = AssetFactory(asset_tag="GONE-1", deleted_at=timezone.now())
    page = super_client.get(reverse("admin:inventory_asset_change", args=[asset.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "This asset was deleted on" in text and 'id="restore-deleted"' in text
    assert 'name="_save"' not in text  # read-only: no save button
    refused = super_client.post(reverse("admin:inventory_asset_change", args=[asset.pk]), {"name": "changed"})
    assert refused.status_code == 403

    # what the button posts: the list's restore action on this one row
    response = super_client.post(f"{reverse('admin:inventory_asset_changelist')}?deleted=yes",
                                 {"action": "restore_selected", "index": "0", "_selected_action": [asset.pk]},
                                 follow=True)
    assert response.status_code == 200
    assert "1 assets restored." in [str(message) for message in get_messages(response.wsgi_request)]
    asset.refresh_from_db()
    assert asset.deleted_at is None and asset.name != "changed"
    assert 'name="_save"' in super_client.get(reverse("admin:inventory_asset_change", args=[asset.pk])).content.decode()


def test_a_deleted_maintenance_shows_without_a_restore_button(super_client):
    maintenance = MaintenanceFactory(deleted_at=timezone.now())
    page = super_client.get(reverse("admin:inventory_maintenance_change", args=[maintenance.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "This asset maintenance was deleted on" in text and "restore-deleted" not in text
    assert Maintenance.objects.get(pk=maintenance.pk).deleted_at is not None


def test_a_deleted_user_opened_by_url_shows_read_only(super_client):
    gone = UserFactory(username="gone", deleted_at=timezone.now())
    text = super_client.get(reverse("admin:accounts_user_change", args=[gone.pk])).content.decode()
    assert "This user was deleted on" in text and 'name="_save"' not in text
    assert User.objects.get(pk=gone.pk).deleted_at is not None


def test_a_company_administrator_sees_their_deleted_rows_only(company, other_company, fmcs_on):
    cadmin = UserFactory(username="cadmin", company=company, permissions={"admin": 1})
    client = Client()
    client.force_login(cadmin)
    mine_alive = AssetFactory(company=company)
    mine_deleted = AssetFactory(company=company, deleted_at=timezone.now())
    theirs_deleted = AssetFactory(company=other_company, deleted_at=timezone.now())
    url = reverse("admin:inventory_asset_changelist")
    assert listed(client, url) == {mine_alive.pk}
    assert listed(client, url, deleted="yes") == {mine_deleted.pk}
    assert listed(client, url, deleted="all") == {mine_alive.pk, mine_deleted.pk}
    assert client.get(reverse("admin:inventory_asset_change", args=[theirs_deleted.pk])).status_code == 302
    assert Asset.objects.filter(pk=theirs_deleted.pk, deleted_at__isnull=False).exists()
