"""``/fields`` and ``/fieldsets`` (API-CONTRACT.md §11, reference §1.5): custom field and fieldset definitions.
Global, not company-scoped; every route needs a ``customfields.*`` key (view for reads, create, edit for updates and
for associate, disassociate and order, delete). Lists are ordered by id and take ``limit``, ``offset`` and
``search`` (on the name). Writes go through ``inventory.services.custom_fields``."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from assetsvc.api.viewsets import ResourceViewSet, item_service, success, success_envelope
from inventory.api.custom_fields import serializers as s
from inventory.models import AssetModel, CustomField, CustomFieldset, CustomFieldsetField
from inventory.services import custom_fields as services

NO_INPUT = {"application/json": s.NO_INPUT_SCHEMA}


def with_rows(queryset: QuerySet) -> QuerySet:
    """Fieldsets with their fields (in order, one query) and live models (one query) prefetched."""
    memberships = CustomFieldsetField.objects.select_related("field").order_by("order", "id")
    models = AssetModel.objects.filter(deleted_at__isnull=True).only("id", "name", "fieldset_id").order_by("id")
    return queryset.prefetch_related(Prefetch("memberships", queryset=memberships), Prefetch("models", queryset=models))


def fieldsets_with_rows() -> QuerySet:
    return with_rows(CustomFieldset.objects.all())


class CustomFieldsViewSetBase(ResourceViewSet):
    permission_section = "customfields"
    unscoped_company_model = True
    search_fields = ("name",)
    sort_fields: ClassVar[dict[str, Any]] = {"id": "id", "name": "name", "created_at": "created_at"}
    default_sort = "id"
    default_order = "asc"
    selectlist = None  # Snipe-IT has no select list of fields or fieldsets


class CustomFieldViewSet(CustomFieldsViewSetBase):
    queryset = CustomField.objects.all()
    serializer_class = s.CustomFieldSerializer
    write_serializer_class = s.CustomFieldWriteSerializer
    not_found_message = services.FIELD_NOT_FOUND
    messages: ClassVar[dict[str, str]] = {
        "create": "Field created successfully.", "update": "Field updated successfully.",
        "delete": "The field was deleted successfully.",
    }
    create_service = staticmethod(lambda *, model, data, actor: services.custom_field_create(data=data, actor=actor))
    update_service = item_service(services.custom_field_update, "field")
    delete_service = item_service(services.custom_field_delete, "field")
    action_permissions: ClassVar[dict[str, str | None]] = {"associate": "edit", "disassociate": "edit"}

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return queryset.annotate(in_use=Exists(CustomFieldsetField.objects.filter(field=OuterRef("pk"))))

    def fieldset_answer(self, fieldset: CustomFieldset) -> Response:
        fresh = fieldsets_with_rows().get(pk=fieldset.pk)
        record = s.CustomFieldsetSerializer(fresh, context=self.get_serializer_context()).data
        return success(record, "Fieldset updated successfully.")

    @extend_schema(request=s.AssociateSerializer, responses={200: success_envelope(s.CustomFieldsetSerializer)})
    @action(detail=True, methods=["post"])
    def associate(self, request, pk=None):
        """Add the field to a fieldset (``fieldset_id``) at ``order`` (default last), ``required`` or not."""
        field = self.get_object()
        serializer = s.AssociateSerializer(data=self.input, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        fieldset = services.custom_field_associate(field=field, fieldset=data["fieldset_id"],
                                                   required=data.get("required", False), order=data.get("order"),
                                                   actor=request.user)
        return self.fieldset_answer(fieldset)

    @extend_schema(request=s.DisassociateSerializer, responses={200: success_envelope(s.CustomFieldsetSerializer)})
    @action(detail=True, methods=["post"])
    def disassociate(self, request, pk=None):
        """Take the field out of a fieldset (``fieldset_id``); its values stay on the assets, hidden."""
        field = self.get_object()
        serializer = s.DisassociateSerializer(data=self.input, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        fieldset = services.custom_field_disassociate(field=field, fieldset=serializer.validated_data["fieldset_id"],
                                                      actor=request.user)
        return self.fieldset_answer(fieldset)


class CustomFieldsetViewSet(CustomFieldsViewSetBase):
    queryset = CustomFieldset.objects.all()
    serializer_class = s.CustomFieldsetSerializer
    write_serializer_class = s.CustomFieldsetWriteSerializer
    not_found_message = services.FIELDSET_NOT_FOUND
    messages: ClassVar[dict[str, str]] = {
        "create": "Fieldset created successfully.", "update": "Fieldset updated successfully.",
        "delete": "The fieldset was deleted successfully.",
    }
    create_service = staticmethod(
        lambda *, model, data, actor: services.custom_fieldset_create(data=data, actor=actor))
    update_service = item_service(services.custom_fieldset_update, "fieldset")
    delete_service = item_service(services.custom_fieldset_delete, "fieldset")
    action_permissions: ClassVar[dict[str, str | None]] = {"fields_list": "view", "fields_for_model": "view",
                                                           "order": "edit"}

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return with_rows(queryset)

    @extend_schema(methods=["GET"], responses={200: s.FieldRowsSerializer}, operation_id="fieldsets_fields_list")
    @extend_schema(methods=["POST"], request=NO_INPUT, responses={200: s.FieldRowsSerializer},
                   operation_id="fieldsets_fields_list_post")
    @action(detail=True, methods=["get", "post"], url_path="fields", pagination_class=None, filter_backends=[])
    def fields_list(self, request, pk=None):
        """The set's fields in order, each with its ``required`` flag (Snipe-IT reads it with POST)."""
        fields = s.fieldset_fields(self.get_object())
        rows = s.CustomFieldSerializer(fields, many=True, context=self.get_serializer_context()).data
        return Response({"total": len(rows), "rows": rows})

    @extend_schema(methods=["GET"], responses={200: s.DefaultValueRowsSerializer},
                   operation_id="fieldsets_fields_for_model")
    @extend_schema(methods=["POST"], request=NO_INPUT, responses={200: s.DefaultValueRowsSerializer},
                   operation_id="fieldsets_fields_for_model_post")
    @action(detail=True, methods=["get", "post"], url_path=r"fields/(?P<model_id>[^/]+)", pagination_class=None,
            filter_backends=[])
    def fields_for_model(self, request, pk=None, model_id=None):
        """The set's fields with their default value for a model (no default values exist yet: null)."""
        rows = [{"id": field.pk, "name": field.name, "type": field.element,
                 "field_values_array": field.field_values_array, "default_value": None}
                for field in s.fieldset_fields(self.get_object())]
        return Response({"total": len(rows), "rows": rows})

    @extend_schema(request=s.OrderSerializer, responses={200: success_envelope(s.CustomFieldsetSerializer)},
                   operation_id="fields_fieldsets_order")
    def order(self, request, pk=None):
        """``POST fields/fieldsets/{id}/order``: ``item`` lists every field of the set once, in the new order."""
        fieldset = self.get_object()
        serializer = s.OrderSerializer(data=self.input, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        services.custom_fieldset_order(fieldset=fieldset, field_ids=serializer.validated_data["item"],
                                       actor=request.user)
        return success(self.record(fieldset), "Fieldset updated successfully.")
