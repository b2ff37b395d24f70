"""Snipe-IT's ``/imports`` routes: upload a CSV file (``POST /imports``, multipart ``files[]``), list, read, change
and delete the uploads, and run one through the importer the admin and ``manage.py import_csv`` use
(``POST /imports/process/{id}`` with ``import-type``, ``import-update`` and ``column-mappings``).

They live in ``inventory.transfer`` because they drive the importer, which sits above the API resources; the API
routes include them by name. Each caller sees only the files they uploaded (super users see all): an upload can
hold any company's rows, and only its uploader knows what is in it.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, ClassVar

from django.db import transaction
from django.utils.timesince import timesince
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response

from assetsvc.api.exceptions import validation_response
from assetsvc.api.operation_docs import OperationText, register_operation_texts, register_tag_descriptions
from assetsvc.api.viewsets import ApiView, success
from assetsvc.inputs import parse_flag
from inventory.models import ImportFile
from inventory.transfer.columns import CsvFileError
from inventory.transfer.import_assets import import_csv
from inventory.transfer.uploads import api_upload_dir, keep_upload

#: ``import-type`` values this service imports (Snipe-IT's names; ``assetModel``, ``user`` and ``location`` are
#: Snipe-IT importers this service does not have yet).
IMPORT_TYPES = ("asset", "accessory", "consumable", "component", "license")
NOT_FOUND = "Import file not found."
#: Largest accepted upload (as the admin's CSV import).
MAX_UPLOAD = 50 * 1024 * 1024
DELETED = "The file was successfully deleted"
_ERROR_LINE = re.compile(r"^line (\d+), column ([^:]+): (.*)$", re.S)


def _size(value: int) -> str:
    """Snipe-IT's ``fileSizeConvert``: ``"1.21 KB"``."""
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.2f} {unit}" if unit != "B" else f"{value} B"
        value /= 1024
    return f"{value} B"


def record(item: ImportFile) -> dict[str, Any]:
    """Snipe-IT's ``ImportsTransformer`` shape (``created_at`` as its "2 minutes ago")."""
    return {
        "id": item.pk,
        "file_path": item.file_path,
        "filesize": _size(item.filesize),
        "name": item.name,
        "import_type": item.import_type,
        "created_at": f"{timesince(item.created_at)} ago",
        "header_row": item.header_row,
        "first_row": item.first_row,
        "field_map": item.field_map,
    }


def _safe_name(name: str) -> str:
    base = re.split(r"[\\/]", name or "")[-1]
    base = "".join(ch for ch in base if ch.isprintable()).strip()
    return base[:255] or "import.csv"


def _read_head(path) -> tuple[list[str], list[str]]:
    """The header row and first row of a kept upload; a file that is not CSV text in UTF-8 is refused."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:
            reader = csv.reader(stream)
            header = next(reader, None)
            first = next(reader, [])
    except (UnicodeDecodeError, csv.Error) as exc:
        raise exceptions.ValidationError({"files": ["The file must be CSV text in UTF-8."]}) from exc
    if not header or not any(cell.strip() for cell in header):
        raise exceptions.ValidationError({"files": ["The file is empty: a header row is required."]})
    duplicates = []
    seen: dict[str, int] = {}
    for index, name in enumerate(header):
        if name in seen:
            duplicates.append(f"Duplicate header '{name}' detected, first at column: {seen[name] + 1}, repeats at "
                              f"column: {index + 1}")
        else:
            seen[name] = index
    if duplicates:
        raise exceptions.ValidationError({"files": ["; ".join(duplicates)]})
    return header, first


class ImportFileRecord(serializers.Serializer):
    """An uploaded file as Snipe-IT's ``ImportsTransformer`` shows it (for the schema; :func:`record` builds it)."""

    id = serializers.IntegerField()
    file_path = serializers.CharField()
    filesize = serializers.CharField()
    name = serializers.CharField()
    import_type = serializers.CharField()
    created_at = serializers.CharField(help_text="How long ago, as Snipe-IT says it (\"3 minutes ago\").")
    header_row = serializers.ListField(child=serializers.CharField())
    first_row = serializers.ListField(child=serializers.CharField())
    field_map = serializers.DictField(allow_null=True)


class ImportsAccess:
    """The ``import`` permission (Snipe-IT's gate; ``admin`` does not imply it), and the caller's own uploads."""

    permission_section = "imports"
    action = "import"
    action_permissions: ClassVar[dict[str, str | None]] = {"import": "import"}
    not_found_message = NOT_FOUND

    def uploads(self):
        queryset = ImportFile.objects.all()
        user = self.request.user
        return queryset if user.is_superuser else queryset.filter(created_by=user)

    def upload(self, import_id: str) -> ImportFile:
        text = str(import_id).strip()
        found = self.uploads().filter(pk=int(text)).first() if text.isdigit() and len(text) < 19 else None
        if found is None:
            raise self.not_found()
        return found


