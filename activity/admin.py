from django.contrib import admin

from activity.models import ActionLog
from assetsvc.admin_services import ReadOnlyModelAdmin, restricted


@admin.register(ActionLog)
class ActionLogAdmin(ReadOnlyModelAdmin):
    """Read-only: rows are written by services only, in the transaction of the change they record. An administrator
    limited to a company (separation on) sees that company's rows only, as ``GET reports/activity``."""

    list_display = ["created_at", "action_type", "item_type", "item_id", "target_type", "target_id", "created_by",
                    "company"]
    list_filter = ["action_type", "item_type"]
    list_select_related = ["created_by", "company"]
    search_fields = ["note", "item_type", "target_type"]

    def get_queryset(self, request):
        return restricted(super().get_queryset(request), request.user)
