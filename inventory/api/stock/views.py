"""``/accessories`` and ``/consumables`` (API-CONTRACT.md §10, reference §1.5): the shared resource shape
(``ResourceViewSet``: list, read, create, update, delete, restore, select list, all scoped by company) plus the
shared checkout shape (``CheckoutActionsMixin``), and the lists of who holds what.

Every read goes through ``get_queryset()`` (company separation) and every list annotates the units out as one
subquery, so a page runs a constant number of queries. Checkout rows are reached through their item's company
(``AccessoryCheckout.objects.restrict``): another company's row is "not found", as a missing one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action

from assetsvc.api.viewsets import success_envelope
from inventory.api.checkout import _ID, ROW_RELATED, STOCK_SORTS, StockViewSet
from inventory.api.reports import HistoryMixin
from inventory.api.stock import filters
from inventory.api.stock import serializers as s
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
    Location,
)
from inventory.services import stock


class AccessoryViewSet(HistoryMixin, StockViewSet):
    queryset = Accessory.objects.all()
    history_item_type = stock.ACCESSORY.item_type
    kind = stock.ACCESSORY
    checkout_kind = stock.ACCESSORY
    serializer_class = s.AccessorySerializer
    row_serializer_class = s.CheckoutRowSerializer
    held_serializer_class = s.HeldAccessorySerializer
    write_serializer_class = s.AccessoryWriteSerializer
    checkout_serializer_class = s.AccessoryCheckoutSerializer
    checkin_serializer_class = s.QuantityCheckinSerializer
    filterset_class = filters.AccessoryFilterSet
    permission_section = "accessories"
    not_found_message = "Accessory not found"
    restore_not_found_message = "Accessory not found"
    messages: ClassVar[dict[str, str]] = {
        "create": "The accessory was successfully created.", "update": "The accessory was updated successfully.",
        "delete": "The accessory was deleted successfully.", "restore": "The accessory was restored successfully.",
        "checkout": "Accessory checked out successfully.", "checkin": "Accessory checked in successfully.",
    }

    @extend_schema(request=s.AccessoryCheckoutSerializer, responses={200: success_envelope(s.CheckoutRowSerializer)})
    @action(detail=True, methods=["post"])
    def checkout(self, request, pk=None):
        """Check ``checkout_qty`` units out; the payload is the new checkout row (its ``id`` checks it in)."""
        return self.checkout_answer()

    @extend_schema(request=s.QuantityCheckinSerializer, responses={200: success_envelope(None)})
    @action(detail=True, methods=["post"])
    def checkin(self, request, pk=None):
        """``{pk}`` is the checkout row's id (Snipe-IT's route): all its units come back, or ``checkin_qty``."""
        return self.checkin_answer(pk)

    @extend_schema(responses={200: s.CheckoutRowSerializer(many=True)})
    @action(detail=True, methods=["get"], filter_backends=[])
    def checkedout(self, request, pk=None):
        """``GET accessories/{id}/checkedout``: the accessory's checkout rows, newest first."""
        accessory = self.get_object()
        rows = AccessoryCheckout.objects.filter(accessory=accessory).select_related("accessory", *ROW_RELATED)
        return self.rows_page(rows, s.CheckoutRowSerializer)

    @extend_schema(responses={200: s.HeldAccessorySerializer(many=True)})
    def user_items(self, request, user_pk: str):
        return super().user_items(request, user_pk)

    @extend_schema(responses={200: s.CheckoutRowSerializer(many=True)})
    def asset_items(self, request, asset_pk: str):
        """``GET hardware/{id}/assigned/accessories``: accessories checked out to an asset (needs assets.view)."""
        asset_id = self.visible_asset(asset_pk)
        rows = self.visible_rows().filter(assigned_asset_id=asset_id).select_related("accessory", *ROW_RELATED)
        return self.rows_page(rows, s.CheckoutRowSerializer)

    @extend_schema(responses={200: s.CheckoutRowSerializer(many=True)})
    def location_items(self, request, location_pk: str):
        """``GET locations/{id}/assigned/accessories``: accessories checked out to a location (needs
        locations.view)."""
        pk = str(location_pk).strip()
        if not (_ID.match(pk) and Location.objects.filter(pk=int(pk)).exists()):
            raise self.not_found("Location not found")
        self.require("locations.view")
        rows = self.visible_rows().filter(assigned_location_id=int(pk)).select_related("accessory", *ROW_RELATED)
        return self.rows_page(rows, s.CheckoutRowSerializer)


