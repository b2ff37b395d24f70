"""``GET /reports/activity``: the action log (reference §12), scoped by the log row's company. Also answers the
history of one item (``GET /hardware/{id}/history`` and the other kinds' ``GET <kind>/{id}/history``:
:func:`history_answer`, :class:`HistoryMixin`)."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from decimal import Decimal
from typing import Any, ClassVar

from django.apps import apps
from django.db.models import Q
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from accounts.models import User
from accounts.permissions import has_access
from accounts.services import USER_NOT_FOUND
from activity.choices import ActionType
from activity.models import ActionLog
from assetsvc.api.fields import visible_reference
from assetsvc.api.formats import brief, money, record_date, record_formats
from assetsvc.api.viewsets import ApiViewMixin, ApiViewSet, SearchFilter, SortFilter
from assetsvc.scoping import hidden_company, limiting_company_id
from inventory.models import Asset
from inventory.selectors.depreciation import book_value, end_of_life, floor_value, months_between
from inventory.services.licenses import HIDDEN_KEY, LICENSE, can_view_keys

#: ``item_type`` / ``target_type`` value → (app label, model name) used to resolve names.
KIND_MODELS = {
    "asset": ("inventory", "Asset"),
    "user": ("accounts", "User"),
    "location": ("inventory", "Location"),
    "model": ("inventory", "AssetModel"),
    "accessory": ("inventory", "Accessory"),
    "consumable": ("inventory", "Consumable"),
    "component": ("inventory", "Component"),
    "license": ("inventory", "License"),
    "company": ("companies", "Company"),
    "department": ("accounts", "Department"),
}
ACTION_LABELS = dict(ActionType.choices)
_ID = re.compile(r"^\s*[0-9]{1,18}\s*$")


def _kind(value: Any) -> str:
    """``asset``, ``Asset`` or Snipe-IT's class name ``App\\Models\\Asset`` → ``asset``."""
    return str(value).strip().split("\\")[-1].lower()


def _model_for(kind: str):
    app_label, name = KIND_MODELS.get(kind, ("inventory", kind.capitalize()))
    try:
        return apps.get_model(app_label, name)
    except LookupError:
        return None


def _name_of(obj: Any) -> str:
    full_name = getattr(obj, "full_name", None)
    if full_name is not None and hasattr(obj, "username"):
        return full_name
    return getattr(obj, "name", None) or getattr(obj, "asset_tag", None) or str(obj)


