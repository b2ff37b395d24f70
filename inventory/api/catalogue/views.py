"""Catalogue endpoints: ``statuslabels``, ``categories``, ``manufacturers``, ``suppliers``, ``locations`` and
``models`` (Snipe-IT's routes, reference §1.5), each ``GET/POST /<resource>``, ``GET/PUT/PATCH/DELETE
/<resource>/{id}`` and a select list; manufacturers and models also ``POST /<resource>/{id}/restore``.

Counts are subquery annotations (one query for any page size) limited to what the caller may see; the caller's
permission booleans are computed once per request for ``available_actions``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import BooleanField as BooleanDbField
from django.db.models import ExpressionWrapper, Prefetch, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from assetsvc.api.viewsets import SELECTLIST_SCHEMA, ResourceViewSet
from inventory.api.base import (
    LOCATION_NOT_FOUND,
    MODEL_NOT_FOUND,
    SELECTLIST_KEYS,
    STATUS_LABEL_NOT_FOUND,
    created_by_sort,
)
from inventory.api.catalogue import filters
from inventory.api.catalogue import serializers as s
from inventory.api.catalogue.charts import PIE_CHART_SCHEMA, pie_chart
from inventory.api.reports import HistoryMixin
from inventory.choices import CategoryType, StatusType
from inventory.models import (
    AssetModel,
    Category,
    CustomFieldsetField,
    Depreciation,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from inventory.selectors import charts
from inventory.selectors.counts import annotate_catalogue_counts
from inventory.services import catalogue as services

#: ``GET statuslabels/{id}/deployable``: a bare ``1`` or ``0``.
DEPLOYABLE_SCHEMA = {"type": "integer", "enum": [0, 1]}


def in_use(model) -> ExpressionWrapper:
    return ExpressionWrapper(services.in_use_annotation(model), output_field=BooleanDbField())


class CatalogueViewSet(ResourceViewSet):
    # The docstring is the schema's description of every catalogue operation; issue 26 keeps the schema byte-identical,
    # so it still names the services by their old module name (now inventory.services.catalogue).
    """A catalogue resource: the shared resource shape, created and updated by ``inventory.catalogue_services``."""

    selectlist_keys = SELECTLIST_KEYS
    create_service = staticmethod(services.catalogue_item_create)
    update_service = staticmethod(services.catalogue_item_update)
    delete_service = staticmethod(services.catalogue_item_delete)
    restore_service = staticmethod(services.catalogue_item_restore)

    def annotate(self, queryset: QuerySet) -> QuerySet:
        """The record's counts (``inventory.selectors.counts`` registry, scoped to the caller) and the delete guard
        flag."""
        queryset = annotate_catalogue_counts(queryset, self.request.user)
        return queryset.annotate(in_use=in_use(queryset.model))


class StatusLabelViewSet(CatalogueViewSet):
    queryset = StatusLabel.objects.all()
    serializer_class = s.StatusLabelSerializer
    write_serializer_class = s.StatusLabelWriteSerializer
    filterset_class = filters.StatusLabelFilterSet
    permission_section = "statuslabels"
    not_found_message = STATUS_LABEL_NOT_FOUND
    search_fields = ("name", "notes")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "created_at", "assets_count", "color", "notes", "default_label", "type")
    } | {"created_by": created_by_sort()}
    messages: ClassVar[dict[str, str]] = {
        "create": "Status Label created successfully.", "update": "Status Label updated successfully.",
        "delete": "The Status Label was deleted successfully.",
    }

    selectlist_ordering = ("-default_label", "name", "id")
    plain_actions = CatalogueViewSet.plain_actions | {"deployable", "assets_by_name", "assets_by_type"}
    action_permissions: ClassVar[dict[str, str | None]] = {
        **CatalogueViewSet.action_permissions, "deployable": "view", "assets_by_name": "view",
        "assets_by_type": "view",
    }

    @extend_schema(operation_id="statuslabels_deployable_retrieve", responses={200: DEPLOYABLE_SCHEMA})
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def deployable(self, request, pk=None):
        """``GET statuslabels/{id}/deployable``: Snipe-IT's bare ``1`` when assets with the label may be checked out
        (a deployable or pending label), else ``0`` (docs/decisions.md)."""
        label = self.get_object()
        return Response(1 if label.type in (StatusType.DEPLOYABLE, StatusType.PENDING) else 0)

    @extend_schema(operation_id="statuslabels_assets_name_retrieve", responses={200: PIE_CHART_SCHEMA})
    @action(detail=False, methods=["get"], url_path="assets/name", pagination_class=None, filter_backends=[])
    def assets_by_name(self, request):
        """``GET statuslabels/assets/name``: the caller's live assets per status label, as Snipe-IT's pie chart."""
        return Response(pie_chart(charts.asset_counts_by_status_label(request.user)))

    @extend_schema(operation_id="statuslabels_assets_type_retrieve", responses={200: PIE_CHART_SCHEMA})
    @action(detail=False, methods=["get"], url_path="assets/type", pagination_class=None, filter_backends=[])
    def assets_by_type(self, request):
        """``GET statuslabels/assets/type``: the caller's live assets per status type (ready to deploy, deployed,
        archived, pending, undeployable), as Snipe-IT's pie chart."""
        return Response(pie_chart((label, count, None)
                                  for label, count in charts.asset_counts_by_status_meta(request.user)))


