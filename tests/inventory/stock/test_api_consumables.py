"""``/consumables`` on the shared API test mixins (``tests/api_mixins.py``): CRUD, restore, select list,
permissions, checkout by quantity to a user (never checked in), query budget; company separation through
``SCOPED_RESOURCES``."""

from __future__ import annotations

from typing import Any

import pytest

from inventory.api.stock.views import ConsumableViewSet
from inventory.models import Consumable, ConsumableAssignment
from tests.api_mixins import (
    CrudAPITests,
    PermissionTests,
    QuantityCheckoutTests,
    QueryBudgetTests,
    RestoreTests,
    SelectListTests,
)
from tests.factories import CategoryFactory, ConsumableFactory, UserFactory

pytestmark = pytest.mark.django_db


class TestConsumablesAPI(CrudAPITests, RestoreTests, SelectListTests, PermissionTests, QuantityCheckoutTests,
                         QueryBudgetTests):
    url = "/api/v1/consumables"
    viewset = ConsumableViewSet
    section = "consumables"
    model = Consumable
    factory = ConsumableFactory
    item_type = "consumable"
    scoped = True
    soft_deletes = True
    returnable = False
    custom_verbs = ("checkout",)
    record_keys = {"qty", "remaining", "category", "company", "manufacturer", "supplier", "location", "item_no",
                   "purchase_cost", "purchase_date", "user_can_checkout", "deleted_at"}
    selectlist_key = "consumables.create"

    not_found_message = "Consumable not found"
    created_message = "Consumable created successfully."
    updated_message = "Consumable updated successfully."
    delete_message = "The consumable was deleted successfully."
    restore_message = "Consumable restored successfully."
    not_deleted_message = "The consumable was not deleted and therefore cannot be restored"

    checkout_targets = {"user": ("assigned_to", UserFactory)}
    checkout_message = "Consumable checked out successfully."
    unavailable_message = "There are not enough consumables for this checkout. Please check the quantity left."
    unavailable_status = 422
    checkin_message = already_checked_in_message = ""

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Toner black", "qty": 10, "category_id": CategoryFactory(category_type="consumable").pk}

    def make_checked_out(self, **kwargs) -> Consumable:
        consumable = self.make(qty=1, **kwargs)
        ConsumableAssignment.objects.create(consumable=consumable, assigned_user=UserFactory(), assigned_qty=1)
        return consumable

    def holder_of(self, obj) -> Any:
        row = ConsumableAssignment.objects.filter(consumable=obj).first()
        return row.assigned_user if row else None

    def custom_requests(self, verb, owner, viewer_company):
        if verb == "checkout":
            return [(self.make(**owner), "post", f"{self.url}/{{id}}/checkout",
                     {"assigned_to": UserFactory(company=viewer_company).pk})]
        raise NotImplementedError(verb)

    def make_listed(self) -> None:
        consumable = self.make()
        ConsumableAssignment.objects.create(consumable=consumable, assigned_user=UserFactory(), assigned_qty=2)
