"""``/components`` on the shared API test mixins (``tests/api_mixins.py``): CRUD, restore, select list,
permissions, checkout by quantity into an asset, checkin by installation row, query budget; company separation
through ``SCOPED_RESOURCES``."""

from __future__ import annotations

from typing import Any

import pytest

from inventory.api.stock.views import ComponentViewSet
from inventory.models import Component, ComponentAssignment
from inventory.services.stock import COMPONENT_ROW_NOT_FOUND
from tests.api_mixins import (
    CrudAPITests,
    PermissionTests,
    QuantityCheckoutTests,
    QueryBudgetTests,
    RestoreTests,
    SelectListTests,
)
from tests.factories import AssetFactory, CategoryFactory, ComponentFactory
from tests.factories.inventory import component_in

pytestmark = pytest.mark.django_db


class TestComponentsAPI(CrudAPITests, RestoreTests, SelectListTests, PermissionTests, QuantityCheckoutTests,
                        QueryBudgetTests):
    url = "/api/v1/components"
    viewset = ComponentViewSet
    section = "components"
    model = Component
    factory = ComponentFactory
    item_type = "component"
    scoped = True
    soft_deletes = True
    custom_verbs = ("checkout", "checkin")
    record_keys = {"qty", "remaining", "serial", "category", "company", "manufacturer", "supplier", "location",
                   "purchase_cost", "purchase_date", "user_can_checkout", "deleted_at"}
    selectlist_key = "components.create"
    quantity_field = "assigned_qty"

    not_found_message = "Component not found"
    created_message = "Component created successfully."
    updated_message = "Component updated successfully."
    delete_message = "The component was deleted successfully."
    restore_message = "Component restored successfully."
    not_deleted_message = "The component was not deleted and therefore cannot be restored"

    checkout_targets = {"asset": ("assigned_to", AssetFactory)}
    checkout_message = "Component checked out successfully."
    checkin_message = "Component checked in successfully."
    unavailable_message = "Not enough components remaining: 0 remaining, 1 requested"
    unavailable_status = 422  # a field error on assigned_qty (API-CONTRACT.md §10)
    already_checked_in_message = COMPONENT_ROW_NOT_FOUND
    already_checked_in_status = 404  # the row is gone once all its units are out

    def create_payload(self) -> dict[str, Any]:
        return {"name": "16 GB DDR5", "qty": 8, "category_id": CategoryFactory(category_type="component").pk}

    def make_checked_out(self, **kwargs) -> Component:
        component = self.make(qty=1, **kwargs)
        component_in(AssetFactory(company=kwargs.get("company")), component)
        return component

    def holder_of(self, obj) -> Any:
        row = ComponentAssignment.objects.filter(component=obj).first()
        return row.assigned_asset if row else None

    def checkin_path(self, obj) -> str:
        row = ComponentAssignment.objects.filter(component=obj).first()
        return f"{self.url}/{row.pk if row else 999_999}/checkin"

    def custom_requests(self, verb, owner, viewer_company):
        if verb == "checkout":
            return [(self.make(**owner), "post", f"{self.url}/{{id}}/checkout",
                     {"assigned_to": AssetFactory(company=viewer_company).pk})]
        if verb == "checkin":
            row = component_in(AssetFactory(company=owner.get("company")), self.make(**owner))
            return [(row, "post", f"{self.url}/{{id}}/checkin", {})]
        raise NotImplementedError(verb)

    def make_listed(self) -> None:
        component_in(AssetFactory(), self.make(), qty=2)
