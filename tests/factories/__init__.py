from tests.factories.accounts import DepartmentFactory, PermissionGroupFactory, UserFactory
from tests.factories.companies import CompanyFactory
from tests.factories.inventory import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    ComponentFactory,
    ConsumableFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
    LicenseFactory,
    LocationFactory,
    ManufacturerFactory,
    StatusLabelFactory,
    SupplierFactory,
)

__all__ = [
    "AccessoryFactory",
    "AssetFactory",
    "AssetModelFactory",
    "CategoryFactory",
    "CompanyFactory",
    "ComponentFactory",
    "ConsumableFactory",
    "CustomFieldFactory",
    "CustomFieldsetFactory",
    "CustomFieldsetFieldFactory",
    "DepartmentFactory",
    "LicenseFactory",
    "LocationFactory",
    "ManufacturerFactory",
    "PermissionGroupFactory",
    "StatusLabelFactory",
    "SupplierFactory",
    "UserFactory",
]