class ConsumableViewSet(HistoryMixin, StockViewSet):
    queryset = Consumable.objects.all()
    history_item_type = stock.CONSUMABLE.item_type
    kind = stock.CONSUMABLE
    checkout_kind = stock.CONSUMABLE
    serializer_class = s.ConsumableSerializer
    row_serializer_class = s.ConsumableUserRowSerializer
    held_serializer_class = s.HeldConsumableSerializer
    write_serializer_class = s.ConsumableWriteSerializer
    checkout_serializer_class = s.ConsumableCheckoutSerializer
    filterset_class = filters.ConsumableFilterSet
    permission_section = "consumables"
    not_found_message = "Consumable not found"
    restore_not_found_message = "Consumable not found"
    search_fields = (*StockViewSet.search_fields, "item_no")
    sort_fields: ClassVar[dict[str, Any]] = {**STOCK_SORTS, "item_no": "item_no"}
    messages: ClassVar[dict[str, str]] = {
        "create": "Consumable created successfully.", "update": "Consumable updated successfully.",
        "delete": "The consumable was deleted successfully.", "restore": "Consumable restored successfully.",
        "checkout": "Consumable checked out successfully.",
    }

    @extend_schema(request=s.ConsumableCheckoutSerializer,
                   responses={200: success_envelope(s.ConsumableUserRowSerializer)})
    @action(detail=True, methods=["post"])
    def checkout(self, request, pk=None):
        """Hand ``checkout_qty`` units to a user (``assigned_to``); the payload is the new row."""
        return self.checkout_answer()

    @extend_schema(responses={200: s.ConsumableUserRowSerializer(many=True)}, operation_id="consumables_users_list")
    @action(detail=True, methods=["get"], url_path="users", filter_backends=[])
    def holders(self, request, pk=None):
        """``GET consumables/{id}/users``: who took units of the consumable, newest first."""
        consumable = self.get_object()
        rows = ConsumableAssignment.objects.filter(consumable=consumable).select_related("consumable", "created_by",
                                                                                          "assigned_user")
        return self.rows_page(rows, s.ConsumableUserRowSerializer)

    @extend_schema(responses={200: s.HeldConsumableSerializer(many=True)})
    def user_items(self, request, user_pk: str):
        return super().user_items(request, user_pk)


class ComponentViewSet(HistoryMixin, StockViewSet):
    queryset = Component.objects.all()
    history_item_type = stock.COMPONENT.item_type
    kind = stock.COMPONENT
    checkout_kind = stock.COMPONENT
    serializer_class = s.ComponentSerializer
    row_serializer_class = s.ComponentAssetRowSerializer
    held_serializer_class = s.HeldComponentSerializer
    write_serializer_class = s.ComponentWriteSerializer
    checkout_serializer_class = s.ComponentCheckoutSerializer
    checkin_serializer_class = s.QuantityCheckinSerializer
    filterset_class = filters.ComponentFilterSet
    permission_section = "components"
    not_found_message = "Component not found"
    restore_not_found_message = "Component not found"
    search_fields = (*StockViewSet.search_fields, "serial")
    sort_fields: ClassVar[dict[str, Any]] = {**STOCK_SORTS, "serial": "serial"}
    messages: ClassVar[dict[str, str]] = {
        "create": "Component created successfully.", "update": "Component updated successfully.",
        "delete": "The component was deleted successfully.", "restore": "Component restored successfully.",
        "checkout": "Component checked out successfully.", "checkin": "Component checked in successfully.",
    }

    @extend_schema(request=s.ComponentCheckoutSerializer,
                   responses={200: success_envelope(s.ComponentAssetRowSerializer)})
    @action(detail=True, methods=["post"])
    def checkout(self, request, pk=None):
        """Install ``assigned_qty`` units into an asset (``assigned_to``); the payload is the new row."""
        return self.checkout_answer()

    @extend_schema(request=s.QuantityCheckinSerializer, responses={200: success_envelope(None)})
    @action(detail=True, methods=["post"])
    def checkin(self, request, pk=None):
        """``{pk}`` is the installation row's id (Snipe-IT's ``components_assets`` id): all its units come out, or
        ``checkin_qty``."""
        return self.checkin_answer(pk)

    @extend_schema(responses={200: s.ComponentAssetRowSerializer(many=True)}, operation_id="components_assets_list")
    @action(detail=True, methods=["get"], url_path="assets", filter_backends=[])
    def holders(self, request, pk=None):
        """``GET components/{id}/assets``: the assets the component is installed in, newest first (needs
        assets.view too, as Snipe-IT). Only assets the caller may see are listed (Snipe-IT's ``assets()`` relation
        is company-scoped too): a row is the asset's record, so another company's asset is left out, not shown; its
        units still count as out in ``remaining``."""
        component = self.get_object()
        self.require("assets.view")
        assets = Asset.objects.restrict(self.request.user).filter(deleted_at__isnull=True)
        rows = (ComponentAssignment.objects.filter(component=component, assigned_asset__in=assets)
                .select_related("assigned_asset", "created_by"))
        return self.rows_page(rows, s.ComponentAssetRowSerializer)

    @extend_schema(responses={200: s.HeldComponentSerializer(many=True)})
    def asset_items(self, request, asset_pk: str):
        """``GET hardware/{id}/components``: the components installed in an asset, one record per installation."""
        asset_id = self.visible_asset(asset_pk)
        return self.held_items_page(self.visible_rows().filter(assigned_asset_id=asset_id))
