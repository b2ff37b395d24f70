"""Maintenances (a module of its own, beside ``tests/factories/inventory.py``)."""

from __future__ import annotations

import datetime

import factory
from factory.django import DjangoModelFactory

from inventory.models import Maintenance, MaintenanceType
from tests.factories.inventory import AssetFactory, SupplierFactory


class MaintenanceFactory(DjangoModelFactory[Maintenance]):
    """An open maintenance (no completion date) of a fresh asset, started ten days ago. ``company=`` is the
    asset's company (a maintenance has none of its own)."""

    class Meta:
        model = Maintenance
        exclude = ("company",)

    company = None
    asset = factory.SubFactory(AssetFactory, company=factory.SelfAttribute("..company"))
    supplier = factory.SubFactory(SupplierFactory)
    asset_maintenance_type = MaintenanceType.REPAIR
    title = factory.Sequence(lambda n: f"Maintenance {n}")
    start_date = factory.LazyFunction(lambda: datetime.date.today() - datetime.timedelta(days=10))
    completion_date = None
    asset_maintenance_time = factory.LazyAttribute(
        lambda m: (m.completion_date - m.start_date).days if m.completion_date else None)
