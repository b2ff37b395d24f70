"""The API side of the one checkout shape: an input serializer carrying the target (and the quantity, for kinds
handed out by quantity) and a viewset mixin whose checkout and checkin call ``item_checkout`` / ``item_checkin`` of
the view's kind. Targets are resolved by ``inventory.services.checkout.resolve_target``, the one rule for every kind."""

from __future__ import annotations

import copy
import re
from functools import cached_property
from typing import Any, ClassVar

from django.db.models import F, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import User
from accounts.permissions import ITEM_SECTIONS
from accounts.services import USER_NOT_FOUND
from assetsvc.api.fields import StrictIntegerField, TextField
from assetsvc.api.serializers import ApiSerializer
from assetsvc.api.viewsets import ResourceViewSet, success
from assetsvc.exceptions import NotFoundError
from assetsvc.registry import hook
from companies.querysets import caller_chooses_company
from inventory.api.base import SELECTLIST_KEYS, created_by_sort
from inventory.choices import TargetType
from inventory.models import Asset
from inventory.services import stock
from inventory.services.checkout import MAX_QUANTITY, CheckoutKind, Target, item_checkin, item_checkout, resolve_target

TARGET_KEYS = ("assigned_user", "assigned_asset", "assigned_location")
TARGET_TYPE_OF_KEY = {"assigned_user": TargetType.USER, "assigned_asset": TargetType.ASSET,
                      "assigned_location": TargetType.LOCATION}


def quantity_input(**kwargs: Any) -> StrictIntegerField:
    kwargs.setdefault("required", False)
    return StrictIntegerField(min_value=1, max_value=MAX_QUANTITY, **kwargs)


class CheckoutSerializer(ApiSerializer):
    """Checkout input: exactly one target (``assigned_user``, ``assigned_asset`` or ``assigned_location``, with an
    optional matching ``checkout_to_type``) and a note. A kind handed out by quantity names its quantity input in
    ``quantity_field`` and declares it with :func:`quantity_input` (1 by default, at most what a 32-bit column
    holds)."""

    #: The target rules ("required when none of ...") would misfire when a target or ``checkout_to_type`` failed its
    #: own check (the target is then missing from what passed), so they wait for the fields to pass.
    rules_with_field_errors = False
    #: Name of the quantity input (``checkout_qty``, ``assigned_qty``); None for kinds of quantity 1 (assets).
    quantity_field: ClassVar[str | None] = None
    #: Target keys this kind accepts, in the order Snipe-IT reports them.
    target_keys: ClassVar[tuple[str, ...]] = TARGET_KEYS

    checkout_to_type = serializers.ChoiceField(choices=[t.value for t in TargetType], required=False,
                                               allow_null=True)
    assigned_user = StrictIntegerField(required=False, allow_null=True)
    assigned_asset = StrictIntegerField(required=False, allow_null=True)
    assigned_location = StrictIntegerField(required=False, allow_null=True)
    note = TextField(max_length=65535)

    def get_fields(self):
        fields = super().get_fields()
        for key in TARGET_KEYS:
            if key not in self.target_keys:
                fields.pop(key, None)
        return fields

    def validate(self, attrs):
        keys = self.target_keys
        targets = [key for key in keys if attrs.get(key) is not None]
        if not targets:
            raise serializers.ValidationError({
                key: [f"The {key.replace('_', ' ')} field is required when none of "
                      f"{' / '.join(other.replace('_', ' ') for other in keys if other != key)} are present."]
                for key in keys
            })
        if len(targets) > 1:
            raise serializers.ValidationError(
                {targets[1]: [f"Only one of {', '.join(keys[:-1])} or {keys[-1]} may be given."]}
            )
        kind = attrs.get("checkout_to_type")
        if kind and TARGET_TYPE_OF_KEY[targets[0]] != kind:
            raise serializers.ValidationError(
                {"checkout_to_type": [f"The checkout to type does not match the target given ({targets[0]})."]}
            )
        return attrs

    def target_request(self) -> tuple[str, int]:
        for key in self.target_keys:
            if self.validated_data.get(key) is not None:
                return TARGET_TYPE_OF_KEY[key], self.validated_data[key]
        raise AssertionError("validated without a target")

    def quantity(self) -> int:
        return self.validated_data.get(self.quantity_field, 1) if self.quantity_field else 1


class CheckoutActionsMixin:
    """Checkout and checkin actions for a viewset of one kind. Declare ``checkout_kind``,
    ``checkout_serializer_class`` (a :class:`CheckoutSerializer`) and ``checkin_serializer_class``; override
    ``checkout_options`` / ``checkin_options`` to pass a kind's extra inputs to its service, and
    ``target_not_usable`` for a kind's own refusal when the target cannot be used."""

    checkout_kind: ClassVar[CheckoutKind]
    checkout_serializer_class: ClassVar[type[CheckoutSerializer]]
    checkin_serializer_class: ClassVar[type[serializers.Serializer]]

    def validated(self, serializer_class, data: dict | None = None, **context: Any):
        serializer = serializer_class(data=self.input if data is None else data,
                                      context={"request": self.request, **context})
        serializer.is_valid(raise_exception=True)
        return serializer

    def checkout_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {}

    def checkin_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {}

    def target_not_usable(self, item, target_type: str, target_id: int) -> Exception:
        return self.checkout_kind.invalid_target(item, target_type, target_id)

    def checkout_target(self, item, serializer: CheckoutSerializer) -> Target:
        target_type, pk = serializer.target_request()
        target = resolve_target(target_type, pk, self.request.user)
        if target is None:
            raise self.target_not_usable(item, target_type, pk)
        return target

    def perform_checkout(self, item):
        serializer = self.validated(self.checkout_serializer_class)
        data = serializer.validated_data
        target = self.checkout_target(item, serializer)
        return item_checkout(kind=self.checkout_kind, item=item, target=target, actor=self.request.user,
                             quantity=serializer.quantity(), note=data.get("note") or "",
                             **self.checkout_options(data))

    def perform_checkin(self, item, *, assignment: Any = None, quantity: int | None = None):
        data = self.validated(self.checkin_serializer_class).validated_data
        return item_checkin(kind=self.checkout_kind, item=item, actor=self.request.user, assignment=assignment,
                            quantity=quantity, note=data.get("note") or "", **self.checkin_options(data))


def held_items(rows: list[Any], items: dict[int, Any], item_field: str) -> list[Any]:
    """One item per assignment row (a copy when an item is held by several rows), carrying the row's keys."""
    held = []
    for row in rows:
        item = items.get(getattr(row, f"{item_field}_id"))
        if item is None:
            continue
        item = copy.copy(item)
        item.assigned_pivot_id, item.checkout_qty = row.pk, row.assigned_qty
        item.checked_out_at, item.checkout_note = row.created_at, row.note
        held.append(item)
    return held


# --- the viewset base of kinds handed out by quantity (stock and licenses) --------------------------------------

_ID = re.compile(r"^[0-9]{1,18}$")
ROW_RELATED = ("created_by", "assigned_user", "assigned_asset", "assigned_location")


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
        held = held_items(page, items, item_field)
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
