"""List filters of maintenances (Snipe-IT's ``AssetMaintenancesController@index``): the asset, the supplier, who
recorded it and the type, plus the asset's company (``company_id``) and ``completed`` (``true``/``false``)."""

from __future__ import annotations

import django_filters as filters

from assetsvc.api.filters import IdFilter
from assetsvc.api.inputs import parse_flag
from inventory.models import Maintenance


class MaintenanceFilterSet(filters.FilterSet):
    asset_id = IdFilter(field_name="asset_id")
    supplier_id = IdFilter(field_name="supplier_id")
    created_by = IdFilter(field_name="created_by_id")
    company_id = IdFilter(field_name="asset__company_id")
    asset_maintenance_type = filters.CharFilter(field_name="asset_maintenance_type", lookup_expr="iexact")
    completed = filters.CharFilter(method="filter_completed")

    class Meta:
        model = Maintenance
        fields: list[str] = []

    def filter_completed(self, queryset, name, value):
        """``completed=false``: open maintenances (no completion date); ``true``: closed ones."""
        flag = parse_flag(value)
        return queryset if flag is None else queryset.filter(completion_date__isnull=not flag)
