"""List filters of kits: ``name`` (ignoring letter case) and ``created_by``."""

from __future__ import annotations

import django_filters as filters

from assetsvc.api.filters import IdFilter
from inventory.models import Kit


class KitFilterSet(filters.FilterSet):
    name = filters.CharFilter(lookup_expr="iexact")
    created_by = IdFilter(field_name="created_by_id")

    class Meta:
        model = Kit
        fields: list[str] = []