class CategoryViewSet(CatalogueViewSet):
    queryset = Category.objects.all()
    serializer_class = s.CategorySerializer
    write_serializer_class = s.CategoryWriteSerializer
    filterset_class = filters.CategoryFilterSet
    permission_section = "categories"
    not_found_message = "Category not found"
    search_fields = ("name", "category_type", "notes")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "category_type", "use_default_eula", "eula_text", "require_acceptance",
                             "checkin_email", "assets_count", "accessories_count", "consumables_count",
                             "components_count", "licenses_count", "notes", "created_at", "updated_at")
    } | {"created_by": created_by_sort()}
    messages: ClassVar[dict[str, str]] = {
        "create": "Category created successfully.", "update": "Category updated successfully.",
        "delete": "The category was deleted successfully.",
    }

    plain_actions = CatalogueViewSet.plain_actions | {"typed_selectlist"}

    @extend_schema(operation_id="categories_typed_selectlist", responses={200: SELECTLIST_SCHEMA})
    @action(detail=True, methods=["get"], url_path="selectlist", pagination_class=None, filter_backends=[])
    def typed_selectlist(self, request, pk=None):
        """``GET categories/{item_type}/selectlist``: the categories of one item type (asset, accessory, ...)."""
        self.check_selectlist_access()
        item_type = str(pk or "").strip().lower()
        queryset = self.get_queryset().filter(category_type=item_type if item_type in CategoryType.values else "")
        return self.selectlist_answer(queryset.order_by("name", "id"))

    action_permissions: ClassVar[dict[str, str | None]] = {
        **CatalogueViewSet.action_permissions, "typed_selectlist": None,
    }


class ManufacturerViewSet(CatalogueViewSet):
    queryset = Manufacturer.objects.all()
    serializer_class = s.ManufacturerSerializer
    write_serializer_class = s.ManufacturerWriteSerializer
    filterset_class = filters.ManufacturerFilterSet
    permission_section = "manufacturers"
    not_found_message = "Manufacturer not found"
    soft_deletes = True
    search_fields = ("name", "notes")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "url", "support_url", "support_email", "warranty_lookup_url",
                             "support_phone", "created_at", "updated_at", "assets_count", "consumables_count",
                             "components_count", "licenses_count", "accessories_count", "notes")
    } | {"created_by": created_by_sort()}
    messages: ClassVar[dict[str, str]] = {
        "create": "Manufacturer created successfully.", "update": "Manufacturer updated successfully.",
        "delete": "The Manufacturer was deleted successfully.", "restore": "Manufacturer restored successfully.",
    }

    def list_deleted(self) -> bool:
        return str(self.request.query_params.get("deleted", "")).strip().lower() == "true"

    restore_not_found_message = "Manufacturer does not exist."

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        return self.restore_item(request)


class SupplierViewSet(CatalogueViewSet):
    queryset = Supplier.objects.all()
    serializer_class = s.SupplierSerializer
    write_serializer_class = s.SupplierWriteSerializer
    filterset_class = filters.SupplierFilterSet
    permission_section = "suppliers"
    not_found_message = "Supplier not found"
    search_fields = ("name", "contact", "email", "city", "address", "phone", "notes")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "address", "phone", "contact", "fax", "email", "assets_count",
                             "licenses_count", "accessories_count", "components_count", "consumables_count", "url",
                             "created_at")
    }
    messages: ClassVar[dict[str, str]] = {
        "create": "Supplier created successfully.", "update": "Supplier updated successfully.",
        "delete": "Supplier was deleted successfully.",
    }



