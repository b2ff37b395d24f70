from tests.factories.accounts import PermissionGroupFactory, UserFactory
from tests.factories.companies import CompanyFactory
from tests.factories.inventory import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    LocationFactory,
    ManufacturerFactory,
    StatusLabelFactory,
    SupplierFactory,
)

__all__ = [
    "AssetFactory",
    "AssetModelFactory",
    "CategoryFactory",
    "CompanyFactory",
    "LocationFactory",
    "ManufacturerFactory",
    "PermissionGroupFactory",
    "StatusLabelFactory",
    "SupplierFactory",
    "UserFactory",
]
