"""``0018_custom_value_unique_per_company`` on a populated database (issue 25, item 5): the unique values stored
before it get their asset's company as their scope, so the per-company rule holds for them from the first request."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from inventory.custom_values.crypto import unique_digest
from inventory.models import AssetFieldValue
from tests.conftest import TokenClient
from tests.factories import StatusLabelFactory, UserFactory
from tests.migrating import migrate_to as _migrate

BEFORE = [("inventory", "0015_custom_value_lookup_ci")]


@pytest.mark.django_db(transaction=True)
def test_stored_unique_values_get_their_assets_company():
    old = _migrate(BEFORE)
    Company = old.get_model("companies", "Company")
    Category = old.get_model("inventory", "Category")
    AssetModel = old.get_model("inventory", "AssetModel")
    StatusLabel = old.get_model("inventory", "StatusLabel")
    Asset = old.get_model("inventory", "Asset")
    CustomField = old.get_model("inventory", "CustomField")
    CustomFieldset = old.get_model("inventory", "CustomFieldset")
    CustomFieldsetField = old.get_model("inventory", "CustomFieldsetField")
    OldValue = old.get_model("inventory", "AssetFieldValue")

    acme, other = Company.objects.create(name="Acme"), Company.objects.create(name="Other")
    field = CustomField.objects.create(name="IMEI", db_column_name="_snipeit_imei_1", is_unique=True)
    fieldset = CustomFieldset.objects.create(name="Phones")
    CustomFieldsetField.objects.create(fieldset=fieldset, field=field, order=1)
    model = AssetModel.objects.create(name="Phone", category=Category.objects.create(name="P", category_type="asset"),
                                      fieldset=fieldset)
    label = StatusLabel.objects.create(name="Ready", type="deployable")
    in_acme = Asset.objects.create(asset_tag="ACME-1", model=model, status=label, company=acme)
    no_company = Asset.objects.create(asset_tag="NONE-1", model=model, status=label)
    for asset, value in ((in_acme, "111"), (no_company, "222")):
        OldValue.objects.create(asset=asset, field=field, value=value, unique_key=unique_digest(value, encrypted=False))

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    scopes = dict(AssetFieldValue.objects.values_list("asset__asset_tag", "unique_scope"))
    assert scopes == {"ACME-1": acme.pk, "NONE-1": 0}

    # With separation on, another company may hold Acme's value; Acme may not hold it twice.
    from assetsvc.models import SiteSettings

    site = SiteSettings.load()
    site.full_multiple_companies_support = True
    site.save()
    status = StatusLabelFactory().pk
    theirs = TokenClient(UserFactory(company_id=other.pk, permissions={"admin": 1}))
    body = theirs.post("/api/v1/hardware", {"asset_tag": "OTHER-1", "model_id": model.pk, "status_id": status,
                                            "_snipeit_imei_1": "111"}, format="json").json()
    assert body["status"] == "success", body
    mine = TokenClient(UserFactory(company_id=acme.pk, permissions={"admin": 1}))
    body = mine.post("/api/v1/hardware", {"asset_tag": "ACME-2", "model_id": model.pk, "status_id": status,
                                          "_snipeit_imei_1": "111"}, format="json").json()
    assert body["messages"] == {"_snipeit_imei_1": ["The IMEI must be unique."]}
