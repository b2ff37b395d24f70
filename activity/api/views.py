"""``/api/v1/<kind>/<id>/files``: files on records (issue 27; docs/files.md).

One viewset serves every kind of record (``activity.files`` registry) under Snipe-IT v8.5's generic paths
(``/{object_type}/{id}/files[/{file_id}[/delete]]``) and the older per-type ones (``/hardware/{id}/files``,
``/hardware/{id}/file/{file_id}``, ``/models/...``, ``POST /users/{id}/upload``). The record is found first, through
its kind's queryset for the caller: another company's record (or a deleted one) is "not found", so its files are
never listed nor served. Reading needs ``<section>.view``; uploading and deleting Snipe-IT's ``<section>.files`` where
the section has that key, else ``<section>.edit``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from django.core.exceptions import ObjectDoesNotExist
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.parsers import FormParser

from activity.api.parsers import FileUploadParser
from activity.api.serializers import StoredFileSerializer
from activity.files import ALLOWED_TYPES, FileKind, api_names, kind_for_api_name
from activity.models import StoredFile
from activity.services import FILE_MESSAGES, stored_file_delete, stored_file_open, stored_file_upload
from assetsvc.api.operation_docs import OperationText, register_operation_texts, register_tag_descriptions
from assetsvc.api.parsers import LenientJSONParser
from assetsvc.api.viewsets import ApiViewSet, SearchFilter, SortFilter, success, success_envelope
from assetsvc.registry import hook

# Views are imported by the URLconf, after every app's ready() filled the registry of kinds.
OBJECT_TYPE = OpenApiParameter("object_type", str, OpenApiParameter.PATH, enum=api_names() or None,
                               pattern=f"^(?:{'|'.join(api_names())})$" if api_names() else None,
                               description="The kind of record: assets (or hardware), models, users, accessories, "
                                           "consumables, components, licenses, locations.")
RECORD_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The record's id.")
FILE_ID = OpenApiParameter("file_id", int, OpenApiParameter.PATH, description="The file's id.")
#: Every content type a download may answer (``activity.files.ALLOWED_TYPES``), each documented in the schema.
SERVED_TYPES = sorted({content_type for _, content_type in ALLOWED_TYPES.values()})
UPLOAD_BODY = {"multipart/form-data": {"type": "object", "properties": {
    "file[]": {"type": "array", "items": {"type": "string", "format": "binary"},
               "description": "One or more files (``file`` is accepted too)."},
    "notes": {"type": "string", "description": "A note recorded with every file of this upload."},
}, "required": ["file[]"]}}


class StoredFileViewSet(ApiViewSet):
    """List, upload, download and delete the files of one record."""

    queryset = StoredFile.objects.all()
    serializer_class = StoredFileSerializer
    parser_classes: ClassVar[list] = [FileUploadParser, FormParser, LenientJSONParser]
    filter_backends: ClassVar[list] = [SearchFilter, SortFilter]
    search_fields = ("filename", "note")
    sort_fields: ClassVar[dict[str, str]] = {key: key for key in ("id", "filename", "note", "size", "created_at")}
    #: Set per request from the kind (``initial``); the class value is never used for a check.
    permission_section = "files-of-a-record"
    action_permissions: ClassVar[dict[str, str | None]] = {}
    kind: FileKind

    def initial(self, request, *args, **kwargs):
        kind = kind_for_api_name(kwargs.get("object_type", ""))
        if kind is None:  # the URL converter admits registered names only
            raise exceptions.NotFound(FILE_MESSAGES["not_found"])
        self.kind = kind
        self.permission_section = kind.section
        self.not_found_message = kind.not_found_message
        self.action_permissions = {"upload": kind.write_verb, "download": "view", "remove": kind.write_verb}
        super().initial(request, *args, **kwargs)

    # --- reads ----------------------------------------------------------------------------------------------------

    @cached_property
    def record(self) -> Any:
        """The record named by the path, as the caller may see it; "not found" otherwise (also for another company's
        record: its files are never listed nor served)."""
        try:
            return self.kind.queryset(self.request.user).get(pk=int(str(self.kwargs["pk"]).strip()))
        except (ValueError, TypeError, OverflowError, ObjectDoesNotExist) as exc:
            raise self.not_found() from exc

    def get_queryset(self):
        """The record's files. Company separation was applied to the record (:attr:`record`): a visible record's
        files are all visible, also those uploaded while it belonged to another company."""
        return StoredFile.objects.for_record(self.kind.name, self.record.pk).select_related("created_by")

    def stored_file(self) -> StoredFile:
        try:
            return self.get_queryset().get(pk=int(str(self.kwargs["file_id"]).strip()))
        except (ValueError, TypeError, OverflowError, StoredFile.DoesNotExist) as exc:
            raise self.not_found(FILE_MESSAGES["not_found"]) from exc

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if getattr(self, "kind", None) is not None:
            context["object_type"] = self.kwargs.get("object_type")
            context["can_write"] = hook("permission_checker")(
                self.request.user, f"{self.kind.section}.{self.kind.write_verb}")
        return context

    @extend_schema(parameters=[OBJECT_TYPE, RECORD_ID], summary="List a record's files")
    def list(self, request, *args, **kwargs):
        self.record  # noqa: B018 - the record first: another company's record is "not found", not an empty list
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(parameters=[OBJECT_TYPE, RECORD_ID, FILE_ID], summary="Download one file",
                   responses={(200, content_type): OpenApiResponse(
                       OpenApiTypes.BINARY, description="The file, as an attachment under its sanitized name, with the "
                                                        "content type decided when it was uploaded.")
                              for content_type in SERVED_TYPES})
    def download(self, request, *args, **kwargs):
        row = self.stored_file()
        response = FileResponse(stored_file_open(row), as_attachment=True, filename=row.filename,
                                content_type=row.content_type)
        response["Content-Length"] = str(row.size)
        response["Cache-Control"] = "private, no-store"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        response["X-Content-Type-Options"] = "nosniff"
        return response

    # --- writes ---------------------------------------------------------------------------------------------------

    @extend_schema(parameters=[OBJECT_TYPE, RECORD_ID], request=UPLOAD_BODY, summary="Upload files to a record",
                   responses={200: inline_serializer("StoredFileUploadSuccess", {
                       "status": serializers.CharField(), "messages": serializers.CharField(),
                       "payload": inline_serializer("StoredFileUploadPayload", {
                           "total": serializers.IntegerField(), "rows": StoredFileSerializer(many=True)}),
                   })})
    def upload(self, request, *args, **kwargs):
        uploads = [*request.FILES.getlist("file"), *request.FILES.getlist("file[]")]
        note = request.data.get("notes", request.data.get("note", "")) if hasattr(request.data, "get") else ""
        note = "" if note is None else str(note)
        if "\x00" in note:
            raise exceptions.ValidationError({"notes": ["NUL characters are not allowed."]})
        rows = stored_file_upload(kind=self.kind, record=self.record, uploads=uploads, actor=request.user,
                                  note=note)
        data = self.get_serializer(rows, many=True).data
        return success({"total": len(rows), "rows": data}, FILE_MESSAGES["uploaded"])

    @extend_schema(parameters=[OBJECT_TYPE, RECORD_ID, FILE_ID], request=None, summary="Delete one file",
                   responses={200: success_envelope(None)})
    def remove(self, request, *args, **kwargs):
        stored_file_delete(kind=self.kind, record=self.record, stored_file=self.stored_file(), actor=request.user)
        return success(None, FILE_MESSAGES["deleted"])


_FILES_ACCESS = ("Reading needs the record's view permission (``assets.view``, ``users.view``, ...); uploading and "
                 "deleting need ``<kind>.files`` for accessories, consumables, components and licenses and "
                 "``<kind>.edit`` for assets, models, users and locations. Another company's record answers "
                 "\"not found\", as a missing one.")
_KINDS = ("``object_type`` is ``assets`` (or ``hardware``), ``models``, ``users``, ``accessories``, ``consumables``, "
          "``components``, ``licenses`` or ``locations``.")
_DOWNLOAD = OperationText("Download a file", "The file's bytes, always as an attachment under its stored name. "
                          + _KINDS, _FILES_ACCESS, ("files",))
_DELETE = OperationText("Delete a file", "Deletes the file from the record and from storage; the record's history "
                        "keeps an \"upload deleted\" entry. " + _KINDS, _FILES_ACCESS, ("files",))
_UPLOAD = OperationText(
    "Upload files to a record",
    "Multipart ``file`` (or ``file[]``, several), with optional ``notes``. Each file is checked: at most "
    "``UPLOAD_MAX_MB`` megabytes, a type allowed by its content (images, PDF, office documents, text, archives) "
    "matching its extension, a plain name. If any file is refused, nothing is stored. " + _KINDS,
    _FILES_ACCESS, ("files",))
register_tag_descriptions({"files": "Files attached to records (invoices, photos, manuals): upload, list, download "
                                    "and delete, on assets, models, users, accessories, consumables, components, "
                                    "licenses and locations."})
register_operation_texts({
    "files_list": OperationText("List a record's files", "A page of the files on the record, newest first, with "
                                "name, size, type, notes and who uploaded them. " + _KINDS, _FILES_ACCESS,
                                ("files",)),
    "files_create": _UPLOAD, "upload_create": OperationText(
        "Upload files to a record (older path)", "The same as ``POST /{object_type}/{id}/files``.", _FILES_ACCESS,
        ("files",)),
    "files_retrieve": _DOWNLOAD, "file_retrieve": OperationText(
        "Download a file (older path)", "The same as ``GET /{object_type}/{id}/files/{file_id}``.", _FILES_ACCESS,
        ("files",)),
    "files_destroy": _DELETE, "files_delete_create": _DELETE, "files_delete_destroy": _DELETE,
    "file_destroy": OperationText("Delete a file (older path)", "The same as "
                                  "``DELETE /{object_type}/{id}/files/{file_id}``.", _FILES_ACCESS, ("files",)),
})
