"""CSV import and CSV/XLSX export in the admin (issue 14), as a mixin for the item admins (``AssetAdmin``,
``AccessoryAdmin``, ``ConsumableAdmin``, ``ComponentAdmin``, ``LicenseAdmin``): the same importer and exporter as the
commands (``inventory.transfer.import_assets``, ``inventory.transfer.export``), so the same rules, services and log
rows.

Import is three steps: upload (a form: the file, "update existing") → preview (a dry run: the counts, every error by
line and column, the first rows' outcomes) → confirm (the import itself). The uploaded file is kept server-side in
``CSV_IMPORT_DIR`` (the system temporary directory by default) under a random name; the preview page carries only a
signed token naming it, the user and the options (valid for an hour, for that user only), so the confirmation never
re-uploads and no one can point the import at another file. The file is deleted once imported; it is created with
mode 0600 (the service's user only), and files whose preview token has expired are deleted on the next upload or
confirmation (:func:`sweep_expired_uploads`, issue 25).

Previews are rate-limited per user (``CSV_IMPORT_PREVIEW_RATE``) and logged (logger ``inventory.admin_csv``: who,
which kind, the file's size and the dry run's summary): a preview writes nothing, so without them repeated previews
would be an unrecorded way to probe the database (issue 25).

A file of more than ``CSV_IMPORT_TASK_ROWS`` lines is not run in the request (issue 25): its dry run and then its
import are jobs of the task worker (``inventory.import_tasks``), each shown by the job page (``import/job/<id>/``:
rows done of the total while it runs, reloading itself; the counts, errors and notes at the end; a finished dry run's
confirmation button). Only the job's user sees it.

Rights: importing needs the add permission (and the change permission with "update existing"); exporting needs the
view permission. The acting user decides company separation as in the API: a user limited to a company imports
into it and exports only its items.
"""

from __future__ import annotations

import io
import logging
import os
import re
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django_ratelimit.core import is_ratelimited

from assetsvc.request_meta import current_request_meta, reset_request_meta, set_request_meta
from inventory import import_tasks
from inventory.models import ImportJob
from inventory.transfer.columns import COLUMNS, MAX_FIELD_SIZE, CsvFileError
from inventory.transfer.export import export_queryset, write_export
from inventory.transfer.import_assets import import_csv
from inventory.transfer.uploads import import_dir, keep_upload

#: Largest upload accepted (bytes).
MAX_UPLOAD = 50 * 1024 * 1024
#: How long a preview may be confirmed (seconds).
TOKEN_AGE = 3600
#: Errors listed in the admin message after a confirmed import (all are on the preview page).
MESSAGE_ERRORS = 20
SIGNING_SALT = "inventory.admin_csv.import"
IMPORT_SOURCE = "importer"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

__all__ = ["CsvImportExportMixin", "import_dir", "sweep_expired_uploads"]

logger = logging.getLogger("inventory.admin_csv")
#: The rate limit's counter (django-ratelimit group) of import previews, counted per user.
PREVIEW_RATE_GROUP = "inventory.admin_csv.preview"
PREVIEW_LIMITED = "Too many import previews; try again later."

#: The names this module gives kept uploads (the directory may hold other files: those are never deleted).
_KEPT_NAME = re.compile(r"^[0-9a-f]{32}\.csv$")


def _keep_upload(upload: Any) -> tuple[Path, int]:
    return keep_upload(upload)


def sweep_expired_uploads(now: float | None = None) -> int:
    """Delete the kept uploads whose preview token has expired (their file, touched when the token is signed, is
    older than ``TOKEN_AGE``): previews never confirmed. Returns how many were deleted."""
    limit = (time.time() if now is None else now) - TOKEN_AGE
    deleted = 0
    for kept in import_dir().iterdir():
        if not _KEPT_NAME.match(kept.name):
            continue
        try:
            if kept.stat().st_mtime < limit:
                kept.unlink()
                deleted += 1
        except FileNotFoundError:  # confirmed or swept meanwhile by another request
            continue
    return deleted


class CsvUploadForm(forms.Form):
    file = forms.FileField(label="CSV file", help_text="UTF-8, first row the column names (Snipe-IT's importer "
                                                       "names, see the list below).")
    update = forms.BooleanField(label="Update existing items", required=False)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD:
            raise forms.ValidationError(f"The file may not be larger than {MAX_UPLOAD // (1024 * 1024)} MB.")
        return upload