class ImportListView(ImportsAccess, ApiView):
    parser_classes: ClassVar[list] = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(operation_id="imports_list", responses={200: ImportFileRecord(many=True)})
    def get(self, request):
        return Response([record(item) for item in self.uploads()])

    @extend_schema(operation_id="imports_create", responses={200: OpenApiTypes.OBJECT}, request={
        "multipart/form-data": inline_serializer("ImportUpload", {
            "files[]": serializers.ListField(child=serializers.FileField(), help_text="One or more CSV files."),
        })})
    def post(self, request):
        uploads = request.FILES.getlist("files") or request.FILES.getlist("files[]") or request.FILES.getlist("file")
        if not uploads:
            raise exceptions.ValidationError({"files": ["Choose a CSV file to upload (the files field)."]})
        for upload in uploads:
            if upload.size > MAX_UPLOAD:
                raise exceptions.ValidationError(
                    {"files": [f"The file may not be larger than {MAX_UPLOAD // (1024 * 1024)} MB."]})
        kept, created = [], []
        try:
            for upload in uploads:
                path, _lines = keep_upload(upload, api_upload_dir())
                kept.append(path)
                header, first = _read_head(path)
                created.append((upload, path, header, first))
            with transaction.atomic():
                items = [ImportFile.objects.create(name=_safe_name(upload.name), file_path=path.name,
                                                   filesize=path.stat().st_size, header_row=header, first_row=first,
                                                   created_by=request.user)
                         for upload, path, header, first in created]
        except BaseException:
            for path in kept:  # a refused upload leaves nothing behind
                path.unlink(missing_ok=True)
            raise
        return Response({"files": [record(item) for item in items]})


class ImportDetailView(ImportsAccess, ApiView):
    @extend_schema(operation_id="imports_retrieve", responses={200: ImportFileRecord})
    def get(self, request, import_id: str):
        return Response(record(self.upload(import_id)))

    @extend_schema(operation_id="imports_update", request=OpenApiTypes.OBJECT, responses={200: OpenApiTypes.OBJECT})
    def patch(self, request, import_id: str):
        """The type and column mapping a client saved for later (Snipe-IT's importer page keeps them)."""
        item = self.upload(import_id)
        data = self.input
        import_type = data.get("import_type", data.get("import-type", item.import_type))
        field_map = data.get("field_map", data.get("column-mappings", item.field_map))
        if import_type and import_type not in IMPORT_TYPES:
            raise exceptions.ValidationError({"import_type": [f"The import type must be one of "
                                                              f"{', '.join(IMPORT_TYPES)}."]})
        if field_map is not None and not isinstance(field_map, dict):
            raise exceptions.ValidationError({"field_map": ["The column mapping must be an object."]})
        item.import_type, item.field_map = import_type or "", field_map
        item.save(update_fields=["import_type", "field_map", "updated_at"])
        return success(record(item), "Import updated.")

    @extend_schema(operation_id="imports_replace", request=OpenApiTypes.OBJECT, responses={200: OpenApiTypes.OBJECT})
    def put(self, request, import_id: str):
        return self.patch(request, import_id)

    @extend_schema(operation_id="imports_destroy", responses={200: OpenApiTypes.OBJECT})
    def delete(self, request, import_id: str):
        item = self.upload(import_id)
        with transaction.atomic():
            item.delete()
            transaction.on_commit(lambda: (api_upload_dir() / item.file_path).unlink(missing_ok=True))
        return success(None, DELETED)


def _mapped_header(header: list[str], mapping: dict[str, Any] | None) -> list[str]:
    """The header with Snipe-IT's ``column-mappings`` applied (CSV header → field name, any case); a column mapped
    to nothing is not imported."""
    if not mapping:
        return header
    lowered = {str(key).strip().lower(): value for key, value in mapping.items()}
    out = []
    for name in header:
        key = name.strip().lower()
        if key not in lowered:
            out.append(name)
            continue
        value = lowered[key]
        out.append(str(value).strip() if isinstance(value, str) and value.strip() else "")
    return out


def _row_errors(errors: list[str]) -> dict[str, dict[str, list[str]]]:
    """The importer's error lines as Snipe-IT's ``import-errors`` (row → field → messages)."""
    found: dict[str, dict[str, list[str]]] = {}
    for text in errors:
        match = _ERROR_LINE.match(text)
        row, field, message = (f"line {match[1]}", match[2].strip(), match[3]) if match else ("file", "file", text)
        found.setdefault(row, {}).setdefault(field, []).append(message)
    return found


