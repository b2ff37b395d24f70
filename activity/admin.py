from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404
from django.urls import path, reverse
from django.utils.html import format_html

from activity.files import file_kinds
from activity.models import ActionLog, StoredFile
from activity.services import stored_file_delete, stored_file_open
from assetsvc.admin_services import ReadOnlyModelAdmin, current_request, restricted
from assetsvc.api.fields import visible_reference
from assetsvc.exceptions import NotFoundError
from assetsvc.registry import hook
from assetsvc.scoping import hidden_company, limiting_company_id


def _limit() -> int | None:
    """The company the caller of the page being rendered is limited to (display callables get only the row)."""
    request = current_request.get()
    return limiting_company_id(request.user) if request is not None else None


@admin.register(ActionLog)
class ActionLogAdmin(ReadOnlyModelAdmin):
    """Read-only: rows are written by services only, in the transaction of the change they record. An administrator
    limited to a company (separation on) sees the rows ``GET reports/activity`` shows them: their company's items' rows,
    and the rows whose target was theirs (issue 25), of which the list shows no other company's person or name, a
    search does not reach them, and the row's own page (note, changes, item) is not found."""

    list_display = ["created_at", "action_type", "item_type", "item_id", "target_type", "target_id", "actor",
                    "company_shown"]
    list_filter = ["action_type", "item_type"]
    list_select_related = ["created_by", "company"]
    search_fields = ["note", "item_type", "target_type"]

    def get_queryset(self, request):
        return restricted(super().get_queryset(request), request.user)

    def changelist_view(self, request, extra_context=None):
        token = current_request.set(request)
        try:
            response = super().changelist_view(request, extra_context)
            if hasattr(response, "render"):
                response.render()
            return response
        finally:
            current_request.reset(token)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        limit = limiting_company_id(request.user)
        if obj is not None and limit is not None and obj.company_id != limit:
            return None  # another company's item: its note and changes are not theirs to read
        return obj

    def get_search_results(self, request, queryset, search_term):
        queryset, duplicates = super().get_search_results(request, queryset, search_term)
        limit = limiting_company_id(request.user)
        if search_term.strip() and limit is not None:
            queryset = queryset.filter(company_id=limit)  # notes of other companies' items are not searched
        return queryset, duplicates

    @admin.display(description="created by", ordering="created_by")
    def actor(self, obj: ActionLog) -> str:
        user = visible_reference(obj.created_by, _limit())
        return str(user) if user is not None else "-"

    @admin.display(description="company", ordering="company")
    def company_shown(self, obj: ActionLog) -> str:
        return str(obj.company) if obj.company is not None and not hidden_company(_limit(), obj.company_id) else "-"


@admin.register(StoredFile)
class StoredFileAdmin(ReadOnlyModelAdmin):
    """Files on records (issue 27; docs/files.md): listed, downloaded and deleted here with the same rules as the
    API. Uploads come through the API. A file is served or deleted only when its record is visible to the caller
    (its kind's queryset: company separation, live rows) and the caller holds the record's key (view, or the
    kind's write key to delete); deleting goes through ``stored_file_delete`` (an action-log row; the bytes go once
    the transaction commits)."""

    list_display = ["filename", "item_type", "item_id", "size", "content_type", "created_at", "download"]
    list_filter = ["item_type"]
    search_fields = ["filename", "note"]
    actions = ["delete_files"]

    def get_queryset(self, request):
        return restricted(super().get_queryset(request), request.user)

    def get_urls(self):
        own = [path("<int:pk>/download/", self.admin_site.admin_view(self.download_view),
                    name="activity_storedfile_download")]
        return own + super().get_urls()

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("activity.delete_storedfile")

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # deletes go through the service, never a bulk queryset delete
        return actions

    def _record(self, request, stored: StoredFile, verb: str):
        """``(kind, record)`` when ``request.user`` may ``verb`` the file's record, else None."""
        kind = file_kinds().get(stored.item_type)
        if kind is None:
            return None
        key = f"{kind.section}.{kind.write_verb if verb == 'write' else 'view'}"
        if not hook("permission_checker")(request.user, key):
            return None
        record = kind.queryset(request.user).filter(pk=stored.item_id).first()
        return (kind, record) if record is not None else None

    @admin.display(description="download")
    def download(self, obj: StoredFile) -> str:
        return format_html('<a href="{}">download</a>', reverse("admin:activity_storedfile_download", args=[obj.pk]))

    def download_view(self, request, pk: int):
        stored = self.get_queryset(request).filter(pk=pk).first()
        if stored is None or not self.has_view_permission(request) or self._record(request, stored, "view") is None:
            raise Http404("File not found.")
        try:
            handle = stored_file_open(stored)
        except NotFoundError as exc:
            raise Http404(str(exc)) from exc
        response = FileResponse(handle, as_attachment=True, filename=stored.filename, content_type=stored.content_type)
        response["Cache-Control"] = "private, no-store"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        return response

    @admin.action(description="Delete the selected files", permissions=["delete"])
    def delete_files(self, request, queryset):
        deleted = refused = 0
        for stored in queryset:
            found = self._record(request, stored, "write")
            if found is None:
                refused += 1
                continue
            kind, record = found
            try:
                stored_file_delete(kind=kind, record=record, stored_file=stored, actor=request.user)
            except (PermissionDenied, NotFoundError):  # a user who outranks them; a file deleted meanwhile
                refused += 1
                continue
            deleted += 1
        if deleted:
            self.message_user(request, f"{deleted} file(s) deleted.", messages.SUCCESS)
        if refused:
            self.message_user(request, f"{refused} file(s) not deleted: their record is not yours to change.",
                              messages.WARNING)
