"""``/hardware`` on the shared API test mixins (``tests/api_mixins.py``): what every tracked kind must do, checked
for assets. The hand-written modules (``test_api_assets*.py``) keep the asset-only rules (by-tag routes, audits,
custom fields, validation texts)."""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest

from inventory.api.assets.views import AssetViewSet
from inventory.models import Asset
from tests.api_mixins import (
    CheckoutTests,
    CrudAPITests,
    PermissionTests,
    QueryBudgetTests,
    RestoreTests,
    SelectListTests,
)
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    SupplierFactory,
    UserFactory,
)
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db

_listed = count()


class TestHardwareAPI(CrudAPITests, RestoreTests, SelectListTests, CheckoutTests, PermissionTests, QueryBudgetTests):
    url = "/api/v1/hardware"
    viewset = AssetViewSet
    section = "assets"
    model = Asset
    factory = AssetFactory
    item_type = "asset"
    scoped = True
    soft_deletes = True
    retrieve_finds_deleted = True  # GET /hardware/{id} answers a deleted asset with deleted_at (API-CONTRACT §6)
    name_filter = False  # Snipe-IT's hardware list has no ?name= filter (only search)
    custom_verbs = ("checkout", "checkin", "audit")
    record_keys = {"asset_tag", "serial", "model", "status_label", "company", "location", "rtd_location",
                   "assigned_to", "deleted_at", "custom_fields", "user_can_checkout"}

    not_found_message = "Asset does not exist."
    created_message = "Asset created successfully. :)"
    updated_message = "Asset updated successfully."
    delete_message = "The asset was deleted successfully."
    restore_message = "Asset restored successfully."
    not_deleted_message = "The Asset was not deleted and therefore cannot be restored"

    checkout_targets = {
        "user": ("assigned_user", UserFactory),
        "asset": ("assigned_asset", AssetFactory),
        "location": ("assigned_location", LocationFactory),
    }
    checkout_message = "Asset checked out successfully."
    checkin_message = "Asset checked in successfully."
    unavailable_message = "That asset is not available for checkout!"
    already_checked_in_message = "That asset is already checked in."

    def selectlist_text(self, obj) -> str:
        return f"{obj.name} ({obj.asset_tag}) - {obj.model.name}"

    def create_payload(self) -> dict[str, Any]:
        return {"asset_tag": "NEW-0001", "name": "Created asset", "model_id": AssetModelFactory().pk,
                "status_id": StatusLabelFactory().pk, "serial": "SER-NEW-1"}

    def custom_requests(self, verb, owner, viewer_company):
        item = f"{self.url}/{{id}}"
        if verb == "checkout":
            return [(self.make(**owner), "post", f"{item}/checkout",
                     {"assigned_user": UserFactory(company=viewer_company).pk})]
        if verb == "checkin":
            holder = UserFactory(company=owner.get("company"))
            return [(checked_out_asset(holder, **owner), "post", f"{item}/checkin", {})]
        if verb == "audit":
            return [(self.make(**owner), "post", f"{item}/audit", {})]
        raise NotImplementedError(verb)

    def reference_requests(self, viewer_company):
        own = AssetFactory(company=viewer_company, asset_tag=f"OWN-{next(_listed)}")
        model, status = AssetModelFactory(), StatusLabelFactory()
        tag = f"REF-{next(_listed)}"
        return [
            ("post", f"{self.url}/{own.pk}/checkout", lambda pk: {"assigned_asset": pk}),
            ("post", self.url, lambda pk: {"asset_tag": tag, "model_id": model.pk, "status_id": status.pk,
                                           "assigned_asset": pk}),
        ]

    # --- checkout -------------------------------------------------------------------------------------------

    def make_checked_out(self, **kwargs):
        return checked_out_asset(UserFactory(), **kwargs)

    def holder_of(self, obj):
        obj.refresh_from_db()
        return obj.assigned_target

    def invalid_target_message(self, obj, target_type):
        return f"Checkout target for asset {obj.asset_tag} is invalid - {target_type} does not exist."

    # --- query budget ---------------------------------------------------------------------------------------

    def make_listed(self) -> None:
        """Each kind of row the list reads: out to a user (with company, supplier, creator), to a location, to
        an asset."""
        kind = next(_listed) % 3
        company = CompanyFactory()
        if kind == 0:
            place = LocationFactory(company=company)
            checked_out_asset(UserFactory(company=company, location=place), company=company,
                              supplier=SupplierFactory(), rtd_location=place, created_by=UserFactory())
        elif kind == 1:
            checked_out_asset(LocationFactory(), company=company, rtd_location=LocationFactory())
        else:
            checked_out_asset(AssetFactory(company=company), company=company)

    def listed_count(self) -> int:
        return Asset.objects.filter(deleted_at__isnull=True).count()
