"""``/accessories`` and ``/consumables`` (API-CONTRACT.md §10, reference §1.5): the shared resource shape
(``ResourceViewSet``: list, read, create, update, delete, restore, select list, all scoped by company) plus the
shared checkout shape (``CheckoutActionsMixin``), and the lists of who holds what.

Every read goes through ``get_queryset()`` (company separation) and every list annotates the units out as one
subquery, so a page runs a constant number of queries. Checkout rows are reached through their item's company
(``AccessoryCheckout.objects.restrict``): another company's row is "not found", as a missing one.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, ClassVar

from django.db.models import F, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import User
from accounts.permissions import ITEM_SECTIONS
from accounts.services import USER_NOT_FOUND
from assetsvc.api.viewsets import ResourceViewSet, success, success_envelope
from assetsvc.exceptions import NotFoundError
from assetsvc.registry import hook
from companies.querysets import caller_chooses_company
from inventory.api.catalogue.views import SELECTLIST_KEYS
from inventory.api.checkout import CheckoutActionsMixin
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

_ID = re.compile(r"^[0-9]{1,18}$")
ROW_RELATED = ("created_by", "assigned_user", "assigned_asset", "assigned_location")


def created_by_sort() -> tuple[str, str]:
    return ("created_by__first_name", "created_by__last_name")


STOCK_SORTS: dict[str, Any] = {
    key: key for key in ("id", "name", "model_number", "order_number", "notes", "created_at", "updated_at", "min_amt",
                         "company_id", "qty", "purchase_date", "purchase_cost", "requestable")
} | {"category": "category__name", "company": "company__name", "location": "location__name",
     "manufacturer": "manufacturer__name", "supplier": "supplier__name", "created_by": created_by_sort(),
     "remaining": "remaining_units", "checkouts_count": "units_out"}


class StockViewSet(CheckoutActionsMixin, ResourceViewSet):
    """What the two kinds share; each declares its model, kind, serializers and texts."""

    kind: ClassVar[stock.StockKind]
    soft_deletes = True
    selectlist_keys = SELECTLIST_KEYS
    flat_keys = ("category", "company", "manufacturer", "supplier", "location")
    search_fields = ("name", "model_number", "order_number", "notes", "category__name", "manufacturer__name",
                     "supplier__name", "location__name", "company__name")
    sort_fields: ClassVar[dict[str, Any]] = STOCK_SORTS
    create_service = staticmethod(stock.stock_create)
    update_service = staticmethod(stock.stock_update)
    delete_service = staticmethod(stock.stock_delete)
    restore_service = staticmethod(stock.stock_restore)
    action_permissions: ClassVar[dict[str, str | None]] = {
        **ResourceViewSet.action_permissions, "checkout": "checkout", "checkin": "checkin",
        "checkedout": "view", "holders": "view", "user_items": "view", "asset_items": "view",
        "location_items": "view",
    }

    @cached_property
    def abilities(self) -> dict[str, bool]:
        """The caller's verbs of the section, each a key the section has (licenses have no ``checkin`` key: a seat
        is checked in with ``licenses.checkout``); a verb the section lacks is False."""
        checker = hook("permission_checker")
        user = self.request.user
        keys = ITEM_SECTIONS[self.permission_section]
        return {verb: verb in keys and checker(user, f"{self.permission_section}.{verb}")
                for verb in ("view", "create", "edit", "delete", "checkout", "checkin")}

    def write_input(self) -> dict[str, Any]:
        """Rule 7, as ``/hardware``: a caller who may not choose the company (separation on, not a super user) has
        ``company_id`` dropped before validation, so a new item gets their company whatever the body says, an
        update never moves an item, and another company's id is neither refused nor probed."""
        data = dict(self.input)
        if not caller_chooses_company(self.request.user):
            data.pop("company_id", None)
        return data

    def list_deleted(self) -> bool:
        return str(self.request.query_params.get("deleted", "")).strip().lower() == "true"

    def get_object(self):
        """A checkout of an unknown item answers the kind's own text (Snipe-IT's ``Consumable does not exist.``,
        ``Component does not exist.``)."""
        try:
            return super().get_object()
        except exceptions.NotFound:
            if self.action == "checkout":
                raise self.not_found(self.kind.not_found_message) from None
            raise

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return (queryset.select_related("category", "company", "manufacturer", "supplier", "location")
                .annotate(units_out=self.kind.assigned_subquery())
                .annotate(remaining_units=F("qty") - F("units_out")))

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        return self.restore_item(request)

    # --- checkout and checkin ---------------------------------------------------------------------------------------

    #: The answer to a checkout: the new assignment row in this shape (its id checks it back in).
    row_serializer_class: ClassVar[type]

    def checkout_answer(self) -> Response:
        item = self.perform_checkout(self.get_object())
        row = getattr(item, "checkout_row", None)
        payload = self.row_serializer_class(row, context=self.get_serializer_context()).data if row else None
        return success(payload, self.messages["checkout"])

    def checkin_answer(self, row_pk) -> Response:
        """A checkin addressed by the assignment row's id (Snipe-IT's route): all its units, or ``checkin_qty``.
        A row of an item the caller may not see is the same "not found" as a missing one."""
        row = stock.assignment_row(self.kind, row_pk, self.request.user)
        if row is None:
            raise NotFoundError(self.kind.row_not_found_message, code="checkout_not_found")
        data = self.validated(self.checkin_serializer_class).validated_data
        self.perform_checkin(getattr(row, self.kind.item_field), assignment=row, quantity=data.get("checkin_qty"))
        return success(None, self.messages["checkin"])

    # --- who holds what -------------------------------------------------------------------------------------------

    def rows_page(self, rows: QuerySet, serializer_class) -> Response:
        page = self.paginate_queryset(rows.order_by("-created_at", "-id"))
        return self.get_paginated_response(serializer_class(page, many=True,
                                                            context=self.get_serializer_context()).data)

    held_serializer_class: ClassVar[type]

    def held_items_page(self, rows: QuerySet) -> Response:
        """A page of assignment rows answered as item records (with the row's id and units): the items' records
        are loaded in one query through :meth:`get_queryset`, so they carry the same counts and scoping."""
        page = self.paginate_queryset(rows.order_by("-created_at", "-id"))
        item_field = self.kind.item_field
        ids = {getattr(row, f"{item_field}_id") for row in page}
        items = {item.pk: item for item in self.get_queryset().filter(pk__in=ids)} if ids else {}
        held = s.held_items(page, items, item_field)
        return self.get_paginated_response(self.held_serializer_class(held, many=True,
                                                                      context=self.get_serializer_context()).data)

    def visible_rows(self) -> QuerySet:
        """Assignment rows of items the caller may see (live items)."""
        model = self.kind.assignment_model
        items = self.queryset.model.objects.restrict(self.request.user).filter(deleted_at__isnull=True)
        return model.objects.filter(**{f"{self.kind.item_field}__in": items})

    def require(self, key: str) -> None:
        if not hook("permission_checker")(self.request.user, key):
            raise exceptions.PermissionDenied()

    def visible_user(self, user_pk: str) -> int:
        """The id of a user the caller may see (users.view), else the users' not-found error."""
        pk = str(user_pk).strip()
        visible = _ID.match(pk) and User.objects.restrict(self.request.user).filter(pk=int(pk)).exists()
        if not visible:
            raise self.not_found(USER_NOT_FOUND)
        self.require("users.view")
        return int(pk)

    def visible_asset(self, asset_pk: str) -> int:
        """The id of a live asset the caller may see (assets.view), else the assets' not-found error."""
        pk = str(asset_pk).strip()
        if not (_ID.match(pk) and Asset.objects.restrict(self.request.user).filter(pk=int(pk), deleted_at__isnull=True)
                .exists()):
            raise self.not_found("Asset does not exist.")
        self.require("assets.view")
        return int(pk)

    def user_items(self, request, user_pk: str):
        """``GET users/{id}/<kind>``: what a user holds of this kind, one item record per checkout."""
        user_id = self.visible_user(user_pk)
        return self.held_items_page(self.visible_rows().filter(assigned_user_id=user_id))


class AccessoryViewSet(StockViewSet):
    queryset = Accessory.objects.all()
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


class ConsumableViewSet(StockViewSet):
    queryset = Consumable.objects.all()
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


class ComponentViewSet(StockViewSet):
    queryset = Component.objects.all()
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
