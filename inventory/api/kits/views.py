"""Predefined kits (Snipe-IT's ``Api\\PredefinedKitsController``): ``GET/POST /kits``, ``GET/PUT/PATCH/DELETE
/kits/{id}``, ``GET /kits/selectlist``; each kind of line at ``/kits/{id}/<models|licenses|accessories|consumables>``
(``GET`` list, ``POST`` add) and ``/kits/{id}/<kind>/{item_id}`` (``PUT``/``PATCH`` quantity, ``DELETE``); and
``POST /kits/{id}/checkout`` (a kit to a user, all or nothing: ``inventory.services.kits.kit_checkout``)."""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import User
from assetsvc.api.viewsets import ResourceViewSet, success, success_envelope
from assetsvc.exceptions import InvalidInputError
from assetsvc.registry import hook
from inventory.api.base import created_by_sort
from inventory.api.kits import serializers as s
from inventory.api.kits.filters import KitFilterSet
from inventory.models import Kit
from inventory.services import kits as services
from inventory.services.assets import checkout_datetime
from inventory.services.kits import LINE_KINDS, LineKind

SEGMENTS = "|".join(LINE_KINDS)
SEGMENT_PARAMETER = OpenApiParameter("segment", str, OpenApiParameter.PATH, enum=list(LINE_KINDS),
                                     description="The kind of line.")
ITEM_PARAMETER = OpenApiParameter("item_pk", int, OpenApiParameter.PATH, description="The item's id.")
KIT_SUCCESS = success_envelope(s.KitSerializer)


