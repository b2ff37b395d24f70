from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from inventory.choices import StatusType
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    AssetModel,
    Category,
    Component,
    ComponentAssignment,
    Consumable,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
    Depreciation,
    Kit,
    License,
    LicenseSeat,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.services.custom_fields import column_name_for
from inventory.tags import tag_key


class StatusLabelFactory(DjangoModelFactory[StatusLabel]):
    class Meta:
        model = StatusLabel

    name = factory.Sequence(lambda n: f"Status {n}")
    type = StatusType.DEPLOYABLE


class CategoryFactory(DjangoModelFactory[Category]):
    class Meta:
        model = Category

    name = factory.Sequence(lambda n: f"Category {n}")


class ManufacturerFactory(DjangoModelFactory[Manufacturer]):
    class Meta:
        model = Manufacturer

    name = factory.Sequence(lambda n: f"Manufacturer {n}")


class SupplierFactory(DjangoModelFactory[Supplier]):
    class Meta:
        model = Supplier

    name = factory.Sequence(lambda n: f"Supplier {n}")


class LocationFactory(DjangoModelFactory[Location]):
    class Meta:
        model = Location

    name = factory.Sequence(lambda n: f"Location {n}")


class DepreciationFactory(DjangoModelFactory[Depreciation]):
    class Meta:
        model = Depreciation

    name = factory.Sequence(lambda n: f"Depreciation {n}")
    months = 36


class AssetModelFactory(DjangoModelFactory[AssetModel]):
    class Meta:
        model = AssetModel

    name = factory.Sequence(lambda n: f"Model {n}")
    model_number = factory.Sequence(lambda n: f"MN-{n}")
    category = factory.SubFactory(CategoryFactory)
    manufacturer = factory.SubFactory(ManufacturerFactory)


class AssetFactory(DjangoModelFactory[Asset]):
    class Meta:
        model = Asset

    asset_tag = factory.Sequence(lambda n: f"TAG-{n:06d}")
    asset_tag_key = factory.LazyAttribute(lambda asset: tag_key(asset.asset_tag))  # as the services set it
    name = factory.Sequence(lambda n: f"Asset {n}")
    serial = factory.Sequence(lambda n: f"SN{n:08d}")
    model = factory.SubFactory(AssetModelFactory)
    status = factory.SubFactory(StatusLabelFactory)
    company = None


def checked_out_asset(target, **kwargs) -> Asset:
    """An asset already checked out to ``target`` (user, asset or location), written directly: for test setup
    only; the API and admin go through ``inventory.services.assets``."""
    from accounts.models import User

    if isinstance(target, User):
        kwargs.update(assigned_user=target, location=target.location)
    elif isinstance(target, Asset):
        kwargs.update(assigned_asset=target, location=target.location)
    else:
        kwargs.update(assigned_location=target, location=target)
    return AssetFactory(**kwargs)


class AccessoryFactory(DjangoModelFactory[Accessory]):
    class Meta:
        model = Accessory

    name = factory.Sequence(lambda n: f"Accessory {n}")
    category = factory.SubFactory(CategoryFactory, category_type="accessory")
    qty = 5
    company = None


class ConsumableFactory(DjangoModelFactory[Consumable]):
    class Meta:
        model = Consumable

    name = factory.Sequence(lambda n: f"Consumable {n}")
    category = factory.SubFactory(CategoryFactory, category_type="consumable")
    qty = 10
    company = None


def accessory_out(target, accessory: Accessory | None = None, qty: int = 1, **kwargs) -> AccessoryCheckout:
    """A checkout row of ``qty`` units to ``target`` (user, asset or location), written directly: test setup only."""
    from accounts.models import User

    accessory = accessory or AccessoryFactory(**kwargs)
    key = ("assigned_user" if isinstance(target, User) else "assigned_asset" if isinstance(target, Asset)
           else "assigned_location")
    return AccessoryCheckout.objects.create(accessory=accessory, assigned_qty=qty, **{key: target})


class LicenseFactory(DjangoModelFactory[License]):
    """A license with its ``seats`` free seat rows (as ``license_create`` makes them)."""

    class Meta:
        model = License
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"License {n}")
    category = factory.SubFactory(CategoryFactory, category_type="license")
    seats = 2
    company = None

    @factory.post_generation
    def seat_rows(obj, create, extracted, **kwargs):
        if create:
            LicenseSeat.objects.bulk_create([LicenseSeat(license=obj) for _ in range(obj.seats)])


def seat_out(target, license: License | None = None, **kwargs) -> LicenseSeat:
    """A free seat of ``license`` (a new one by default) assigned to ``target`` (user or asset), written directly:
    test setup only."""
    from accounts.models import User

    license = license or LicenseFactory(**kwargs)
    seat = LicenseSeat.objects.filter(license=license).free().order_by("pk").first()
    setattr(seat, "assigned_user" if isinstance(target, User) else "assigned_asset", target)
    seat.save()
    return seat


class ComponentFactory(DjangoModelFactory[Component]):
    class Meta:
        model = Component

    name = factory.Sequence(lambda n: f"Component {n}")
    category = factory.SubFactory(CategoryFactory, category_type="component")
    qty = 5
    company = None


def component_in(asset: Asset, component: Component | None = None, qty: int = 1, **kwargs) -> ComponentAssignment:
    """``qty`` units of a component installed in ``asset``, written directly: test setup only."""
    component = component or ComponentFactory(**kwargs)
    return ComponentAssignment.objects.create(component=component, assigned_asset=asset, assigned_qty=qty)


class CustomFieldFactory(DjangoModelFactory[CustomField]):
    """A custom field; its column name follows the service's rule (``_snipeit_<slug>_<id>``)."""

    class Meta:
        model = CustomField
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Field {n}")
    element = "text"

    @factory.post_generation
    def column(self, create, extracted, **kwargs):
        if create and not self.db_column_name:
            self.db_column_name = column_name_for(self.name, self.pk)
            self.save(update_fields=["db_column_name"])


class CustomFieldsetFactory(DjangoModelFactory[CustomFieldset]):
    class Meta:
        model = CustomFieldset

    name = factory.Sequence(lambda n: f"Fieldset {n}")


class CustomFieldsetFieldFactory(DjangoModelFactory[CustomFieldsetField]):
    class Meta:
        model = CustomFieldsetField

    fieldset = factory.SubFactory(CustomFieldsetFactory)
    field = factory.SubFactory(CustomFieldFactory)
    order = factory.Sequence(lambda n: n + 1)


class KitFactory(DjangoModelFactory[Kit]):
    class Meta:
        model = Kit

    name = factory.Sequence(lambda n: f"Kit {n}")
