"""``/hardware`` endpoints (specification "Assets", API-CONTRACT.md §6, reference §4). Thin: validate, call one
service from ``inventory.services.assets``, answer the record or Snipe-IT's envelope."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from django.db.models import Count, Window
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response

from accounts.models import User
from accounts.services import USER_NOT_FOUND
from activity.choices import ActionType
from activity.models import ActionLog
from assetsvc.api.exceptions import BadQueryParameter
from assetsvc.api.formats import iso_date
from assetsvc.api.inputs import parse_flag
from assetsvc.api.viewsets import SELECTLIST_KEYS, ApiViewSet, SelectListMixin, SortFilter, success, success_envelope
from assetsvc.registry import hook
from assetsvc.site import get_site_settings
from companies.querysets import caller_chooses_company
from inventory import custom_values, labels
from inventory.api.assets.batch import AssetBatchMixin
from inventory.api.assets.bulk import (
    AUDIT_TEXTS,
    NOTHING_TO_UPDATE,
    AssetBulkAuditSerializer,
    AssetBulkUpdateSerializer,
    BulkAuditAnswer,
    BulkUpdateAnswer,
    batch_answer,
    batch_ids,
    field_errors,
    forbidden_keys,
    refuse_batch,
    run_rows,
)
from inventory.api.assets.records import (
    ASSET_RELATED,
    AssetRecordSerializer,
    AssetWriteRecordSerializer,
    asset_rows,
    caller_permissions,
    is_available,
)
from inventory.api.assets.serializers import (
    AssetAuditSerializer,
    AssetCheckinSerializer,
    AssetCheckoutSerializer,
    AssetNoteSerializer,
    AssetTagSerializer,
    AssetUpdateSerializer,
    AssetWriteSerializer,
    NoteRecordSerializer,
)
from inventory.api.base import LOCATION_NOT_FOUND, MODEL_NOT_FOUND, STATUS_LABEL_NOT_FOUND
from inventory.api.checkout import TARGET_KEYS, TARGET_TYPE_OF_KEY, CheckoutActionsMixin
from inventory.api.reports import history_answer
from inventory.choices import StatusType
from inventory.custom_values import lookups as custom_filters
from inventory.exceptions import AssetNotAvailableError, AssetNotFoundError
from inventory.models import Asset, AssetModel, Location, StatusLabel
from inventory.selectors import assets as selectors
from inventory.services import assets as services
from inventory.services import assets_bulk
from inventory.services.checkout import resolve_target
from inventory.tags import tag_matches

_ID = re.compile(r"^[0-9]{1,18}$")


#: What the schema says of the custom field keys an asset write takes besides the serializer's fields.
CUSTOM_KEYS_DOC = (
    "Custom field values: top-level `_snipeit_<column>` keys (the fields' `db_column_name`) of the fields of the "
    "asset's (new) model's fieldset, and a nested `custom_fields` object keyed by field name or column, whose wrong "
    "entries are skipped and named in the success text (docs/custom-fields.md, API-CONTRACT.md §11.1). The answer "
    "echoes each written column as sent.")


def _doc(operation_id: str, request=None, response=None, description: str | None = None):
    """Schema of a route: its own operation id (several paths share an action) and its answer: ``response`` (a
    record serializer, ``many=True`` for the ``{total, rows}`` list, or a :func:`success_envelope`), else Snipe-IT's
    shape described in words."""
    if response is None:
        response = OpenApiResponse(description="Snipe-IT shape (see docs/assets.md)")
    return extend_schema(operation_id=operation_id, request=request, responses={200: response},
                         description=description)


ASSET_LIST = AssetRecordSerializer(many=True)
#: Verbs whose service locks and re-reads the asset: the URL's asset needs no relations (compiling a 13-relation
#: select cost more than the verb's SQL).
VERB_ACTIONS = frozenset({"checkout", "checkin", "audit", "bulk_partial_update", "bulk_update", "bulk_audit"})
#: Actions that never read the 13 relations through the queryset: the lists page ids and load rows by
#: ``records.asset_rows``, a read checks visibility by id, a verb locks and re-reads. Their queryset has no
#: ``select_related`` (Django deep-copies it on every clone: a fifth of a detail read's Python time, issue 13).
WITHOUT_RELATIONS = VERB_ACTIONS | {"list", "retrieve", "upcoming", "byserial", "user_assets", "qr", "selectlist",
                                   "status_label_assets", "location_assets", "location_assigned_assets",
                                   "model_assets", "assigned_assets", "note_store", "note_index"}
#: Actions whose lookups also find soft-deleted assets.
WITH_DELETED = {"retrieve", "restore", "history", "list", "upcoming", "byserial", "bytag", "user_assets", "qr",
                "assigned_assets", "note_index"}


class AssetViewSet(SelectListMixin, AssetBatchMixin, CheckoutActionsMixin, ApiViewSet):
    """Every ``/hardware`` route; each URL pattern maps HTTP methods to one of these actions."""

    queryset = Asset.objects.all()  # the relations are added by get_queryset, for the actions that read them
    checkout_kind = services.ASSET
    checkout_serializer_class = AssetCheckoutSerializer
    checkin_serializer_class = AssetCheckinSerializer
    serializer_class = AssetRecordSerializer  # the record: answers and the schema's responses
    permission_section = "assets"
    action_permissions = {
        "checkout": "checkout",
        "checkin": "checkin",
        "audit": "audit",
        "restore": "delete",
        "history": "view",
        "qr": "view",
        "bytag": "view",
        "bytag_suffixed": "view",
        "byserial": "view",
        "upcoming": "view",
        "user_assets": "view",
        "bytag_checkout": "checkout",
        "bytag_checkin": "checkin",
        "checkin_by_tag": "checkin",
        "audit_by_tag": "audit",
        "bulk_partial_update": "edit",
        "bulk_update": "edit",
        "bulk_audit": "audit",
        "bytag_action": None,  # replaced in initial() by bytag_checkout / bytag_checkin
        "selectlist": None,  # SelectListMixin: assets.view or a select-list key
        # lists of assets under another record: assets.view, and the record's view key checked by owned_list
        "status_label_assets": "view",
        "location_assets": "view",
        "location_assigned_assets": "view",
        "model_assets": "view",
        "assigned_assets": "view",
        "note_store": "edit",  # Snipe-IT: update on the asset
        "note_index": "view",
    }
    selectlist_keys = SELECTLIST_KEYS
    selectlist_search_fields = ("name", "asset_tag", "serial", "model__name", "assigned_user__first_name",
                                "assigned_user__last_name", "assigned_user__username")
    selectlist_ordering = ("name", "asset_tag", "id")
    not_found_message = "Asset does not exist."
    # ``?search=`` is ``selectors.search_assets`` (in filter_queryset): the generic SearchFilter would join twelve
    # tables to every asset; the selector matches related names in their own small tables first.
    filter_backends = [SortFilter]
    sort_fields = {
        "id": "id", "name": "name", "asset_tag": "asset_tag", "serial": "serial", "model": "model__name",
        "model_number": "model__model_number", "last_checkout": "last_checkout", "last_checkin": "last_checkin",
        "category": "model__category__name", "manufacturer": "model__manufacturer__name", "notes": "notes",
        "expected_checkin": "expected_checkin", "order_number": "order_number", "company": "company__name",
        "location": "location__name", "rtd_location": "rtd_location__name", "status_label": "status__name",
        "supplier": "supplier__name", "assigned_to": ("assigned_user__first_name", "assigned_user__last_name"),
        "created_at": "created_at", "updated_at": "updated_at", "purchase_date": "purchase_date",
        "purchase_cost": "purchase_cost", "last_audit_date": "last_audit_date", "next_audit_date": "next_audit_date",
        "warranty_months": "warranty_months", "checkout_counter": "checkout_counter",
        "checkin_counter": "checkin_counter", "requests_counter": "requests_counter", "byod": "byod",
        "requestable": "requestable", "created_by": ("created_by__first_name", "created_by__last_name"),
    }

    def extra_sort(self, queryset, key: str, descending: bool):
        """``SortFilter``'s hook: ``sort=<column>`` / ``custom_fields.<column>`` of a custom field (§11.2)."""
        field = custom_filters.sort_key(key)
        return None if field is None else custom_filters.order_by_field(queryset, field, descending)

    # -- plumbing ---------------------------------------------------------------------------------------------

    def initial(self, request, *args, **kwargs):
        if self.action == "bytag_action":
            self.action = f"bytag_{kwargs['verb']}"
        if self.action == "byserial" and "\x00" in kwargs.get("serial", ""):
            # byserial always answers the list envelope (API-CONTRACT.md §6); byserial() answers "none" for it.
            kwargs = {key: value for key, value in kwargs.items() if key != "serial"}
        super().initial(request, *args, **kwargs)

    def perform_content_negotiation(self, request, force=False):
        # ``?format=`` of the QR route names the image, not one of DRF's renderers: its errors stay JSON envelopes.
        return super().perform_content_negotiation(request, force=force or self.action == "qr")

    @cached_property
    def perms(self) -> dict[str, bool]:
        return caller_permissions(self.request.user)

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "perms": self.perms}

    def write_record(self, asset: Asset, custom: custom_values.CustomInput | None = None) -> dict[str, Any]:
        """Create/update answers: the record re-read, with the flat foreign keys and the custom columns (those the
        write wrote as they were sent)."""
        context = {**self.get_serializer_context(), "echo": custom.echo if custom else {}}
        return AssetWriteRecordSerializer(self.reload(asset), context=context).data

    # -- custom field values (API-CONTRACT.md §11.1) ----------------------------------------------------------------

    @cached_property
    def _fieldset_slots(self) -> dict[int | None, list[custom_values.Slot]]:
        return {None: []}

    def slots_of(self, model) -> list[custom_values.Slot]:
        """The fields of ``model``'s fieldset, read once per request and fieldset (a bulk update asks per row)."""
        key = getattr(model, "fieldset_id", None)
        if key not in self._fieldset_slots:
            self._fieldset_slots.update(custom_values.fieldset_slots([key]))
        return self._fieldset_slots[key]

    def read_custom(self, data: dict[str, Any], *, model, asset: Asset | None = None,
                    audit: bool = False, **batch: Any) -> custom_values.CustomInput | None:
        """The write's custom values against the fields of ``model`` (the asset's new or current model); None when
        the write has none and cannot miss a required one (an update that keeps the model). ``batch``: a bulk
        update's ``existing`` (the stored values, read for the batch), ``known`` and ``check_unique``
        (``custom_values.read_input``)."""
        creating = asset is None
        model_changed = not creating and model is not None and model.pk != asset.model_id
        if not custom_values.has_custom_input(data) and not creating and not model_changed:
            return None
        # the stored values matter only for the required fields of a new model (written values are re-read under
        # the asset's lock by the service)
        existing = batch.pop("existing", None)
        if existing is None:
            existing = custom_values.values_of([asset.pk]).get(asset.pk, {}) if model_changed else {}
        return custom_values.read_input(
            data, slots=self.slots_of(model), may_write_encrypted=self.perms["encrypted"], existing=existing,
            asset_pk=asset.pk if asset is not None else None, creating=creating, model_changed=model_changed,
            audit=audit, **batch)

    def validated_write(self, serializer_class, data: dict[str, Any], asset: Asset | None = None):
        """The write's serializer and custom values, every field error of both reported at once. The custom keys are
        read against the fields of the model the write names (when valid) or the asset's; an invalid ``model_id``
        is reported alone, as its fieldset is unknown."""
        serializer = serializer_class(data=data, context={"request": self.request,
                                                          "asset_pk": asset.pk if asset else None})
        errors: dict[str, list[str]] = {}
        try:
            serializer.is_valid(raise_exception=True)
        except exceptions.ValidationError as exc:
            errors = field_errors(exc)
        custom = None
        may_have_custom = asset is None or "model_id" in data or custom_values.has_custom_input(data)
        if "model_id" not in errors and may_have_custom:
            custom = self.read_custom(data, model=self.written_model(serializer, data, asset), asset=asset)
            errors = {**errors, **(custom.errors if custom else {})}
        if errors:
            raise exceptions.ValidationError(errors)
        return serializer, custom

    @staticmethod
    def written_model(serializer, data: dict[str, Any], asset: Asset | None):
        """The model the asset will have: the write's valid ``model_id``, else the asset's own."""
        if hasattr(serializer, "_validated_data"):
            model = serializer.validated_data.get("model_id")
        elif data.get("model_id") not in (None, ""):
            try:
                model = serializer.fields["model_id"].run_validation(data["model_id"])
            except exceptions.ValidationError:
                model = None
        else:
            model = None
        if model is None and asset is not None:
            model = asset.model
        return model

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action not in WITHOUT_RELATIONS:
            queryset = queryset.select_related(*ASSET_RELATED)
        return queryset if self.action in WITH_DELETED else queryset.alive()

    def get_object(self) -> Asset:
        """The asset of the URL's id, through the scoped queryset. No ``ORDER BY`` (one row by its key: ordering by
        the default sort only cost compiling); a read loads only the columns the record shows, as a list does."""
        pk = str(self.kwargs.get("pk", "")).strip()
        if not _ID.match(pk):
            raise self.not_found()
        scoped = self.get_queryset()
        if self.action == "retrieve":
            # Visible? on the narrow scoped query; then the record's row by the list's loader (compiled once). A
            # caller nothing is hidden from (no condition in the scoped query) skips the check: the row is the answer.
            if scoped.query.where:
                visible = list(scoped.filter(pk=int(pk)).order_by().values_list("pk", flat=True)[:1])
            else:
                visible = [int(pk)]
            found = asset_rows(visible) if visible else []
            asset = found[0] if found else None
        else:
            asset = next(iter(scoped.filter(pk=int(pk)).order_by()[:1]), None)
        if asset is None:
            raise self.not_found()
        return asset

    def selectlist_queryset(self):
        """Live assets whose status is not archived (Snipe-IT's ``NotArchived``); ``assetStatusType=RTD`` keeps the
        ones ready to deploy; ``companyId`` narrows to one company with separation on (as Snipe-IT)."""
        queryset = self.get_queryset().alive().exclude(status__type=StatusType.ARCHIVED)
        params = self.request.query_params
        if params.get("assetStatusType") == "RTD":
            queryset = queryset.filter(status__type=StatusType.DEPLOYABLE, assigned_user__isnull=True,
                                       assigned_asset__isnull=True, assigned_location__isnull=True)
        company = str(params.get("companyId") or "").strip()
        if company and get_site_settings().full_multiple_companies_support:
            queryset = queryset.filter(company_id=int(company)) if _ID.match(company) else queryset.none()
        return queryset.select_related("model", "status", "assigned_user").order_by(*self.selectlist_ordering)

    def selectlist_text(self, asset: Asset) -> str:
        """Snipe-IT's words: ``<name> (<tag>) - <model>``, `` → <holder>`` for a user, ``(pending)``."""
        text = asset.name or ""
        text += f" ({asset.asset_tag})" if asset.asset_tag else ""
        text += f" - {asset.model.name}" if asset.model_id else ""
        if asset.assigned_user is not None:
            text += f" → {asset.assigned_user.full_name}"
        if asset.status.type == StatusType.PENDING:
            text += "(pending)"
        return text.strip()

    def by_tag(self, tag: str, *, message: str | None = None, payload: Any = None) -> Asset:
        asset = self.get_queryset().alive().filter(tag_matches(tag)).first()
        if asset is None:
            raise AssetNotFoundError(message or self.not_found_message, payload=payload)
        return asset

    def reload(self, asset: Asset) -> Asset:
        """The record's row after a write, re-read through the scoped queryset (as every read is)."""
        return self.get_queryset().get(pk=asset.pk)

    def list_response(self, queryset, total: int | None = None) -> Response:
        """Two steps ("deferred join"): count and page the ids on the narrow query (only the joins a sort by a
        related name needs), then load that page's rows by id with every relation the record shows. Skipped rows
        of a deep offset are never joined, and the planner of the wide query sees 50 ids, not a table to order
        (docs/performance.md). One query more than a single-step page, whatever the page size. The relations load
        only the columns the record shows (``records.ROW_COLUMNS``). ``total``: the list's exact size when known
        without counting (``selectors.tallied_total``)."""
        params = self.request.query_params
        if selectors.counted_with_page(self.input) and self.paginator.cursor_query_param not in params:
            ids = self.paginator.paginate_counted(
                queryset.annotate(rows_total=Window(Count("*"))).values_list("pk", "rows_total"), self.request)
        else:
            ids = self.paginator.paginate_queryset(queryset.values_list("pk", flat=True), self.request, self,
                                                   total=total)
        return self.get_paginated_response(self.get_serializer(asset_rows(list(ids)), many=True).data)


    def write_input(self) -> dict[str, Any]:
        data = dict(self.input)
        if not caller_chooses_company(self.request.user):
            data.pop("company_id", None)  # rule 7: the caller's own company, whatever company_id says
        return data

    def write_target(self, serializer) -> User | Asset | Location | None:
        request = serializer.target_request()
        if request is None:
            return None
        target = resolve_target(*request, self.request.user)
        if target is None:
            key = next(k for k in TARGET_KEYS if TARGET_TYPE_OF_KEY[k] == request[0])
            raise exceptions.ValidationError({key: [f"The selected {key.replace('_', ' ')} is invalid."]})
        return target

    # -- reads --------------------------------------------------------------------------------------------------

    def filter_queryset(self, queryset, params: dict[str, Any] | None = None):
        """The hardware list's filters and search (``params``: the request's input unless given), then its sort."""
        params = self.input if params is None else params
        queryset = selectors.filter_assets(queryset, params)
        queryset = selectors.search_assets(queryset, selectors.search_text(params))
        return super().filter_queryset(queryset)

    @_doc("hardware_list", response=ASSET_LIST)
    def list(self, request):
        queryset = self.filter_queryset(self.get_queryset())
        if self.paginator.cursor_query_param in request.query_params:
            return self.list_response(queryset)  # a keyset page counts nothing
        return self.list_response(queryset, selectors.tallied_total(self.input, selectors.search_text(self.input),
                                                                    request.user))

    @_doc("hardware_upcoming_list", response=ASSET_LIST)
    def upcoming(self, request, kind: str, when: str):
        queryset = selectors.upcoming(self.filter_queryset(self.get_queryset()), kind, when)
        return self.list_response(queryset)

    @_doc("users_assets_list", response=ASSET_LIST)
    def user_assets(self, request, user_pk: str):
        """``GET users/{id}/assets``: the live assets checked out to a user the caller may see (Snipe-IT's "who has
        what"), as a hardware list. An unknown user, or one of another company, is the users' not-found error."""
        pk = str(user_pk).strip()
        visible = User.objects.restrict(request.user).filter(pk=int(pk)).exists() if _ID.match(pk) else False
        if not visible or not hook("permission_checker")(request.user, "users.view"):
            if visible:
                raise exceptions.PermissionDenied()
            raise self.not_found(USER_NOT_FOUND)
        return self.list_response(self.filter_queryset(self.get_queryset().alive().filter(assigned_user_id=int(pk))))

    def owned_list(self, owners, pk: Any, *, key: str, message: str, filters: dict[str, Any]) -> Response:
        """The hardware list of the assets under the record ``pk`` of ``owners`` (scoped when its kind is): the list's
        ``filters`` (``GET /hardware``'s, so archived assets are hidden as there unless ``status_id`` names their
        label) over the caller's other parameters (filters, search, sort, pages), company separation through
        ``get_queryset``. The record must be visible (else ``message``, as a missing id); the caller needs its
        ``key`` besides ``assets.view``."""
        pk = str(pk if pk is not None else "").strip()
        visible = owners.filter(pk=int(pk)).exists() if _ID.match(pk) else False
        if not visible:
            raise self.not_found(message)
        if not hook("permission_checker")(self.request.user, key):
            raise exceptions.PermissionDenied()
        params = {**self.input, **{name: value.format(id=int(pk)) for name, value in filters.items()}}
        return self.list_response(self.filter_queryset(self.get_queryset(), params))

    @_doc("statuslabels_assetlist_list", response=ASSET_LIST)
    def status_label_assets(self, request, pk: str):
        """``GET statuslabels/{id}/assetlist``: the assets with that status label (needs ``statuslabels.view``)."""
        return self.owned_list(StatusLabel.objects.all(), pk, key="statuslabels.view",
                               message=STATUS_LABEL_NOT_FOUND, filters={"status_id": "{id}"})

    @_doc("locations_assets_list", response=ASSET_LIST)
    def location_assets(self, request, pk: str):
        """``GET locations/{id}/assets``: the assets whose current location is that location (Snipe-IT's
        ``location_id``), checked out or not."""
        return self.owned_list(Location.objects.all(), pk, key="locations.view",
                               message=LOCATION_NOT_FOUND, filters={"location_id": "{id}"})

    @_doc("locations_assigned_assets_list", response=ASSET_LIST)
    def location_assigned_assets(self, request, pk: str):
        """``GET locations/{id}/assigned/assets``: the assets checked out to that location."""
        return self.owned_list(Location.objects.all(), pk, key="locations.view",
                               message=LOCATION_NOT_FOUND,
                               filters={"assigned_to": "{id}", "assigned_type": "location"})

    @_doc("models_assets_list", response=ASSET_LIST)
    def model_assets(self, request):
        """``GET models/assets?model_id={id}``: the assets of one model (Snipe-IT routes this path without an id and
        fails; docs/decisions.md). ``id`` is accepted for ``model_id``."""
        pk = self.input.get("model_id", self.input.get("id"))
        return self.owned_list(AssetModel.objects.all(), pk, key="models.view", message=MODEL_NOT_FOUND,
                               filters={"model_id": "{id}"})

    @_doc("hardware_assigned_assets_list", response=ASSET_LIST)
    def assigned_assets(self, request, pk=None):
        """``GET hardware/{id}/assigned/assets``: the assets checked out to that asset (Snipe-IT answers ``[]``, its
        "to do"; docs/decisions.md). The asset is found as ``GET hardware/{id}`` finds it."""
        asset = self.get_object()
        params = {**self.input, "assigned_to": asset.pk, "assigned_type": "asset"}
        return self.list_response(self.filter_queryset(self.get_queryset(), params))

    @_doc("hardware_retrieve", response=AssetRecordSerializer)
    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    @_doc("hardware_bytag_retrieve", response=OpenApiResponse(
        AssetRecordSerializer, description="The record; with ``deleted=true``, the ``{total, rows}`` list of every "
        "asset with the tag, deleted or not."))
    def bytag(self, request, tag: str, verb: str | None = None):
        tag = f"{tag}/{verb}" if verb else tag
        queryset = self.get_queryset().filter(tag_matches(tag))
        if parse_flag(self.input.get("deleted")):
            return self.list_response(queryset.order_by("-created_at", "-id"))
        asset = queryset.alive().first()
        if asset is None:
            raise self.not_found()
        return Response(self.get_serializer(asset).data)

    @_doc("hardware_byserial_list", response=ASSET_LIST)
    def byserial(self, request, serial: str):
        if "\x00" in serial:  # no serial holds a NUL, and PostgreSQL cannot compare one
            return self.list_response(self.get_queryset().none().order_by("id"))
        queryset = self.get_queryset().filter(serial__iexact=serial.strip())
        if not parse_flag(self.input.get("deleted")):
            queryset = queryset.alive()
        return self.list_response(queryset.order_by("-created_at", "-id"))

    @_doc("hardware_history_list")
    def history(self, request, pk=None):
        return history_answer(self, "asset", self.get_object().pk)

    @_doc("notes_store_create", request=AssetNoteSerializer, response=success_envelope(NoteRecordSerializer))
    def note_store(self, request, pk=None):
        """``POST notes/{id}/store``: add a note to a live asset (an action-log row of type ``note added``, shown in
        its history too); needs ``assets.edit``, as Snipe-IT's ``update`` on the asset."""
        asset = self.get_object()
        if asset.deleted_at is not None:
            raise self.not_found()
        serializer = AssetNoteSerializer(data=self.input, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        log = services.asset_note_add(asset=asset, actor=request.user, note=serializer.validated_data["note"])
        log = ActionLog.objects.select_related("created_by").get(pk=log.pk)
        return success(NoteRecordSerializer(log, context=self.get_serializer_context()).data, "Note Added")

    @_doc("notes_index_list", response=NoteRecordSerializer(many=True))
    def note_index(self, request, pk=None):
        """``GET notes/{id}/index``: the asset's notes, newest first, as a ``{total, rows}`` list; the rows the
        activity report's rules let the caller see (``ActionLog.restrict``)."""
        asset = self.get_object()
        notes = ActionLog.objects.restrict(request.user).filter(
            item_type="asset", item_id=asset.pk, action_type=ActionType.NOTE_ADDED,
        ).select_related("created_by").order_by("-created_at", "-id")
        page = self.paginate_queryset(notes)
        return self.get_paginated_response(NoteRecordSerializer(page, many=True,
                                                                context=self.get_serializer_context()).data)

    @extend_schema(
        operation_id="hardware_qr_retrieve",
        parameters=[OpenApiParameter("format", str, enum=tuple(labels.QR_FORMATS), default=labels.QR_DEFAULT_FORMAT,
                                     description="The image's format.")],
        responses={(200, "image/svg+xml"): OpenApiTypes.BINARY, (200, "image/png"): OpenApiTypes.BINARY,
                   400: OpenApiResponse(description="A ``format`` other than svg or png (in both modes).")})
    def qr(self, request, pk=None):
        """``GET hardware/{id}/qr``: the asset's label code (its tag and its admin page's absolute address), visible
        as ``GET hardware/{id}`` is."""
        asset = self.get_object()
        fmt = str(request.query_params.get("format") or labels.QR_DEFAULT_FORMAT).strip().lower()
        if fmt not in labels.QR_FORMATS:
            raise BadQueryParameter("format", "The format must be svg or png.")
        url = request.build_absolute_uri(labels.admin_path(asset))
        return HttpResponse(labels.asset_qr(asset, url, fmt), content_type=labels.QR_FORMATS[fmt])

    # -- writes -------------------------------------------------------------------------------------------------

    @_doc("hardware_create", AssetWriteSerializer, success_envelope(AssetWriteRecordSerializer),
          description=CUSTOM_KEYS_DOC)
    def create(self, request):
        serializer, custom = self.validated_write(AssetWriteSerializer, self.write_input())
        target = self.write_target(serializer)
        asset = services.asset_create(actor=request.user, data=serializer.asset_data(), target=target, custom=custom)
        text = "Asset created successfully. :)"
        return success(self.write_record(asset, custom), custom.message(text, "create") if custom else text)

    @_doc("hardware_partial_update", AssetUpdateSerializer, success_envelope(AssetWriteRecordSerializer),
          description=CUSTOM_KEYS_DOC)
    def partial_update(self, request, pk=None):
        asset = self.get_object()
        serializer, custom = self.validated_write(AssetUpdateSerializer, self.write_input(), asset)
        target = self.write_target(serializer)
        asset = services.asset_update(asset=asset, actor=request.user, data=serializer.asset_data(), target=target,
                                      custom=custom)
        text = "Asset updated successfully."
        return success(self.write_record(asset, custom), custom.message(text, "update") if custom else text)

    @_doc("hardware_update", AssetUpdateSerializer, success_envelope(AssetWriteRecordSerializer),
          description=f"PUT is partial too (API-CONTRACT.md §1). {CUSTOM_KEYS_DOC}")
    def update(self, request, pk=None):
        """PUT is partial too (API-CONTRACT.md §1)."""
        return self.partial_update(request, pk)

    @_doc("hardware_destroy", response=success_envelope(None))
    def destroy(self, request, pk=None):
        services.asset_delete(asset=self.get_object(), actor=request.user)
        return success(None, "The asset was deleted successfully.")

    @_doc("hardware_restore", response=success_envelope(AssetRecordSerializer))
    def restore(self, request, pk=None):
        asset = services.asset_restore(asset=self.get_object(), actor=request.user)
        return success(self.get_serializer(self.reload(asset)).data, "Asset restored successfully.")

    # -- checkout / checkin / audit -----------------------------------------------------------------------------

    def checkout_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"checkout_at": data.get("checkout_at"), "expected_checkin": data.get("expected_checkin"),
                "status": data.get("status_id"), "name": data.get("name")}

    def checkin_options(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"location": data.get("location_id"), "status": data.get("status_id"), "name": data.get("name"),
                "checkin_at": data.get("checkin_at")}

    def target_not_usable(self, item: Asset, target_type: str, target_id: int) -> Exception:
        """An unavailable asset is refused as such before its target is judged (Snipe-IT's order)."""
        if not is_available(item):
            return AssetNotAvailableError(item.asset_tag)
        return super().target_not_usable(item, target_type, target_id)

    def _checkout(self, asset: Asset) -> Response:
        self.perform_checkout(asset)
        return success({"asset": asset.asset_tag}, "Asset checked out successfully.")

    @_doc("hardware_checkout", AssetCheckoutSerializer)
    def checkout(self, request, pk=None):
        return self._checkout(self.get_object())

    def bytag_checkout(self, tag: str):
        return self._checkout(self.by_tag(tag, message="Asset not found"))

    def _checkin(self, asset: Asset) -> Response:
        asset = self.perform_checkin(asset)
        model = asset.model
        return success({"asset_tag": asset.asset_tag, "model": model.name, "model_number": model.model_number},
                       "Asset checked in successfully.")

    @_doc("hardware_checkin", AssetCheckinSerializer)
    def checkin(self, request, pk=None):
        return self._checkin(self.get_object())

    def _checkin_tag(self, tag: str) -> Asset:
        return self.by_tag(tag, message=f"Asset with tag {tag} not found", payload={"asset": tag})

    def bytag_checkin(self, tag: str):
        return self._checkin(self._checkin_tag(tag))

    @extend_schema(exclude=True)
    def bytag_suffixed(self, request, tag: str, verb: str):
        """GET of a tag that ends in ``/checkout`` or ``/checkin``."""
        return self.bytag(request, tag, verb)

    @_doc("hardware_bytag_checkout_checkin", AssetCheckoutSerializer)
    def bytag_action(self, request, tag: str, verb: str):
        return self.bytag_checkout(tag) if verb == "checkout" else self.bytag_checkin(tag)

    @_doc("hardware_checkinbytag", AssetTagSerializer)
    def checkin_by_tag(self, request):
        tag = self.validated(AssetTagSerializer).validated_data["asset_tag"]
        return self._checkin(self._checkin_tag(tag))

    def _audit(self, asset: Asset) -> Response:
        data = self.validated(AssetAuditSerializer).validated_data
        custom = self.audit_custom(asset)
        return success(self.audit_payload(data, asset, custom), custom.message(AUDIT_TEXTS["one"], "audit"))

    def audit_custom(self, asset: Asset) -> custom_values.CustomInput:
        """The audit's custom values: the fields flagged ``display_audit`` of the asset's fieldset (other columns are
        named in the text); a wrong value refuses the audit with its field error."""
        if not custom_values.has_custom_input(self.input):
            return custom_values.CustomInput()
        custom = self.read_custom(self.input, model=asset.model, asset=asset, audit=True)
        if custom.errors:
            raise exceptions.ValidationError(custom.errors)
        return custom

    def audit_payload(self, data: dict[str, Any], asset: Asset, custom: custom_values.CustomInput) -> dict[str, Any]:
        """Audit ``asset`` with the validated audit input and its custom values; the answer's payload."""
        asset, log = services.asset_audit(
            asset=asset, actor=self.request.user, note=data.get("note") or "",
            next_audit_date=data.get("next_audit_date"), location=data.get("location_id"), custom=custom,
        )
        return {"id": asset.pk, "asset_tag": asset.asset_tag, "note": log.note or None,
                "next_audit_date": iso_date(asset.next_audit_date), "custom_fields": dict(custom.echo)}

    @_doc("hardware_audit", AssetAuditSerializer)
    def audit(self, request, pk=None):
        return self._audit(self.get_object())

    @_doc("hardware_audit_legacy", AssetTagSerializer)
    def audit_by_tag(self, request):
        tag = self.validated(AssetTagSerializer).validated_data["asset_tag"]
        return self._audit(self.by_tag(tag))

    # -- bulk update / bulk audit (API-CONTRACT.md §12) -------------------------------------------------------------

    @_doc("hardware_bulk_partial_update", AssetBulkUpdateSerializer, BulkUpdateAnswer)
    def bulk_partial_update(self, request):
        """``PATCH hardware/bulk``: one change for many assets, each row judged as a single PATCH; written set-based
        by ``asset_update_many`` (a fixed number of statements for the batch, issue 25), or row by row by
        ``asset_update`` when the change needs it (a serial under ``unique_serial``) or a concurrent writer took a
        unique value the batch writes."""
        data = self.write_input()
        ids = batch_ids(data)
        serializer, has_custom = self.batch_change(AssetBulkUpdateSerializer, data, ids, forbidden_keys(data))
        change = serializer.asset_data()
        if not change and not has_custom:
            raise refuse_batch(ids, NOTHING_TO_UPDATE)
        found = self.batch_assets(ids)
        if assets_bulk.update_many_is_set_based(change):
            try:
                return self.bulk_answer(*self.bulk_set_based(data, ids, found, change))
            except assets_bulk.BatchConflict:
                pass  # nothing was written: every row again, by the row path
        customs: dict[int, custom_values.CustomInput | None] = {}

        def update(asset: Asset) -> Asset:
            customs[asset.pk] = custom = self.row_custom(data, asset, change.get("model"))
            return services.asset_update(asset=asset, actor=request.user, data=change, custom=custom)

        results, done = run_rows(ids, found, update)
        return self.bulk_answer(results, done, customs)

    @_doc("hardware_bulk_update", AssetBulkUpdateSerializer, BulkUpdateAnswer)
    def bulk_update(self, request):
        """PUT is partial too (API-CONTRACT.md §1)."""
        return self.bulk_partial_update(request)

    @_doc("hardware_audit_bulk", AssetBulkAuditSerializer, BulkAuditAnswer)
    def bulk_audit(self, request):
        """``POST hardware/audit/bulk``: one audit for many assets, each row by ``asset_audit`` as a single audit (the
        fields flagged ``display_audit`` of each asset's fieldset written, other columns named in the row's text)."""
        ids = batch_ids(self.input)
        serializer, _has_custom = self.batch_change(AssetBulkAuditSerializer, self.input, ids)
        texts: dict[int, str] = {}

        def audit(asset: Asset) -> dict[str, Any]:
            custom = self.row_custom(self.input, asset, audit=True) or custom_values.CustomInput()
            texts[asset.pk] = custom.message(AUDIT_TEXTS["one"], "audit")
            return self.audit_payload(serializer.validated_data, asset, custom)

        results, done = run_rows(ids, self.batch_assets(ids), audit)
        for row in results:
            if row["status"] == "success":
                row["messages"], row["payload"] = texts[row["id"]], done[row["id"]]
        return Response(batch_answer(results, AUDIT_TEXTS))