class KitViewSet(ResourceViewSet):
    """Predefined kits: shared records, changed only by callers whom company separation does not limit; a limited
    caller sees only the lines of items of their company."""

    queryset = Kit.objects.all()
    serializer_class = s.KitSerializer
    write_serializer_class = s.KitWriteSerializer
    filterset_class = KitFilterSet
    permission_section = "kits"
    not_found_message = services.NOT_FOUND
    search_fields = ("name",)
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "created_at", "updated_at")} | {"created_by": created_by_sort()}
    messages: ClassVar[dict[str, str]] = {
        "create": "Kit was successfully created.", "update": "Kit was successfully updated.",
        "delete": "Kit was successfully deleted.",
    }
    #: Who checks kits out picks them from the select list (Snipe-IT shows it on its kit checkout page).
    selectlist_keys = ("assets.checkout",)
    create_service = staticmethod(services.kit_create)
    update_service = staticmethod(services.kit_update)
    delete_service = staticmethod(services.kit_delete)
    action_permissions: ClassVar[dict[str, str | None]] = {
        **ResourceViewSet.action_permissions,
        "lines": "view", "line_add": "edit", "line_update": "edit", "line_patch": "edit", "line_remove": "edit",
        "checkout": "view",
    }

    @cached_property
    def abilities(self) -> dict[str, bool]:
        checker = hook("permission_checker")
        return {**super().abilities, "checkout": checker(self.request.user, "assets.checkout")}

    # --- lines ----------------------------------------------------------------------------------------------------

    def line_kind(self) -> LineKind:
        return LINE_KINDS[self.kwargs["segment"]]

    def kit_answer(self, kit: Kit, message: str) -> Response:
        return success(self.record(kit), message)

    @extend_schema(operation_id="kits_lines_list", parameters=[SEGMENT_PARAMETER],
                   responses={200: s.KitLinesSerializer})
    @action(detail=True, methods=["get"], url_path=rf"(?P<segment>{SEGMENTS})", pagination_class=None,
            filter_backends=[])
    def lines(self, request, pk=None, segment=None):
        """The kit's lines of one kind that the caller may see."""
        kit = self.get_object()
        rows = list(services.visible_lines(kit, self.line_kind(), request.user))
        serializer = s.KitLineSerializer(rows, many=True, context={
            "line_actions": {"update": self.abilities["edit"], "delete": self.abilities["delete"]}})
        return Response({"total": len(rows), "rows": serializer.data})

    @extend_schema(operation_id="kits_lines_add", parameters=[SEGMENT_PARAMETER],
                   request=s.LINE_ADD_SERIALIZERS["license"],
                   responses={200: KIT_SUCCESS})
    @lines.mapping.post
    def line_add(self, request, pk=None, segment=None):
        """Add an item (``model``, ``license``, ``accessory`` or ``consumable``: its id) with a ``quantity``."""
        kind = self.line_kind()
        kit = self.get_object()
        data = s.LINE_ADD_SERIALIZERS[kind.field](data=self.input, context={"request": request})
        data.is_valid(raise_exception=True)
        item = kind.visible_items(request.user).filter(pk=data.validated_data[kind.field]).first()
        if item is None:
            text = f"The selected {kind.field} is invalid."
            raise InvalidInputError(text, messages={kind.field: [text]})
        services.kit_line_add(kit=kit, kind=kind, item=item, quantity=data.units(), actor=request.user)
        return self.kit_answer(kit, kind.added)

    @extend_schema(operation_id="kits_lines_update", parameters=[SEGMENT_PARAMETER, ITEM_PARAMETER],
                   request=s.KitQuantitySerializer,
                   responses={200: KIT_SUCCESS})
    @action(detail=True, methods=["put"], url_path=rf"(?P<segment>{SEGMENTS})/(?P<item_pk>[^/]+)",
            pagination_class=None, filter_backends=[])
    def line_update(self, request, pk=None, segment=None, item_pk=None):
        """Change the quantity of the line of item ``item_pk`` (PUT and PATCH)."""
        kind = self.line_kind()
        kit = self.get_object()
        data = s.KitQuantitySerializer(data=self.input, context={"request": request})
        data.is_valid(raise_exception=True)
        services.kit_line_update(kit=kit, kind=kind, item_id=item_pk, quantity=data.units(), actor=request.user)
        return self.kit_answer(kit, kind.updated)

    @extend_schema(operation_id="kits_lines_partial_update", parameters=[SEGMENT_PARAMETER, ITEM_PARAMETER],
                   request=s.KitQuantitySerializer,
                   responses={200: KIT_SUCCESS})
    @line_update.mapping.patch
    def line_patch(self, request, pk=None, segment=None, item_pk=None):
        return self.line_update(request, pk=pk, segment=segment, item_pk=item_pk)

    @extend_schema(operation_id="kits_lines_remove", parameters=[SEGMENT_PARAMETER, ITEM_PARAMETER],
                   request=None, responses={200: KIT_SUCCESS})
    @line_update.mapping.delete
    def line_remove(self, request, pk=None, segment=None, item_pk=None):
        """Take the item ``item_pk`` off the kit."""
        kind = self.line_kind()
        kit = self.get_object()
        services.kit_line_remove(kit=kit, kind=kind, item_id=item_pk, actor=request.user)
        return self.kit_answer(kit, kind.removed)

    # --- checkout -------------------------------------------------------------------------------------------------

    @extend_schema(request=s.KitCheckoutSerializer, responses={200: success_envelope(s.KitCheckoutResultSerializer)})
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def checkout(self, request, pk=None):
        """Check the whole kit out to ``user_id``, all or nothing; refused with the list of what is short."""
        kit = self.get_object()
        data = s.KitCheckoutSerializer(data=self.input, context={"request": request})
        data.is_valid(raise_exception=True)
        values = data.validated_data
        target = User.objects.filter(pk=values["user_id"]).first() if abs(values["user_id"]) < 2**62 else None
        if target is None:
            raise InvalidInputError(services.USER_NOT_FOUND, code="invalid_target",
                                    messages={"user_id": [services.USER_NOT_FOUND]})
        done = services.kit_checkout(kit=kit, target=target, actor=request.user, note=values.get("note") or "",
                                     checkout_at=checkout_datetime(values.get("checkout_at")),
                                     expected_checkin=values.get("expected_checkin"))
        return success(s.checkout_result(done), services.CHECKOUT_SUCCESS)
