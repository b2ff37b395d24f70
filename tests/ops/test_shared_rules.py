"""Rules the API's serializers enforced now live where every writer meets them (the services and ``Asset.clean``):
commands and the admin cannot store what the API refuses, and the API keeps its messages."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError

from accounts import services as account_services
from inventory.models import Asset
from inventory.services import assets as asset_services
from tests.factories import AssetFactory, AssetModelFactory, PermissionGroupFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("field", "value", "message"), [
    ("purchase_cost", "-5", "The purchase cost must be at least 0."),
    ("purchase_cost", "100000000000", "The purchase cost may not be greater than 99999999999.99."),
    ("warranty_months", 200_000, "The warranty months may not be greater than 1200."),
])
def test_asset_services_refuse_out_of_range_amounts(superuser, field, value, message):
    with pytest.raises(DjangoValidationError) as create:
        asset_services.asset_create(actor=superuser, data={"asset_tag": "R-1", "model": AssetModelFactory(),
                                                           "status": StatusLabelFactory(), field: value})
    assert message in create.value.message_dict[field]
    assert not Asset.objects.filter(asset_tag="R-1").exists()

    asset = AssetFactory(purchase_cost="1.00", warranty_months=1)
    with pytest.raises(DjangoValidationError) as update:
        asset_services.asset_update(asset=asset, actor=superuser, data={field: value})
    assert message in update.value.message_dict[field]
    asset.refresh_from_db()
    assert (str(asset.purchase_cost), asset.warranty_months) == ("1.00", 1)


def test_api_keeps_its_message_for_a_negative_cost(make_client, superuser):
    asset = AssetFactory()
    body = make_client(superuser).patch(f"/api/v1/hardware/{asset.pk}", {"purchase_cost": -5}, format="json").json()
    assert body["status"] == "error"
    assert body["messages"] == {"purchase_cost": ["The purchase cost must be at least 0."]}


@pytest.mark.parametrize("permissions", [{"junk.key": 1}, {"assets.view": 7}, ["assets.view"]])
def test_account_services_refuse_unknown_permission_maps(superuser, permissions):
    with pytest.raises(DjangoValidationError):
        account_services.user_create(actor=superuser, data={"username": "x", "password": "long enough secret",
                                                           "permissions": permissions})
    user = UserFactory(permissions={})
    with pytest.raises(DjangoValidationError):
        account_services.user_update(actor=superuser, user=user, data={"permissions": permissions})
    group = PermissionGroupFactory(permissions={})
    with pytest.raises(DjangoValidationError):
        account_services.group_update(actor=superuser, group=group, data={"permissions": permissions})
    with pytest.raises(DjangoValidationError):
        account_services.group_create(actor=superuser, data={"name": "G", "permissions": permissions})
    user.refresh_from_db()
    group.refresh_from_db()
    assert user.permissions == {} and group.permissions == {}


def test_account_services_normalise_snipe_it_spellings(superuser):
    group = account_services.group_create(actor=superuser, data={"name": "G", "permissions": {"assets.view": "1",
                                                                                              "users.view": True}})
    assert group.permissions == {"assets.view": 1, "users.view": 1}
