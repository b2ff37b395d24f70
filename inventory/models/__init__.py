"""Inventory's models, one module per resource (issue 26). Every model and helper is re-exported here, so
``from inventory.models import Asset`` keeps working and Django's model discovery finds them all; the modules are
imported in the order the one ``models.py`` defined them."""
# ruff: noqa: I001  (the import order is the order the models are defined in, as it was in one models.py)

from inventory.models.base import MAX_PURCHASE_COST, MAX_WARRANTY_MONTHS, USER_MODEL, AssignmentRow, TimestampedModel
from inventory.models.catalogue import (
    AssetModel,
    Category,
    Depreciation,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.models.assets import AddMonths, Asset, AssetQuerySet, asset_display_name, target_type_of
from inventory.models.stock import (
    Accessory,
    AccessoryCheckout,
    AccessoryCheckoutQuerySet,
    Component,
    ComponentAssignment,
    ComponentAssignmentQuerySet,
    Consumable,
    ConsumableAssignment,
    ConsumableAssignmentQuerySet,
    StockItem,
    StockQuerySet,
)
from inventory.models.licenses import License, LicenseSeat, LicenseSeatQuerySet
from inventory.models.custom_fields import (
    COLUMN_BASE_LENGTH,
    COLUMN_PREFIX,
    AssetFieldValue,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
)
from inventory.models.transfer import ImportFile, ImportJob
from inventory.models.requests import CheckoutRequest, CheckoutRequestQuerySet
from inventory.models.maintenances import Maintenance, MaintenanceQuerySet, MaintenanceType, in_maintenance
from inventory.models.kits import Kit, KitAccessory, KitConsumable, KitLicense, KitLine, KitModel
from inventory.models.acceptance import CheckoutAcceptance, CheckoutAcceptanceQuerySet, asset_acceptance_exists
from inventory.models.snipeit import SnipeitImport, SnipeitRecord

__all__ = [
    "CheckoutRequest", "CheckoutRequestQuerySet", "ImportFile",
    "MAX_PURCHASE_COST", "MAX_WARRANTY_MONTHS", "USER_MODEL", "AssignmentRow", "TimestampedModel",
    "AssetModel", "Category", "Depreciation", "Location", "Manufacturer", "StatusLabel", "Supplier",
    "AddMonths", "Asset", "AssetQuerySet", "asset_display_name", "target_type_of",
    "Accessory", "AccessoryCheckout", "AccessoryCheckoutQuerySet", "Component", "ComponentAssignment",
    "ComponentAssignmentQuerySet", "Consumable", "ConsumableAssignment", "ConsumableAssignmentQuerySet", "StockItem",
    "StockQuerySet",
    "License", "LicenseSeat", "LicenseSeatQuerySet",
    "COLUMN_BASE_LENGTH", "COLUMN_PREFIX", "AssetFieldValue", "CustomField", "CustomFieldset", "CustomFieldsetField",
    "ImportJob",
    "Maintenance", "MaintenanceQuerySet", "MaintenanceType", "in_maintenance",
    "Kit", "KitAccessory", "KitConsumable", "KitLicense", "KitLine", "KitModel",
    "CheckoutAcceptance", "CheckoutAcceptanceQuerySet", "asset_acceptance_exists",
    "SnipeitImport", "SnipeitRecord",
]
