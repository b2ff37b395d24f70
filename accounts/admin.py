from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm

from accounts.models import PermissionGroup, PersonalAccessToken, User
from accounts.services import personal_token_delete, personal_token_revoke


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ["username", "email", "first_name", "last_name", "company", "is_active", "deleted_at"]
    list_filter = ["is_active", "company"]
    search_fields = ["username", "email", "first_name", "last_name", "employee_num"]
    ordering = ["username"]
    filter_horizontal = ["groups"]
    change_password_form = AdminPasswordChangeForm
    fieldsets = [
        (None, {"fields": ["username", "password"]}),
        ("Person", {"fields": ["first_name", "last_name", "email", "employee_num", "jobtitle", "phone", "notes"]}),
        ("Access", {"fields": ["is_active", "company", "location", "permissions", "groups"]}),
        ("Dates", {"fields": ["last_login", "created_at", "deleted_at"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["username", "email", "password1", "password2"]})]
    readonly_fields = ["last_login", "created_at"]


@admin.register(PermissionGroup)
class PermissionGroupAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(PersonalAccessToken)
class PersonalAccessTokenAdmin(admin.ModelAdmin):
    """Lists token records only: the value is never stored, so there is nothing secret to show or search."""

    list_display = ["name", "user", "revoked", "created_at", "expires_at"]
    list_filter = ["revoked"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["id", "user", "application", "access_token", "name", "created_at", "updated_at",
                       "expires_at", "revoked"]
    actions = ["revoke_tokens"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Revoke selected tokens (keep the records)")
    def revoke_tokens(self, request, queryset) -> None:
        count = 0
        for record in queryset.filter(revoked=False):
            personal_token_revoke(user=record.user, token_id=record.pk)
            count += 1
        self.message_user(request, f"Revoked {count} token(s).")

    # Deleting a record must revoke its secret too: the DOT access token is deleted with it (a token deleted here
    # answered 200 for years before this was fixed).
    def delete_model(self, request, obj) -> None:
        personal_token_delete(token=obj)

    def delete_queryset(self, request, queryset) -> None:
        for record in queryset:
            personal_token_delete(token=record)


class AccessTokenAdmin(admin.ModelAdmin):
    """Replaces DOT's default admin, which lists and searches the raw ``token`` column."""

    list_display = ["id", "user", "application", "expires", "created"]
    search_fields = ["user__username"]
    fields = ["user", "application", "expires", "scope", "created"]
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

