"""List filters of accessories and consumables (API-CONTRACT.md §10): the ids of what the item points at, and
Snipe-IT's equality filters on its own text columns (ignoring letter case)."""

from __future__ import annotations

import django_filters as filters

from assetsvc.api.filters import IdFilter
from inventory.models import Accessory, Component, Consumable


def ci() -> filters.CharFilter:
    return filters.CharFilter(lookup_expr="iexact")


class StockFilterSet(filters.FilterSet):
    name = ci()
    model_number = ci()
    order_number = ci()
    notes = ci()
    company_id = IdFilter(field_name="company_id")
    category_id = IdFilter(field_name="category_id")
    manufacturer_id = IdFilter(field_name="manufacturer_id")
    supplier_id = IdFilter(field_name="supplier_id")
    location_id = IdFilter(field_name="location_id")


class AccessoryFilterSet(StockFilterSet):
    class Meta:
        model = Accessory
        fields: list[str] = []


class ConsumableFilterSet(StockFilterSet):
    item_no = ci()

    class Meta:
        model = Consumable
        fields: list[str] = []


class ComponentFilterSet(StockFilterSet):
    serial = ci()

    class Meta:
        model = Component
        fields: list[str] = []
