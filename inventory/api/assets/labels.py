"""Asset label PDFs (issue 27): ``POST hardware/labels`` prints the labels of assets, given by tag (Snipe-IT's
``asset_tags``) or by id (``asset_ids``), on one of the templates of ``GET labels``. The layout is
``inventory.labels``; these views read the input, find the assets the caller may see and answer the PDF, base64 in
the success envelope as Snipe-IT does, or as the file itself for ``Accept: application/pdf`` / ``?format=pdf``."""

from __future__ import annotations

import base64

from django.db.models import Q
from django.db.models.functions import Lower
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from assetsvc.api.viewsets import ApiView, success
from assetsvc.exceptions import NotFoundError
from inventory import labels
from inventory.models import Asset
from inventory.tags import tag_key

NO_ASSETS = "No assets selected."
ASSET_NOT_FOUND = "Asset does not exist."
LABELS_GENERATED = "Labels were successfully generated."
LABEL_NOT_FOUND = "Label does not exist"


def _as_list(value):
    """A single tag or id (a form field, a query parameter) is a list of one."""
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


class AssetLabelsInputSerializer(serializers.Serializer):
    """What ``POST hardware/labels`` reads."""

    asset_tags = serializers.ListField(child=serializers.CharField(max_length=255), required=False,
                                       max_length=labels.MAX_LABELS, help_text="The tags of the assets to print.")
    asset_ids = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**31 - 1),
                                      required=False, max_length=labels.MAX_LABELS,
                                      help_text="The ids of the assets to print (an extension of Snipe-IT's API).")
    template = serializers.ChoiceField(choices=list(labels.LABEL_TEMPLATES), required=False,
                                       default=labels.DEFAULT_LABEL_TEMPLATE,
                                       help_text="A template name of ``GET /labels``.")
    fields = serializers.ListField(child=serializers.ChoiceField(choices=labels.LABEL_FIELDS), required=False,
                                   max_length=len(labels.LABEL_FIELDS),
                                   help_text="The texts beside the QR code, in this order (default: tag, name).")

    def to_internal_value(self, data):
        data = {key: _as_list(data.get(key)) for key in ("asset_tags", "asset_ids", "fields") if key in data} | {
            key: data[key] for key in ("template",) if key in data}
        values = super().to_internal_value(data)
        if not values.get("asset_tags") and not values.get("asset_ids"):
            raise serializers.ValidationError({"asset_tags": [NO_ASSETS]})
        return values


PDF_ENVELOPE = inline_serializer("AssetLabelsSuccess", {
    "status": serializers.CharField(default="success"),
    "messages": serializers.CharField(),
    "payload": inline_serializer("AssetLabelsPayload", {
        "pdf": serializers.CharField(help_text="The PDF, base64-encoded."),
    }),
})


