"""``/accessories`` on the shared API test mixins (``tests/api_mixins.py``): CRUD, restore, select list,
permissions, checkout by quantity to each target type, checkin by checkout row, query budget; company separation
through ``SCOPED_RESOURCES``."""

from __future__ import annotations

from typing import Any

import pytest

from inventory.api.stock.views import AccessoryViewSet
from inventory.models import Accessory, AccessoryCheckout
from inventory.services.stock import CHECKOUT_ROW_NOT_FOUND
from tests.api_mixins import (
    CrudAPITests,
    PermissionTests,
    QuantityCheckoutTests,
    QueryBudgetTests,
    RestoreTests,
    SelectListTests,
)
from tests.factories import AccessoryFactory, AssetFactory, CategoryFactory, LocationFactory, UserFactory
from tests.factories.inventory import accessory_out

pytestmark = pytest.mark.django_db


class TestAccessoriesAPI(CrudAPITests, RestoreTests, SelectListTests, PermissionTests, QuantityCheckoutTests,
                         QueryBudgetTests):
    url = "/api/v1/accessories"
    viewset = AccessoryViewSet
    section = "accessories"
    model = Accessory
    factory = AccessoryFactory
    item_type = "accessory"
    scoped = True
    soft_deletes = True
    custom_verbs = ("checkout", "checkin")
    record_keys = {"qty", "remaining", "remaining_qty", "checkouts_count", "category", "company", "manufacturer",
                   "supplier", "location", "purchase_cost", "purchase_date", "user_can_checkout", "deleted_at"}
    selectlist_key = "accessories.create"

    not_found_message = "Accessory not found"
    created_message = "The accessory was successfully created."
    updated_message = "The accessory was updated successfully."
    delete_message = "The accessory was deleted successfully."
    restore_message = "The accessory was restored successfully."
    not_deleted_message = "The accessory was not deleted and therefore cannot be restored"

    checkout_targets = {
        "user": ("assigned_user", UserFactory),
        "asset": ("assigned_asset", AssetFactory),
        "location": ("assigned_location", LocationFactory),
    }
    checkout_message = "Accessory checked out successfully."
    checkin_message = "Accessory checked in successfully."
    unavailable_message = ("There are 0 total available accessories, and you are trying to check out 1. Please "
                           "adjust the checkout quantity or the total stock of this accessory and try again.")
    unavailable_status = 422  # a field error on checkout_qty (API-CONTRACT.md §10)
    already_checked_in_message = CHECKOUT_ROW_NOT_FOUND
    already_checked_in_status = 404  # the row is gone once checked in

    def create_payload(self) -> dict[str, Any]:
        return {"name": "USB-C dock", "qty": 5, "category_id": CategoryFactory(category_type="accessory").pk}

    def make_checked_out(self, **kwargs) -> Accessory:
        accessory = self.make(qty=1, **kwargs)
        accessory_out(UserFactory(company=kwargs.get("company")), accessory)
        return accessory

    def holder_of(self, obj) -> Any:
        row = AccessoryCheckout.objects.filter(accessory=obj).first()
        return row.assigned_target if row else None

    def checkin_path(self, obj) -> str:
        row = AccessoryCheckout.objects.filter(accessory=obj).first()
        return f"{self.url}/{row.pk if row else 999_999}/checkin"

    def custom_requests(self, verb, owner, viewer_company):
        item = f"{self.url}/{{id}}"
        if verb == "checkout":
            return [(self.make(**owner), "post", f"{item}/checkout",
                     {"assigned_user": UserFactory(company=viewer_company).pk})]
        if verb == "checkin":
            row = accessory_out(UserFactory(company=owner.get("company")), self.make(**owner))
            return [(row, "post", f"{self.url}/{{id}}/checkin", {})]
        raise NotImplementedError(verb)

    def make_listed(self) -> None:
        accessory = self.make()
        accessory_out(UserFactory(), accessory, qty=2)
