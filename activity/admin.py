from django.contrib import admin

from activity.models import ActionLog
from assetsvc.admin_services import ReadOnlyModelAdmin, current_request, restricted
from assetsvc.api.fields import visible_reference
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
