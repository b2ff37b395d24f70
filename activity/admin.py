from django.contrib import admin

from activity.models import ActionLog


@admin.register(ActionLog)
class ActionLogAdmin(admin.ModelAdmin):
    """Read-only: rows are written by services only, in the transaction of the change they record."""

    list_display = ["created_at", "action_type", "item_type", "item_id", "target_type", "target_id", "created_by",
                    "company"]
    list_filter = ["action_type", "item_type"]
    list_select_related = ["created_by", "company"]
    search_fields = ["note", "item_type", "target_type"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
