"""List filters of licenses (Snipe-IT's ``LicensesController@index``): the ids of what a license points at, equality
on its text columns (ignoring letter case), ``maintained`` and ``expires`` (``true``/``false``), and ``product_key``,
which matches nothing for a caller who may not see product keys (a filter must not tell them what a key is)."""

from __future__ import annotations

import django_filters as filters

from assetsvc.api.filters import IdFilter
from assetsvc.api.inputs import parse_flag
from inventory.models import License
from inventory.services.licenses import can_view_keys


def ci() -> filters.CharFilter:
    return filters.CharFilter(lookup_expr="iexact")


class LicenseFilterSet(filters.FilterSet):
    name = ci()
    order_number = ci()
    purchase_order = ci()
    license_name = ci()
    license_email = ci()
    product_key = filters.CharFilter(method="filter_product_key")
    maintained = filters.CharFilter(method="filter_maintained")
    expires = filters.CharFilter(method="filter_expires")
    company_id = IdFilter(field_name="company_id")
    category_id = IdFilter(field_name="category_id")
    manufacturer_id = IdFilter(field_name="manufacturer_id")
    supplier_id = IdFilter(field_name="supplier_id")
    created_by = IdFilter(field_name="created_by_id")

    class Meta:
        model = License
        fields: list[str] = []

    def filter_product_key(self, queryset, name, value):
        if not can_view_keys(getattr(self.request, "user", None)):
            return queryset.none()
        return queryset.filter(serial__iexact=value)

    def filter_maintained(self, queryset, name, value):
        flag = parse_flag(value)
        return queryset if flag is None else queryset.filter(maintained=flag)

    def filter_expires(self, queryset, name, value):
        """``expires=true``: licenses with an expiration date; ``false``: without one."""
        flag = parse_flag(value)
        return queryset if flag is None else queryset.filter(expiration_date__isnull=not flag)
