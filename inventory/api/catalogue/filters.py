"""List filters of the catalogue: the equality filters Snipe-IT's index actions accept (compared case-insensitively,
as on its MySQL collation), plus ``parent_id`` for locations and ``manufacturer_id`` for models."""

from __future__ import annotations

import django_filters as filters

from assetsvc.api.filters import IdFilter
from inventory.choices import StatusType
from inventory.models import AssetModel, Category, Depreciation, Location, Manufacturer, StatusLabel, Supplier


def ci() -> filters.CharFilter:
    """Equality on the attribute's own column, ignoring letter case."""
    return filters.CharFilter(lookup_expr="iexact")


class StatusLabelFilterSet(filters.FilterSet):
    name = ci()
    status_type = filters.CharFilter(method="filter_status_type")

    class Meta:
        model = StatusLabel
        fields: list[str] = []

    def filter_status_type(self, queryset, name, value):
        """Unknown values are ignored, as Snipe-IT does."""
        value = (value or "").strip().lower()
        if value in StatusType.values:
            return queryset.filter(type=value)
        return queryset


class CategoryFilterSet(filters.FilterSet):
    name = ci()
    category_type = ci()
    use_default_eula = filters.BooleanFilter()
    require_acceptance = filters.BooleanFilter()
    checkin_email = filters.BooleanFilter()
    created_by = IdFilter(field_name="created_by_id")

    class Meta:
        model = Category
        fields: list[str] = []


class ManufacturerFilterSet(filters.FilterSet):
    name = ci()
    url = ci()
    support_url = ci()
    warranty_lookup_url = ci()
    support_phone = ci()
    support_email = ci()

    class Meta:
        model = Manufacturer
        fields: list[str] = []


class SupplierFilterSet(filters.FilterSet):
    name = ci()
    address = ci()
    address2 = ci()
    city = ci()
    zip = ci()
    country = ci()
    fax = ci()
    email = ci()
    url = ci()
    notes = ci()

    class Meta:
        model = Supplier
        fields: list[str] = []


class LocationFilterSet(filters.FilterSet):
    name = ci()
    address = ci()
    address2 = ci()
    city = ci()
    zip = ci()
    country = ci()
    parent_id = IdFilter(field_name="parent_id")
    manager_id = IdFilter(field_name="manager_id")
    company_id = IdFilter(field_name="company_id")

    class Meta:
        model = Location
        fields: list[str] = []


class AssetModelFilterSet(filters.FilterSet):
    name = ci()
    model_number = ci()
    notes = ci()
    category_id = IdFilter(field_name="category_id")
    manufacturer_id = IdFilter(field_name="manufacturer_id")

    class Meta:
        model = AssetModel
        fields: list[str] = []


class DepreciationFilterSet(filters.FilterSet):
    name = ci()

    class Meta:
        model = Depreciation
        fields: list[str] = []