class AssetLabelsView(ApiView):
    """``POST hardware/labels``: the labels of the assets the caller may see (``assets.view``, as Snipe-IT: printing
    reads); any asset not found among them, another company's included, refuses the whole request."""

    permission_section = "assets"
    action = "labels"  # a POST that reads: its key is assets.view, not the method's assets.create
    action_permissions = {"labels": "view"}
    not_found_message = ASSET_NOT_FOUND

    def wants_pdf(self) -> bool:
        return (str(self.request.query_params.get("format", "")).strip().lower() == "pdf"
                or "application/pdf" in self.request.headers.get("Accept", ""))

    def find_assets(self, tags: list[str], ids: list[int]) -> list[Asset]:
        """The assets in the order asked (tags first, then ids, each once), or NotFoundError naming what was not
        found among the assets the caller may see."""
        visible = Asset.objects.restrict(self.request.user).alive().select_related("model")
        by_tag: dict[str, Asset] = {}
        if tags:  # tag_matches() for many tags in one flat query (an OR per tag would nest 1,000 deep)
            query = Q(asset_tag_key__in={tag_key(tag) for tag in tags}) | Q(
                tag_lower__in={tag.strip().lower() for tag in tags})
            for asset in visible.alias(tag_lower=Lower("asset_tag")).filter(query):
                by_tag.setdefault(tag_key(asset.asset_tag), asset)
                by_tag.setdefault(asset.asset_tag.strip().casefold(), asset)
        by_id = {asset.pk: asset for asset in visible.filter(pk__in=ids)} if ids else {}
        asked = [(tag, by_tag.get(tag_key(tag)) or by_tag.get(tag.strip().casefold())) for tag in tags]
        asked += [(str(pk), by_id.get(pk)) for pk in ids]
        found = [asset for _, asset in asked if asset is not None]
        missing = [what for what, asset in asked if asset is None]
        if missing:
            raise NotFoundError(ASSET_NOT_FOUND, code="asset_not_found",
                                messages={"asset_tags" if tags else "asset_ids": [
                                    f"{ASSET_NOT_FOUND} Not found: {', '.join(missing)}"]})
        unique: dict[int, Asset] = {}
        for asset in found:
            unique.setdefault(asset.pk, asset)
        return list(unique.values())

    @extend_schema(
        operation_id="hardware_labels_create",
        request=AssetLabelsInputSerializer,
        parameters=[OpenApiParameter("format", str, enum=("json", "pdf"), default="json",
                                     description="``pdf`` answers the file itself (as ``Accept: application/pdf``).")],
        responses={200: PDF_ENVELOPE, (200, "application/pdf"): OpenApiTypes.BINARY},
    )
    def post(self, request):
        serializer = AssetLabelsInputSerializer(data=self.input)
        serializer.is_valid(raise_exception=True)
        values = serializer.validated_data
        assets = self.find_assets(values.get("asset_tags", []), values.get("asset_ids", []))
        template = labels.LABEL_TEMPLATES[values["template"]]
        fields = tuple(dict.fromkeys(values.get("fields") or labels.DEFAULT_LABEL_FIELDS))
        pdf = labels.labels_pdf(
            [(asset, request.build_absolute_uri(labels.admin_path(asset))) for asset in assets], template, fields)
        if self.wants_pdf():
            response = HttpResponse(pdf, content_type="application/pdf")
            response["Content-Disposition"] = 'attachment; filename="labels.pdf"'
            return response
        return success({"pdf": base64.b64encode(pdf).decode("ascii")}, LABELS_GENERATED)


LABEL_RECORD = inline_serializer("LabelTemplate", {
    "name": serializers.CharField(),
    "unit": serializers.CharField(),
    "width": serializers.CharField(),
    "height": serializers.CharField(),
    "margin_top": serializers.FloatField(),
    "margin_bottom": serializers.FloatField(),
    "margin_left": serializers.FloatField(),
    "margin_right": serializers.FloatField(),
    "support_asset_tag": serializers.BooleanField(),
    "support_1d_barcode": serializers.BooleanField(),
    "support_2d_barcode": serializers.BooleanField(),
    "support_fields": serializers.IntegerField(),
    "support_logo": serializers.BooleanField(),
    "support_title": serializers.BooleanField(),
    "sheet_info": serializers.DictField(required=False, help_text="Sheets only: one label's size and margins."),
    "rectanglesheet_info": serializers.DictField(required=False, help_text="Sheets only: the grid."),
})


class LabelTemplateListView(ApiView):
    """``GET labels``: the label templates ``POST hardware/labels`` prints on. Snipe-IT lets only super users read
    them (no policy for its Label class); here ``assets.view`` is enough, as for printing (docs/decisions.md)."""

    permission_section = "assets"  # GET: assets.view

    @extend_schema(operation_id="labels_list", parameters=[
        OpenApiParameter("search", str, description="Part of the template's name.")],
        responses={200: inline_serializer("LabelTemplateList", {
            "total": serializers.IntegerField(), "rows": serializers.ListField(child=LABEL_RECORD)})})
    def get(self, request):
        templates = list(labels.LABEL_TEMPLATES.values())
        search = str(request.query_params.get("search") or "").strip().casefold()
        if search:
            templates = [template for template in templates if search in template.name.casefold()]
        total = len(templates)
        offset, limit = _number(request.query_params.get("offset"), 0), _number(request.query_params.get("limit"), 500)
        rows = templates[min(offset, total):][:limit]
        return Response({"total": total, "rows": [template.describe() for template in rows]})


class LabelTemplateDetailView(ApiView):
    """``GET labels/{name}``: one template; a ``/`` in the path stands for a ``\\`` of Snipe-IT's names."""

    permission_section = "assets"  # GET: assets.view
    not_found_message = LABEL_NOT_FOUND

    @extend_schema(operation_id="labels_retrieve", responses={200: LABEL_RECORD})
    def get(self, request, name: str = ""):
        template = labels.LABEL_TEMPLATES.get(name.replace("/", "\\"))
        if template is None:
            raise self.not_found()
        return Response(template.describe())


def _number(value, default: int) -> int:
    try:
        return max(0, min(int(value), 500))
    except (TypeError, ValueError):
        return default