def _load_objects(logs: list[ActionLog]) -> dict[tuple[str, int], Any]:
    """One query per kind of item/target on the page (never one per row)."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for log in logs:
        wanted[log.item_type].add(log.item_id)
        if log.target_type and log.target_id is not None:
            wanted[log.target_type].add(log.target_id)
    found: dict[tuple[str, int], Any] = {}
    for kind, ids in wanted.items():
        model = _model_for(kind)
        if model is None:
            continue
        queryset = model._base_manager.filter(pk__in=ids)
        if kind == "asset":
            queryset = queryset.select_related("model")
        for obj in queryset:
            found[(kind, obj.pk)] = obj
    return found


def _person(user, limit_company_id: int | None) -> dict[str, Any] | None:
    user = visible_reference(user, limit_company_id)
    if user is None:
        return None
    return {"id": user.pk, "name": user.full_name, "first_name": user.first_name, "last_name": user.last_name}


def item_serial(item: Any, item_type: str, show_keys: bool) -> str | None:
    """``item.serial`` of a row; a license's is its product key, shown only to callers who may see keys (Snipe-IT
    shows it to anyone who may read the report)."""
    if item_type == LICENSE.item_type and not show_keys:
        return HIDDEN_KEY
    return getattr(item, "serial", None) if item is not None else None


def _live_item_visible(item: Any, limit_company_id: int | None) -> bool:
    """The item as it is now may be shown: it exists and separation does not hide its current company."""
    return item is not None and not hidden_company(limit_company_id, getattr(item, "company_id", None))


def _item_of(log: ActionLog, item: Any, limit_company_id: int | None, show_keys: bool) -> dict[str, Any]:
    """The row's item as it was recorded (issue 25): its name and serial when the row was written, so a row never
    shows what another company later made of the item. A row written before names were recorded shows the item as
    it is now, only while it is visible to the caller. A license's key is never recorded: it is shown live, to key
    holders, while the license is visible."""
    live = _live_item_visible(item, limit_company_id)
    name = log.item_name if log.item_name is not None else (_name_of(item) if live else None)
    if log.item_type == LICENSE.item_type:
        serial = item_serial(item if live else None, log.item_type, show_keys)
    elif log.item_name is not None:
        serial = log.item_serial
    else:
        serial = item_serial(item, log.item_type, show_keys) if live else None
    return {"id": log.item_id, "name": name, "type": log.item_type, "serial": serial}


def activity_rows(logs, limit_company_id: int | None = None, show_keys: bool = False) -> list[dict[str, Any]]:
    """Rows in Snipe-IT's ``ActionlogsTransformer`` shape; ``log_meta`` keeps raw ``{field: {old, new}}``.

    ``limit_company_id`` (the caller's, under separation) hides another company's people and assets: the actor,
    and a target user or asset, are answered as null / without a name (assetsvc.api.fields.visible_reference).
    A row of another company's item that the caller sees because its target is theirs
    (``ActionLog.target_company``) shows only that: the item's name and serial, the note and the changes are null
    (issue 25). The item is shown as recorded (:func:`_item_of`). ``show_keys``: the caller may see license product
    keys (:func:`item_serial`)."""
    logs = list(logs)
    objects = _load_objects(logs)
    rows = []
    stamp, day = record_formats()
    for log in logs:
        item = objects.get((log.item_type, log.item_id))
        target = objects.get((log.target_type, log.target_id)) if log.target_type else None
        if log.target_type in ("user", "asset"):
            target = visible_reference(target, limit_company_id)
        own = limit_company_id is None or log.company_id == limit_company_id
        if own:
            item_record = _item_of(log, item, limit_company_id, show_keys)
        else:
            item_record = {"id": log.item_id, "name": None, "type": log.item_type, "serial": None}
        live = own and _live_item_visible(item, limit_company_id)
        next_audit = getattr(item, "next_audit_date", None) if log.item_type == "asset" and live else None
        rows.append({
            "id": log.pk,
            "icon": "",
            "file": None,
            "item": item_record,
            "location": brief(log.location),
            "created_at": stamp(log.created_at),
            "updated_at": stamp(log.updated_at),
            "next_audit_date": day(next_audit),
            "days_to_next_audit": (next_audit - log.created_at.date()).days if next_audit else None,
            "action_type": ACTION_LABELS.get(log.action_type, log.action_type),
            "admin": _person(log.created_by, limit_company_id),
            "created_by": _person(log.created_by, limit_company_id),
            "target": ({"id": log.target_id, "name": _name_of(target) if target is not None else None,
                        "type": log.target_type} if log.target_type else None),
            "note": (log.note or None) if own else None,
            "signature_file": None,
            "log_meta": (log.log_meta or None) if own else None,
            "remote_ip": log.remote_ip or None,
            "user_agent": log.user_agent or None,
            "action_source": log.action_source or None,
            "action_date": stamp(log.action_date or log.created_at),
        })
    return rows


class CanViewActivity(BasePermission):
    """``activity.view`` of Snipe-IT: ``reports.view`` or ``admin`` (super users pass everything)."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        return has_access(user, "reports.view") or has_access(user, "admin")


class ActivityQuerySerializer(serializers.Serializer):
    """Query parameters of the activity report (for the schema)."""

    item_type = serializers.CharField(required=False)
    item_id = serializers.IntegerField(required=False)
    target_type = serializers.CharField(required=False)
    target_id = serializers.IntegerField(required=False)
    action_type = serializers.CharField(required=False)


class ActivityReportViewSet(ApiViewSet):
    serializer_class = ActivityQuerySerializer
    queryset = ActionLog.objects.select_related("created_by", "location")
    permission_section = None  # checked by CanViewActivity
    permission_classes = [CanViewActivity]
    filter_backends = [SearchFilter, SortFilter]
    search_fields = ["action_type", "note", "item_type", "target_type", "remote_ip", "user_agent", "action_source",
                     "created_by__username", "created_by__first_name", "created_by__last_name", "company__name"]
    sort_fields = {
        "id": "id", "created_at": "created_at", "target_id": "target_id",
        "created_by": ("created_by__first_name", "created_by__last_name"), "action_type": "action_type",
        "note": "note", "remote_ip": "remote_ip", "user_agent": "user_agent", "target_type": "target_type",
        "item_type": "item_type", "action_source": "action_source", "action_date": "action_date",
    }

    def filter_queryset(self, queryset):
        params = self.input
        item_type, item_id = params.get("item_type"), params.get("item_id")
        if item_type not in (None, "") and item_id not in (None, ""):
            if not _ID.match(str(item_id)):
                return queryset.none()
            queryset = queryset.filter(
                Q(item_type=_kind(item_type), item_id=int(item_id))
                | Q(target_type=_kind(item_type), target_id=int(item_id))
            )
        target_type, target_id = params.get("target_type"), params.get("target_id")
        if target_type not in (None, "") and target_id not in (None, ""):
            if not _ID.match(str(target_id)):
                return queryset.none()
            queryset = queryset.filter(target_type=_kind(target_type), target_id=int(target_id))
        action_type = params.get("action_type")
        if action_type not in (None, ""):
            wanted = str(action_type).strip().lower()
            values = {value for value, label in ActionType.choices if wanted in (value, label)}
            queryset = queryset.filter(action_type__in=values or {wanted})
        for param in ("created_by", "action_source", "remote_ip"):
            value = params.get(param)
            if value not in (None, ""):
                if param == "created_by":
                    if not _ID.match(str(value)):
                        return queryset.none()
                    queryset = queryset.filter(created_by_id=int(value))
                else:
                    queryset = queryset.filter(**{param: str(value)})
        queryset = super().filter_queryset(queryset)
        limit = limiting_company_id(self.request.user)
        if limit is not None and (self.request.query_params.get("search") or "").strip():
            # free text matches notes and names the caller is not shown on rows they see only through their target
            # (issue 25), so a search reaches only the rows of their own company's items
            queryset = queryset.filter(company_id=limit)
        return queryset

    @extend_schema(operation_id="reports_activity_list", parameters=[ActivityQuerySerializer],
                   responses={200: OpenApiResponse(description="{total, rows} of action-log rows")})
    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(activity_rows(page, limiting_company_id(request.user),
                                                         can_view_keys(request.user)))


# --- the history of one item ---------------------------------------------------------------------------------------

HISTORY_RESPONSE = OpenApiResponse(description="{total, rows} of action-log rows (the activity report's rows)")


def history_answer(view, item_type: str, item_id: int, show_keys: bool = False) -> Response:
    """``{total, rows}`` of the action-log rows of one item, newest first, paged as every list: the rows where it is
    the item or the target, those the caller may see by the activity report's rules (``ActionLog.restrict``: the
    item's company, or the target's), shown as there (``activity_rows``). The caller checks that the item itself is
    visible (a missing or hidden item is its kind's not-found answer) and its view permission."""
    user = view.request.user
    logs = ActionLog.objects.restrict(user).for_item(item_type, item_id).select_related(
        "created_by", "location").order_by("-created_at", "-id")
    page = view.paginate_queryset(logs)
    return view.get_paginated_response(activity_rows(page, limiting_company_id(user), show_keys))


class HistoryMixin:
    """``GET <kind>/{id}/history`` on a viewset routed by a router: declare ``history_item_type`` (the action log's
    ``item_type``). The item is found through ``get_object()`` (company separation; soft-deleted items too, as
    ``hardware/{id}/history``); the action needs ``<section>.view``. ``history_shows_keys`` lets key holders see a
    license's product key in the rows, as the activity report does."""

    history_item_type: ClassVar[str]
    history_shows_keys: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.action_permissions = {**getattr(cls, "action_permissions", {}), "history": "view"}
        if hasattr(cls, "with_deleted_actions"):
            cls.with_deleted_actions = cls.with_deleted_actions | {"history"}
        if hasattr(cls, "plain_actions"):
            cls.plain_actions = cls.plain_actions | {"history"}

    @extend_schema(request=None, responses={200: HISTORY_RESPONSE})
    @action(detail=True, methods=["get"])
    def history(self, request, pk=None):
        item = self.get_object()
        show_keys = self.history_shows_keys and can_view_keys(request.user)
        return history_answer(self, self.history_item_type, item.pk, show_keys)


class UserHistoryViewSet(HistoryMixin, ApiViewSet):
    """``GET users/{id}/history``: the rows about a user (as the item, or as the target of checkouts). Served here,
    not by ``/users`` in ``accounts``: the rows name inventory's items, and ``accounts`` sits below ``inventory``."""

    queryset = User.objects.all()  # deleted users too, as GET users/{id}
    serializer_class = ActivityQuerySerializer
    permission_section = "users"
    not_found_message = USER_NOT_FOUND
    history_item_type = "user"


# --- the depreciation report ---------------------------------------------------------------------------------------

DEPRECIATION_COLUMNS = ("id", "asset_tag", "name", "serial", "model", "depreciation", "months", "company",
                        "location", "purchase_date", "purchase_cost", "book_value", "depreciated_by",
                        "monthly_depreciation", "eol_date", "months_left")


def depreciation_row(asset, today) -> dict[str, Any]:
    """One asset of the depreciation report: its cost, its book value today, what it lost, by how much a month,
    when it is fully depreciated and how many whole months are left."""
    depreciation = asset.model.depreciation
    cost = asset.purchase_cost
    value = book_value(cost=cost, purchase_date=asset.purchase_date, months=depreciation.months,
                       depreciation_min=depreciation.depreciation_min,
                       depreciation_type=depreciation.depreciation_type, today=today)
    eol = end_of_life(asset.purchase_date, depreciation.months)
    floor = floor_value(Decimal(cost), depreciation.depreciation_min, depreciation.depreciation_type) \
        if cost is not None else None
    monthly = ((Decimal(cost) - floor) / depreciation.months).quantize(Decimal("0.01")) \
        if cost is not None and depreciation.months else None
    return {
        "id": asset.pk, "asset_tag": asset.asset_tag, "name": asset.name or None, "serial": asset.serial or None,
        "model": {"id": asset.model_id, "name": asset.model.name},
        "depreciation": {"id": depreciation.pk, "name": depreciation.name, "months": depreciation.months},
        "months": depreciation.months,
        "company": {"id": asset.company_id, "name": asset.company.name} if asset.company_id else None,
        "location": {"id": asset.location_id, "name": asset.location.name} if asset.location_id else None,
        "purchase_date": record_date(asset.purchase_date), "purchase_cost": money(cost),
        "book_value": money(value),
        "depreciated_by": money(Decimal(cost) - value) if cost is not None and value is not None else None,
        "monthly_depreciation": money(monthly), "eol_date": record_date(eol),
        "months_left": (months_between(today, eol) if eol and eol > today else 0) if eol else None,
    }


def _cell(value: Any) -> str:
    """A CSV cell a spreadsheet will not run as a formula (a tag or name starting with ``=``, ``+``, ``-``, ``@``)."""
    text = str(value)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _flat(value: Any) -> Any:
    if isinstance(value, dict):
        return value.get("name", value.get("date", ""))
    return "" if value is None else value


class CanViewReports(CanViewActivity):
    """Snipe-IT's reports gate: ``reports.view`` (or ``admin``)."""


class DepreciationReportView(ApiViewMixin, GenericAPIView):
    """``GET reports/depreciation``: the assets whose model depreciates, with cost, book value and end of life;
    ``?format=csv`` (or ``Accept: text/csv``) answers every row as a CSV file instead of a page. A report, not a
    resource: listed, searched, sorted and paged as every list, and limited to the assets the caller may see."""

    queryset = Asset.objects.filter(deleted_at__isnull=True, model__depreciation__isnull=False)
    permission_section = None  # checked by CanViewReports
    permission_classes = [CanViewReports]
    filter_backends = [SearchFilter, SortFilter]
    search_fields = ["asset_tag", "name", "serial", "model__name", "model__depreciation__name"]
    sort_fields = {key: key for key in ("id", "asset_tag", "name", "serial", "purchase_date", "purchase_cost",
                                        "created_at")} | {"model": "model__name",
                                                          "depreciation": "model__depreciation__name"}
    default_sort = "id"
    default_order = "asc"

    def get_queryset(self):
        return (super().get_queryset().restrict(self.request.user)
                .select_related("model", "model__depreciation", "company", "location"))

    def wants_csv(self) -> bool:
        return (str(self.request.query_params.get("format", "")).lower() == "csv"
                or "text/csv" in self.request.headers.get("Accept", ""))

    @extend_schema(operation_id="reports_depreciation_list", responses={200: inline_serializer(
        "DepreciationReport", {"total": serializers.IntegerField(),
                               "rows": serializers.ListField(child=serializers.DictField())})})
    def get(self, request):
        today = timezone.localdate()
        queryset = self.filter_queryset(self.get_queryset())
        if self.wants_csv():
            return self.csv_answer(queryset, today)
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response([depreciation_row(asset, today) for asset in page])

    def csv_answer(self, queryset, today) -> StreamingHttpResponse:
        class Echo:
            def write(self, value):
                return value

        writer = csv.writer(Echo())

        def lines():
            yield writer.writerow(DEPRECIATION_COLUMNS)
            for asset in queryset.iterator(chunk_size=2000):
                row = depreciation_row(asset, today)
                yield writer.writerow([_cell(_flat(row[key])) for key in DEPRECIATION_COLUMNS])

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="depreciation-{today.isoformat()}.csv"'
        return response