class ImportProcessView(ImportsAccess, ApiView):
    @extend_schema(operation_id="imports_process", request=OpenApiTypes.OBJECT, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, import_id: str):
        item = self.upload(import_id)
        data = self.input
        import_type = str(data.get("import-type") or data.get("import_type") or "").strip()
        if not import_type:
            raise exceptions.ValidationError({"import-type": ["The import-type field is required."]})
        if import_type not in IMPORT_TYPES:
            raise exceptions.ValidationError({"import-type": [
                f"Importing {import_type} is not supported; this service imports {', '.join(IMPORT_TYPES)}."]})
        mapping = data.get("column-mappings", data.get("field_map"))
        if mapping is not None and not isinstance(mapping, dict):
            raise exceptions.ValidationError({"column-mappings": ["The column mapping must be an object."]})
        update = bool(parse_flag(data.get("import-update", False)))
        path = api_upload_dir() / item.file_path
        try:
            with open(path, encoding="utf-8-sig", newline="") as stream:
                rows = list(csv.reader(stream))
        except FileNotFoundError:
            raise self.not_found() from None
        except (UnicodeDecodeError, csv.Error) as exc:
            raise exceptions.ValidationError({"files": ["The file must be CSV text in UTF-8."]}) from exc
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(_mapped_header(rows[0] if rows else [], mapping))
        writer.writerows(rows[1:])
        buffer.seek(0)
        try:
            result = import_csv(import_type, buffer, actor=request.user, update=update)
        except CsvFileError as exc:
            raise exceptions.ValidationError({"files": [str(exc)]}) from exc
        item.import_type, item.field_map = import_type, mapping
        item.save(update_fields=["import_type", "field_map", "updated_at"])
        counts = {"created": result.created, "updated": result.updated, "skipped": result.skipped,
                  "failed": result.failed, "notes": result.notes}
        if result.failed:
            return _import_errors(_row_errors(result.errors), counts, result.summary())
        return success(counts, result.summary())


def _import_errors(errors: dict[str, dict[str, list[str]]], counts: dict[str, Any], summary: str) -> Response:
    """Rows the importer refused: Snipe-IT's ``import-errors`` status with the errors by row and field (the other
    rows were imported, as in Snipe-IT), at the status of a validation error (Snipe-IT's HTTP 500 is not copied)."""
    response = validation_response({"file": [summary]})
    response.data.update(status="import-errors", message=summary, messages=errors, payload=counts)
    return response


register_tag_descriptions({"imports": "CSV imports: upload a file, then process it as assets, accessories, "
                                      "consumables, components or licenses."})
_IMPORTER = ("Needs the ``import`` permission (not implied by ``admin``). Each caller sees only the files they "
             "uploaded; super users see all.")
register_operation_texts({
    "imports_list": OperationText("List my uploaded CSV files", "The caller's uploads, newest first, each with its "
                                  "header row and first row (a bare list, as Snipe-IT).", _IMPORTER),
    "imports_create": OperationText(
        "Upload CSV files",
        "Multipart ``files[]``: one or more CSV files in UTF-8. Each is kept privately until processed or deleted; "
        "the answer is ``{\"files\": [...]}`` with each file's header and first row, for mapping columns. A file "
        "that is empty, not UTF-8 text, or repeats a header is refused, and nothing is kept.", _IMPORTER),
    "imports_retrieve": OperationText("Get an uploaded file", "One upload, as the list shows it.", _IMPORTER),
    "imports_update": OperationText("Save a file's type and column mapping",
                                    "Keeps ``import_type`` and ``field_map`` (CSV header → field) for later.",
                                    _IMPORTER),
    "imports_replace": OperationText("Save a file's type and column mapping (PUT)", "The same as PATCH.", _IMPORTER),
    "imports_destroy": OperationText("Delete an uploaded file", "Deletes the upload and its kept file.", _IMPORTER),
    "imports_process": OperationText(
        "Import an uploaded file",
        "Runs the file through the importer: ``import-type`` (``asset``, ``accessory``, ``consumable``, "
        "``component``, ``license``), ``import-update`` (update items that exist instead of skipping them) and "
        "``column-mappings`` (CSV header → field name; a header mapped to null is not imported). Good rows are "
        "imported; when some fail the answer's status is ``import-errors`` with ``messages`` by line and column and "
        "the counts in ``payload``.", _IMPORTER),
})