class CsvImportExportMixin:
    """Adds ``import/`` and ``import/confirm/`` views, an "Import CSV" link on the list (``changelist_view``'s
    ``csv_import_url``, shown by ``admin/inventory/import/change_list.html``), and the export actions
    ``export_selected_csv``/``export_selected_xlsx``. Set ``csv_kind`` (``asset``, ``accessory``, ...)."""

    csv_kind: str = ""
    change_list_template = "admin/inventory/import/change_list.html"

    # --- URLs and link -----------------------------------------------------------------------------------------

    def _url_name(self, suffix: str) -> str:
        opts = self.model._meta
        return f"{opts.app_label}_{opts.model_name}_{suffix}"

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("import/", wrap(self.csv_import_view), name=self._url_name("import")),
            path("import/confirm/", wrap(self.csv_confirm_view), name=self._url_name("import_confirm")),
            path("import/job/<uuid:job_id>/", wrap(self.csv_job_view), name=self._url_name("import_job")),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None):
        extra_context = dict(extra_context or {})
        if self.has_add_permission(request):
            extra_context["csv_import_url"] = reverse(f"{self.admin_site.name}:{self._url_name('import')}")
        return super().changelist_view(request, extra_context=extra_context)

    # --- import ------------------------------------------------------------------------------------------------

    def _context(self, request: HttpRequest, **extra: Any) -> dict[str, Any]:
        opts = self.model._meta
        return {**self.admin_site.each_context(request), "opts": opts, "title": f"Import {opts.verbose_name_plural}",
                "columns": [column.header for column in COLUMNS[self.csv_kind]],
                "changelist_url": reverse(f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_changelist"),
                **extra}

    def _check_rights(self, request: HttpRequest, update: bool) -> None:
        if not self.has_add_permission(request) or (update and not self.has_change_permission(request)):
            raise PermissionDenied

    def _run(self, request: HttpRequest, stream, *, update: bool, dry_run: bool):
        meta = current_request_meta()
        token = set_request_meta(remote_ip=meta.get("remote_ip", ""), user_agent=meta.get("user_agent", ""),
                                 action_source=IMPORT_SOURCE)
        try:
            return import_csv(self.csv_kind, stream, actor=request.user, update=update, dry_run=dry_run)
        finally:
            reset_request_meta(token)

    def _preview_limited(self, request: HttpRequest) -> bool:
        """Count this preview against the user's ``CSV_IMPORT_PREVIEW_RATE``; True (logged) when over it."""
        rate = getattr(settings, "CSV_IMPORT_PREVIEW_RATE", "")
        if not rate:
            return False
        if not is_ratelimited(request, group=PREVIEW_RATE_GROUP, key="user", rate=rate, increment=True):
            return False
        logger.warning("CSV import preview refused by the rate limit (%s) for %s (user %s): kind %s", rate,
                       request.user.get_username(), request.user.pk, self.csv_kind)
        return True

    def csv_import_view(self, request: HttpRequest):
        """Upload (GET, or a POST with errors) and preview (a valid POST: the dry run of the kept file)."""
        self._check_rights(request, update=False)
        form = CsvUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            update = form.cleaned_data["update"]
            self._check_rights(request, update=update)
            if self._preview_limited(request):
                form.add_error(None, PREVIEW_LIMITED)
                return TemplateResponse(request, "admin/inventory/import/upload.html", self._context(
                    request, form=form, max_cell=MAX_FIELD_SIZE), status=429)
            sweep_expired_uploads()
            target, lines = _keep_upload(form.cleaned_data["file"])
            name = target.name
            if lines > settings.CSV_IMPORT_TASK_ROWS:  # the header, and perhaps a last line without a newline
                return self._start_job(request, target, update=update, dry_run=True)
            try:
                with open(target, "rb") as stream:
                    result = self._run(request, stream, update=update, dry_run=True)
            except CsvFileError as exc:
                target.unlink(missing_ok=True)
                form.add_error("file", str(exc))
            else:
                logger.info("CSV import preview by %s (user %s): kind %s, %s bytes, update %s: %s",
                            request.user.get_username(), request.user.pk, self.csv_kind,
                            form.cleaned_data["file"].size, "yes" if update else "no", result.summary())
                os.utime(target)  # the file's age is its token's: sweep_expired_uploads deletes it when that expires
                token = signing.dumps({"file": name, "user": request.user.pk, "kind": self.csv_kind,
                                       "update": update}, salt=SIGNING_SALT)
                return TemplateResponse(request, "admin/inventory/import/preview.html", self._context(
                    request, result=result, token=token, update=update,
                    preview_rows=[{**row, "values": [row["cells"].get(column.key, "")
                                                     for column in COLUMNS[self.csv_kind]]}
                                  for row in result.preview],
                    confirm_url=reverse(f"{self.admin_site.name}:{self._url_name('import_confirm')}")))
        return TemplateResponse(request, "admin/inventory/import/upload.html", self._context(
            request, form=form, max_cell=MAX_FIELD_SIZE))

    def csv_confirm_view(self, request: HttpRequest):
        """Import the file the signed token names (POST only), then back to the list with the summary."""
        if request.method != "POST":
            return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{self._url_name('import')}"))
        sweep_expired_uploads()
        try:
            data = signing.loads(request.POST.get("token", ""), salt=SIGNING_SALT, max_age=TOKEN_AGE)
        except signing.BadSignature:
            messages.error(request, "This import preview has expired or is not valid; upload the file again.")
            return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{self._url_name('import')}"))
        if data.get("user") != request.user.pk or data.get("kind") != self.csv_kind:
            raise PermissionDenied
        self._check_rights(request, update=bool(data.get("update")))
        target = import_dir() / os.path.basename(data["file"])
        if not target.exists():
            messages.error(request, "This file was already imported or has expired; upload it again.")
            return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{self._url_name('import')}"))
        try:
            with open(target, "rb") as stream:
                result = self._run(request, stream, update=bool(data.get("update")), dry_run=False)
        except CsvFileError as exc:
            messages.error(request, str(exc))
            return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{self._url_name('import')}"))
        finally:
            target.unlink(missing_ok=True)
        level = messages.WARNING if result.failed else messages.SUCCESS
        messages.add_message(request, level, f"Import done. {result.summary()}")
        for error in result.errors[:MESSAGE_ERRORS]:
            messages.error(request, error)
        if len(result.errors) > MESSAGE_ERRORS:
            messages.error(request, f"... and {len(result.errors) - MESSAGE_ERRORS} more errors.")
        return HttpResponseRedirect(self._context(request)["changelist_url"])

    # --- large files: the task worker (issue 25) ---------------------------------------------------------------

    def _start_job(self, request: HttpRequest, target: Path, *, update: bool, dry_run: bool) -> HttpResponse:
        meta = current_request_meta()
        job = import_tasks.start_job(kind=self.csv_kind, user=request.user, path=str(target), update=update,
                                     dry_run=dry_run, remote_ip=meta.get("remote_ip", ""),
                                     user_agent=meta.get("user_agent", ""))
        return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{self._url_name('import_job')}",
                                            args=[job.pk]))

    def csv_job_view(self, request: HttpRequest, job_id):
        """A worker's job: its progress (the page reloads itself until the job is done), then its outcome; a
        finished dry run offers the confirmation (POST: the import itself, as a new job on the same file)."""
        job = ImportJob.objects.filter(pk=job_id, kind=self.csv_kind, user=request.user).first()
        if job is None:
            raise Http404("No such import.")
        self._check_rights(request, update=job.update)
        if request.method == "POST":
            expired = job.created_at < timezone.now() - timedelta(seconds=TOKEN_AGE)
            if not (job.dry_run and job.status == ImportJob.Status.DONE) or job.result.get("confirmed") or expired \
                    or not Path(job.file).exists():
                messages.error(request, "This import preview has expired or was already confirmed; upload the file "
                                        "again.")
                return HttpResponseRedirect(reverse(f"{self.admin_site.name}:{self._url_name('import')}"))
            response = self._start_job(request, Path(job.file), update=job.update, dry_run=False)
            ImportJob.objects.filter(pk=job.pk).update(result={**job.result, "confirmed": True})
            return response
        return TemplateResponse(request, "admin/inventory/import/job.html", self._context(
            request, job=job, result=job.result, refresh=not job.finished,
            upload_url=reverse(f"{self.admin_site.name}:{self._url_name('import')}")))

    # --- export actions ----------------------------------------------------------------------------------------

    def _export(self, request: HttpRequest, queryset, fmt: str) -> HttpResponse:
        scoped = export_queryset(self.csv_kind, user=request.user).filter(pk__in=queryset.values("pk"))
        stamp = timezone.localtime().strftime("%Y%m%d-%H%M%S")
        name = f"{self.model._meta.verbose_name_plural.replace(' ', '-')}-{stamp}.{fmt}"
        if fmt == "csv":
            buffer: Any = io.StringIO()
            count = write_export(self.csv_kind, scoped, buffer, fmt="csv", user=request.user)
            response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
        else:
            buffer = io.BytesIO()
            count = write_export(self.csv_kind, scoped, buffer, fmt="xlsx", user=request.user)
            response = HttpResponse(buffer.getvalue(), content_type=XLSX_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["X-Exported-Rows"] = str(count)
        return response

    def export_selected_csv(self, request: HttpRequest, queryset):
        return self._export(request, queryset, "csv")

    export_selected_csv.short_description = "Export selected as CSV (importer columns)"
    export_selected_csv.allowed_permissions = ("view",)

    def export_selected_xlsx(self, request: HttpRequest, queryset):
        return self._export(request, queryset, "xlsx")

    export_selected_xlsx.short_description = "Export selected as XLSX (importer columns)"
    export_selected_xlsx.allowed_permissions = ("view",)

