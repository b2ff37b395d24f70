"""The shared service helpers (assetsvc/services.py): one lock-or-not-found, one unique-save, one diff."""

from __future__ import annotations

from decimal import Decimal

import pytest

from assetsvc.exceptions import NotFoundError
from assetsvc.services import lock_or_not_found, model_update
from inventory.models import Asset, Supplier
from inventory.services import catalogue as catalogue_services
from tests.factories import AssetFactory, SupplierFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_row_deleted_during_a_catalogue_update_is_not_found_not_a_500():
    """The caller read the row, a concurrent request deleted it, then the update locks it: "not found"."""
    supplier = SupplierFactory(name="Gone soon")
    Supplier.objects.filter(pk=supplier.pk).delete()
    with pytest.raises(NotFoundError) as raised:
        catalogue_services.catalogue_item_update(item=supplier, data={"name": "x"}, actor=UserFactory())
    assert raised.value.message == "Supplier not found"


@pytest.mark.parametrize("pk", [0, -1, 2**70, "abc", None])
def test_lock_or_not_found_answers_the_given_error_for_any_missing_id(pk):
    with pytest.raises(NotFoundError):
        lock_or_not_found(Asset, pk, lambda: NotFoundError("nope"))


def test_model_update_reports_changed_columns_only_with_log_values():
    asset = AssetFactory(purchase_cost=Decimal("2.50"), notes="old")
    supplier = SupplierFactory()
    changes = model_update(asset, {"purchase_cost": "2.5", "notes": "new", "supplier": supplier})
    assert changes == {"notes": {"old": "old", "new": "new"},
                       "supplier_id": {"old": None, "new": supplier.pk}}
    assert asset.notes == "new" and asset.supplier_id == supplier.pk
    assert Asset.objects.get(pk=asset.pk).notes == "old"  # nothing saved
