"""``/settings/backups``: the archives ``manage.py backup`` wrote, for super users only (Snipe-IT's
``SettingsController`` listBackups, downloadLatestBackup, downloadBackup; issue 27, docs/operations.md).

Admins are refused too (403): an archive holds every company's data, password hashes and encrypted field values.
A download names a file of the listing, never a path: anything else is the 404 "File not found".
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.http import FileResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from assetsvc.api.operation_docs import OperationText, register_operation_texts
from assetsvc.api.permissions import IsSuperUser
from assetsvc.api.viewsets import ApiView
from assetsvc.backups import BackupFile, find_backup, list_backups

FILE_NOT_FOUND = "File not found"
UNITS = (("TB", 1024**4), ("GB", 1024**3), ("MB", 1024**2), ("KB", 1024), ("B", 1))


def file_size(size: int) -> str:
    """Snipe-IT's ``Setting::fileSizeConvert``: ``1.5MB``, ``820B``."""
    for unit, value in UNITS:
        if size >= value:
            return f"{round(size / value, 2):g}{unit}"
    return "0"


def backup_row(request, backup: BackupFile) -> dict:
    modified = timezone.localtime(datetime.fromtimestamp(backup.modified, tz=UTC))
    return {
        "filename": backup.name,
        "filesize": file_size(backup.size),
        "modified_value": int(backup.modified),
        "modified_display": modified.strftime("%Y-%m-%d %I:%M %p"),
        "backup_url": request.build_absolute_uri(f"/api/v1/settings/backups/download/{backup.name}"),
    }


BACKUP_LIST_SCHEMA = {"type": "object", "properties": {
    "total": {"type": "integer"},
    "rows": {"type": "array", "items": {"type": "object", "properties": {
        "filename": {"type": "string"}, "filesize": {"type": "string", "example": "1.5MB"},
        "modified_value": {"type": "integer"}, "modified_display": {"type": "string"},
        "backup_url": {"type": "string"}}}}}}
ARCHIVE = OpenApiResponse(response={"type": "string", "format": "binary"}, description="the zip archive")


class BackupViewMixin:
    permission_section = None
    permission_classes = [IsSuperUser]
    not_found_message = FILE_NOT_FOUND

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        if isinstance(exc, NotFound):
            response.status_code = 404  # Snipe-IT answers a missing backup with a real 404 in every error mode
        return response

    @staticmethod
    def download(backup: BackupFile | None) -> FileResponse:
        if backup is None:
            raise NotFound(FILE_NOT_FOUND)
        try:
            handle = open(backup.path, "rb")  # noqa: SIM115 - FileResponse closes it when streamed
        except FileNotFoundError as exc:  # deleted by retention between listing and opening
            raise NotFound(FILE_NOT_FOUND) from exc
        return FileResponse(handle, as_attachment=True, filename=backup.name, content_type="application/zip")


class BackupListView(BackupViewMixin, ApiView):
    @extend_schema(tags=["settings"], operation_id="settings_backups_list",
                   responses={200: OpenApiResponse(response=BACKUP_LIST_SCHEMA)})
    def get(self, request):
        rows = [backup_row(request, backup) for backup in list_backups()]
        return Response({"total": len(rows), "rows": rows})


class BackupLatestDownloadView(BackupViewMixin, ApiView):
    @extend_schema(tags=["settings"], operation_id="settings_backups_download_latest", responses={200: ARCHIVE})
    def get(self, request):
        return self.download(next(iter(list_backups()), None))


class BackupDownloadView(BackupViewMixin, ApiView):
    @extend_schema(tags=["settings"], operation_id="settings_backups_download", responses={200: ARCHIVE})
    def get(self, request, file: str):
        return self.download(find_backup(file))


_SUPER_ONLY = "Super users only; administrators and everyone else get 403."
register_operation_texts({
    "settings_backups_list": OperationText(
        "List backups", "The archives ``manage.py backup`` wrote, newest first: file name, size, date and a download "
        "address (``{total, rows}``, as Snipe-IT).", _SUPER_ONLY),
    "settings_backups_download_latest": OperationText(
        "Download the newest backup", "The newest archive (database, uploaded files and a manifest) as a zip "
        "attachment.", _SUPER_ONLY),
    "settings_backups_download": OperationText(
        "Download a backup", "One archive by its file name as the list gives it; any other name is \"File not "
        "found\" (404).", _SUPER_ONLY),
})