class DepreciationViewSet(CatalogueViewSet):
    """Depreciations are shared catalogue records: changed only by callers separation does not limit; their counts
    cover only what the caller may see."""

    queryset = Depreciation.objects.all()
    serializer_class = s.DepreciationSerializer
    write_serializer_class = s.DepreciationWriteSerializer
    filterset_class = filters.DepreciationFilterSet
    permission_section = "depreciations"
    not_found_message = "Depreciation class does not exist."
    search_fields = ("name", "months")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "months", "depreciation_min", "depreciation_type", "assets_count",
                             "models_count", "licenses_count", "created_at", "updated_at")
    } | {"created_by": created_by_sort()}
    messages: ClassVar[dict[str, str]] = {
        "create": "Depreciation class created successfully.", "update": "Depreciation class updated successfully.",
        "delete": "The depreciation class was deleted successfully.",
    }


class LocationViewSet(HistoryMixin, CatalogueViewSet):
    """Locations are not company-scoped: Snipe-IT scopes them only with its ``scope_locations_fmcs`` setting, which
    this service does not have (docs/catalogue.md). Their counts of assets and users still are."""

    history_item_type = services.ITEM_TYPES[Location]
    queryset = Location.objects.all()
    unscoped_company_model = True
    serializer_class = s.LocationSerializer
    write_serializer_class = s.LocationWriteSerializer
    filterset_class = filters.LocationFilterSet
    permission_section = "locations"
    not_found_message = LOCATION_NOT_FOUND
    flat_keys = ("parent", "manager", "company")
    search_fields = ("name", "address", "city", "state", "zip", "ldap_ou", "phone", "fax", "notes", "parent__name",
                     "company__name")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("accessories_count", "address", "address2", "assets_count",
                             "assigned_accessories_count", "assigned_assets_count", "city", "country", "created_at",
                             "currency", "id", "ldap_ou", "company_id", "manager_id", "name", "rtd_assets_count",
                             "state", "updated_at", "users_count", "zip", "notes")
    } | {"parent": "parent__name", "manager": ("manager__first_name", "manager__last_name"),
         "company": "company__name"}
    messages: ClassVar[dict[str, str]] = {
        "create": "Location created successfully.", "update": "Location updated successfully.",
        "delete": "The location was deleted successfully.",
    }

    def annotate(self, queryset):
        children = Location.objects.only("id", "name", "parent_id").order_by("name", "id")
        return super().annotate(queryset.select_related("parent", "manager", "company").prefetch_related(
            Prefetch("children", queryset=children)
        ))



class AssetModelViewSet(HistoryMixin, CatalogueViewSet):
    queryset = AssetModel.objects.all()
    history_item_type = services.ITEM_TYPES[AssetModel]
    serializer_class = s.AssetModelSerializer
    write_serializer_class = s.AssetModelWriteSerializer
    filterset_class = filters.AssetModelFilterSet
    permission_section = "models"
    not_found_message = MODEL_NOT_FOUND
    soft_deletes = True
    flat_keys = ("category", "manufacturer", "fieldset")
    search_fields = ("name", "model_number", "notes", "category__name", "manufacturer__name")
    selectlist_search_fields = ("name", "model_number", "category__name", "manufacturer__name")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "model_number", "min_amt", "eol", "notes", "created_at", "requestable",
                             "assets_count", "deleted_at", "updated_at")
    } | {"manufacturer": "manufacturer__name", "category": "category__name", "created_by": created_by_sort()}
    messages: ClassVar[dict[str, str]] = {
        "create": "Model created successfully.", "update": "Model updated successfully.",
        "delete": "The model was deleted successfully.", "restore": "Model restored successfully.",
    }

    def list_deleted(self) -> bool:
        return str(self.request.query_params.get("status", "")).strip().lower() == "deleted"

    def annotate(self, queryset):
        memberships = CustomFieldsetField.objects.select_related("field").order_by("order", "id")
        return super().annotate(queryset.select_related("category", "manufacturer", "fieldset", "depreciation")
                                .prefetch_related(
            Prefetch("fieldset__memberships", queryset=memberships)))

    restore_not_found_message = "Model does not exist."

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        return self.restore_item(request)

    def selectlist_queryset(self):
        return (self.get_queryset().select_related("category", "manufacturer")
                .order_by("category__name", "manufacturer__name", "name", "model_number", "id"))

    def selectlist_text(self, obj) -> str:
        """Snipe-IT's default ``modellist_displays``: "<category> - <manufacturer> <name> (#<model number>)"."""
        text = f"{obj.category.name} - " if obj.category_id else ""
        if obj.manufacturer_id and obj.manufacturer.deleted_at is None:
            text += f"{obj.manufacturer.name} "
        text += obj.name
        if obj.model_number:
            text += f" (#{obj.model_number})"
        return text
