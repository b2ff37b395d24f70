"""``0026_checkout_request_models`` on a populated database (issue 32): the requests stored before it stay asset
requests (asset, requester, dates kept; an empty note; no company: they follow their asset), and the new rules hold
for them at once."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from inventory.models import CheckoutRequest
from tests.migrating import migrate_to

BEFORE = [("inventory", "0025_checkout_acceptances")]


@pytest.mark.django_db(transaction=True)
def test_stored_requests_stay_asset_requests():
    old = migrate_to(BEFORE)
    Company = old.get_model("companies", "Company")
    Category = old.get_model("inventory", "Category")
    AssetModel = old.get_model("inventory", "AssetModel")
    StatusLabel = old.get_model("inventory", "StatusLabel")
    Asset = old.get_model("inventory", "Asset")
    User = old.get_model("accounts", "User")
    OldRequest = old.get_model("inventory", "CheckoutRequest")

    acme = Company.objects.create(name="Acme")
    model = AssetModel.objects.create(name="Laptop", category=Category.objects.create(name="L", category_type="asset"))
    label = StatusLabel.objects.create(name="Ready", type="deployable")
    asset = Asset.objects.create(asset_tag="ACME-1", model=model, status=label, company=acme, requestable=True)
    person = User.objects.create(username="emma", company=acme)
    open_one = OldRequest.objects.create(asset=asset, user=person)
    closed = OldRequest.objects.create(asset=asset, user=person, canceled_at="2026-01-01T00:00:00Z")

    migrate_to(MigrationExecutor(connection).loader.graph.leaf_nodes())

    rows = {row.pk: row for row in CheckoutRequest.objects.all()}
    assert set(rows) == {open_one.pk, closed.pk}
    assert rows[open_one.pk].asset_id == asset.pk and rows[open_one.pk].user_id == person.pk
    assert rows[open_one.pk].is_open and not rows[closed.pk].is_open
    assert all(row.model_id is None and row.note == "" and row.company_id is None for row in rows.values())
    assert CheckoutRequest.objects.filter(asset__company_id=acme.pk).count() == 2

    with pytest.raises(IntegrityError), transaction.atomic():  # still one open request per user and asset
        CheckoutRequest.objects.create(asset_id=asset.pk, user_id=person.pk)
    with pytest.raises(IntegrityError), transaction.atomic():  # an asset or a model, never both
        CheckoutRequest.objects.create(asset_id=asset.pk, model_id=model.pk, user_id=person.pk,
                                       canceled_at="2026-01-01T00:00:00Z")
    with pytest.raises(IntegrityError), transaction.atomic():  # nor neither
        CheckoutRequest.objects.create(user_id=person.pk)
    CheckoutRequest.objects.create(model_id=model.pk, user_id=person.pk)
    with pytest.raises(IntegrityError), transaction.atomic():  # one open request per user and model
        CheckoutRequest.objects.create(model_id=model.pk, user_id=person.pk)
