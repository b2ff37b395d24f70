"""Checkout requests, Snipe-IT's ``/account`` routes: ``GET account/requestable/hardware`` (what the caller may
request), ``POST account/request/{asset}`` and ``.../cancel``, and ``GET account/requests`` (the caller's open
requests). Administrators fulfil requests in the admin (a checkout to the requester)."""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from assetsvc.api.formats import record_date, record_timestamp
from assetsvc.api.viewsets import ApiView, ApiViewMixin, SearchFilter, SortFilter, success
from inventory.models import Asset
from inventory.services import requests as services


class RequestableAssetSerializer(serializers.Serializer):
    """An asset as the requestable list shows it (Snipe-IT's ``transformRequestedAsset``): names, not nested
    records, and whether the caller has asked for it already."""

    id = serializers.IntegerField()
    name = serializers.CharField(allow_null=True)
    asset_tag = serializers.CharField()
    serial = serializers.CharField()
    image = serializers.CharField(allow_null=True)
    model = serializers.CharField(allow_null=True)
    model_number = serializers.CharField(allow_null=True)
    expected_checkin = serializers.JSONField(allow_null=True)
    location = serializers.CharField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    assigned_to_self = serializers.BooleanField()
    custom_fields = serializers.DictField()
    available_actions = serializers.DictField(child=serializers.BooleanField())

    def to_representation(self, asset: Asset) -> dict[str, Any]:
        requested = asset.pk in self.context.get("requested_ids", ())
        assigned = asset.assigned_user_id or asset.assigned_asset_id or asset.assigned_location_id
        return {
            "id": asset.pk,
            "name": asset.name or None,
            "asset_tag": asset.asset_tag,
            "serial": asset.serial,
            "image": None,
            "model": asset.model.name if asset.model_id else None,
            "model_number": (asset.model.model_number or None) if asset.model_id else None,
            "expected_checkin": record_date(asset.expected_checkin),
            "location": asset.location.name if asset.location_id else None,
            "status": "deployed" if assigned else asset.status.type,
            "assigned_to_self": asset.assigned_user_id == self.context["user_id"],
            # Snipe-IT shows custom fields flagged "show in requestable list"; this service has no such flag yet,
            # so none are shown (never an encrypted one).
            "custom_fields": {},
            "available_actions": {"cancel": requested, "request": not requested},
        }


class RequestedAssetSerializer(serializers.Serializer):
    """One of the caller's open requests (Snipe-IT's ``requestedAssets`` row). A model request (issue 32) reads as
    Snipe-IT's: ``type`` is ``itemType()``, ``"asset_model"``, its name the model's, no location nor expected
    check-in (a model has neither)."""

    image = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    type = serializers.CharField()
    qty = serializers.IntegerField()
    location = serializers.CharField(allow_null=True)
    expected_checkin = serializers.JSONField(allow_null=True)
    request_date = serializers.JSONField()

    def to_representation(self, request) -> dict[str, Any]:
        asset = request.asset
        if asset is None:
            return {
                "image": None,
                "name": request.model.name,
                "type": request.item_type,
                "qty": request.quantity,
                "location": None,
                "expected_checkin": None,
                "request_date": record_timestamp(request.created_at),
            }
        return {
            "image": None,
            "name": asset.name or f"{asset.model.name} ({asset.asset_tag})",
            "type": request.item_type,
            "qty": request.quantity,
            "location": asset.location.name if asset.location_id else None,
            "expected_checkin": record_date(asset.expected_checkin),
            "request_date": record_timestamp(request.created_at),
        }


class RequestableAssetsView(ApiViewMixin, GenericAPIView):
    """``GET account/requestable/hardware``: a page of the assets the caller may request (searched, sorted and paged
    as every list; not a resource viewset: nothing is created or changed here)."""

    filter_backends: ClassVar[list] = [SearchFilter, SortFilter]

    queryset = Asset.objects.all()
    serializer_class = RequestableAssetSerializer
    permission_section = "assets"
    action_permissions: ClassVar[dict[str, str | None]] = {"list": "view.requestable"}
    action = "list"
    not_found_message = services.ASSET_NOT_FOUND
    search_fields = ("name", "asset_tag", "serial", "model__name", "model__model_number")
    sort_fields: ClassVar[dict[str, Any]] = {
        key: key for key in ("id", "name", "asset_tag", "serial", "expected_checkin", "created_at")
    } | {"model": "model__name", "model_number": "model__model_number", "location": "location__name"}

    def get_queryset(self):
        return services.requestable_assets(self.request.user).select_related("model", "location", "status")

    @extend_schema(operation_id="account_requestable_hardware_list")
    def get(self, request):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        requested = set(services.open_requests_of(request.user).filter(asset__in=[a.pk for a in page])
                        .values_list("asset_id", flat=True))
        context = {"user_id": request.user.pk, "requested_ids": requested}
        return self.get_paginated_response(RequestableAssetSerializer(page, many=True, context=context).data)


class AssetRequestView(ApiView):
    """``POST account/request/{asset}``: ask for a requestable asset."""

    permission_section = "assets"
    action_permissions: ClassVar[dict[str, str | None]] = {"request": "view.requestable"}
    action = "request"
    not_found_message = services.ASSET_NOT_FOUND

    @extend_schema(operation_id="account_request_create", request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, asset_id: str):
        services.request_create(asset_id=self.object_id(asset_id), actor=request.user)
        return success(None, services.REQUESTED)

    def object_id(self, value: str) -> int:
        value = str(value).strip()
        if not value.isdigit() or len(value) > 18:
            raise self.not_found()
        return int(value)


class AssetRequestCancelView(AssetRequestView):
    """``POST account/request/{asset}/cancel``: withdraw one's own request."""

    @extend_schema(operation_id="account_request_cancel", request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, asset_id: str):
        services.request_cancel(asset_id=self.object_id(asset_id), actor=request.user)
        return success(None, services.CANCELED)


class MyRequestsView(ApiView):
    """``GET account/requests``: the caller's open requests of assets and of models (Snipe-IT answers ``{total,
    rows}``, unpaged)."""

    permission_section = None  # one's own requests

    @extend_schema(operation_id="account_requests_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        rows = list(services.open_requests_of(request.user).select_related("asset__model", "asset__location",
                                                                              "model"))
        return Response({"total": len(rows), "rows": RequestedAssetSerializer(rows, many=True).data})
