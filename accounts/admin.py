"""Django admin for accounts. Users and permission groups are saved, deleted and restored through
``accounts.services`` with the API's own serializers validating the input (STYLE.md §2), so the admin refuses what the
API refuses (unknown permission keys, privilege escalation, deleting a user who holds assets) and a user delete is
soft, logged and revokes the user's tokens. A super user issues a personal access token for anyone from the token
list (the value is shown once, on the page that answers the form, and never stored); token records are otherwise
read-only, and revoking or deleting one stops its secret. django-oauth-toolkit's own models and Django's auth groups
are internals (permission groups are ``PermissionGroup``): :func:`hide_internal_admins` takes them off the admin."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm, BaseUserCreationForm, UserChangeForm
from django.contrib.auth.models import Group
from django.template.response import TemplateResponse
from django_otp.plugins.otp_totp.models import TOTPDevice
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)

from accounts import departments, services
from accounts.admin_permissions import (
    GROUP_CHOICES,
    PermissionMapField,
    bind_permission_table,
    permission_overview,
)
from accounts.api.departments import DepartmentWriteSerializer, users_count
from accounts.api.groups import GroupWriteSerializer
from accounts.api.users import UserWriteSerializer
from accounts.holdings import leavers
from accounts.models import Department, PermissionGroup, PersonalAccessToken, User
from accounts.services import DEFAULT_TOKEN_NAME, personal_token_delete, personal_token_issue, personal_token_revoke
from assetsvc.admin_services import (
    ServiceAdminMixin,
    ServiceFormMixin,
    ServiceModelForm,
    SoftDeleteAdminMixin,
    current_request,
    error_map,
    restricted,
)
from assetsvc.admin_site import use_picker_labels

#: Admin form field → the API's input name, where the serializer's field ``source`` does not tell.
USER_API_NAMES = {"is_active": "activated", "password1": "password"}


class UserAddForm(ServiceFormMixin, BaseUserCreationForm):
    """The add page: validated by the API's ``UserWriteSerializer``, saved by ``user_create``."""

    api_serializer = UserWriteSerializer
    api_names = USER_API_NAMES

    class Meta(BaseUserCreationForm.Meta):
        model = User
        fields = ("username", "first_name", "last_name", "email")

    def extra_post_clean(self) -> None:
        self.validate_password_for_user(self.instance)

    def call_service(self, data: dict[str, Any]) -> User:
        return services.user_create(actor=self.actor, data=data)


class UserEditForm(ServiceFormMixin, UserChangeForm):
    """The change page: the changed fields only, validated as a PATCH and saved by ``user_update``. Permissions are
    Snipe-IT's Grant / Deny / Inherit table (``accounts.admin_permissions``), with what the groups already give."""

    api_serializer = UserWriteSerializer
    api_names = USER_API_NAMES
    permissions = PermissionMapField()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "permissions" in self.fields:
            bind_permission_table(self.fields["permissions"], actor=self.actor, target=self.instance,
                                  stored=self.instance.permissions, user=self.instance)

    def call_service(self, data: dict[str, Any]) -> User:
        return services.user_update(actor=self.actor, user=self.instance, data=data)


class UserPasswordForm(ServiceFormMixin, AdminPasswordChangeForm):
    """The password page, through ``user_update`` (logged; refused for a deleted user). A password cannot be made
    unusable here: the API has no such verb."""

    api_serializer = UserWriteSerializer
    api_names = USER_API_NAMES
    adding = False

    def __init__(self, user, *args, **kwargs) -> None:
        super().__init__(user, *args, **kwargs)
        self.fields.pop("usable_password", None)

    def api_input(self) -> dict[str, Any]:
        return {"password": self.cleaned_data["password1"]}  # the form's changed_data names only "password"

    def add_service_error(self, exc: Exception) -> None:
        # Django's password page shows field errors only: a refusal (e.g. a deleted user) goes under the password.
        self.add_error("password1", [text for texts in error_map(exc).values() for text in texts])

    def call_service(self, data: dict[str, Any]) -> User:
        return services.user_update(actor=self.actor, user=self.user, data=data)

    def save(self, commit: bool = True) -> User:
        self.user = super().save(commit)
        return self.user


class LeaverListFilter(admin.SimpleListFilter):
    """Offboarding (issue 30): deactivated users who still hold assets, accessories or license seats."""

    title = "leaver still holding items"
    parameter_name = "leaver"

    def lookups(self, request, model_admin):
        return [("yes", "Yes")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=leavers(queryset.model._default_manager.all()).values("pk"))
        return queryset


@admin.register(User)
class UserAdmin(SoftDeleteAdminMixin, ServiceAdminMixin, DjangoUserAdmin):
    form = UserEditForm
    add_form = UserAddForm
    change_password_form = UserPasswordForm
    list_display = ["username", "email", "first_name", "last_name", "company", "is_active", "deleted_at"]
    list_filter = ["is_active", LeaverListFilter, "company", "ldap_import"]
    search_fields = ["username", "email", "first_name", "last_name", "employee_num"]
    ordering = ["username"]
    filter_horizontal = ["groups"]
    fieldsets = [
        (None, {"fields": ["username", "password"]}),
        ("Person", {"fields": ["first_name", "last_name", "email", "employee_num", "jobtitle", "phone", "notes"]}),
        ("Access", {"fields": ["is_active", "company", "department", "location", "manager", "groups",
                               "permissions"]}),
        # ldap_import: set only by the directory sync and sign-in (docs/directory.md), never by hand
        ("Dates", {"fields": ["last_login", "created_at", "deleted_at", "ldap_import"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["username", "first_name", "last_name", "email",
                                                             "password1", "password2"]})]
    readonly_fields = ["last_login", "created_at", "deleted_at", "ldap_import", "permissions_overview"]
    #: The manager is picked like a department's (issue 31): the picker finds people by name, within the admin's
    #: company; ``user_update`` refuses the user themselves, a loop and anyone the admin may not see.
    autocomplete_fields = ["manager"]

    def get_fieldsets(self, request, obj=None):
        """Without the change right (an administrator views users to pick them), the page is read-only: the password
        is left out (Django would show parts of its hash and a "Reset password" link that answers 403) and the
        permissions are the table with its boxes disabled, not the stored JSON."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fieldsets
        shown = {"permissions": "permissions_overview"}
        return [(name, {**options, "fields": [shown.get(field, field) for field in options["fields"]
                                              if field != "password"]})
                for name, options in fieldsets]

    @admin.display(description="permissions")
    def permissions_overview(self, obj: User) -> str:
        return permission_overview(stored=obj.permissions, user=obj)

    def user_change_password(self, request, id, form_url=""):
        token = current_request.set(request)  # Django builds this form itself: the acting user comes this way
        try:
            return super().user_change_password(request, id, form_url)
        finally:
            current_request.reset(token)

    def delete_item(self, request, obj: User) -> None:
        services.user_delete(actor=request.user, user=obj)

    def restore_item(self, request, obj: User) -> None:
        services.user_restore(actor=request.user, user=obj)


class PermissionGroupForm(ServiceModelForm):
    """Name, notes and one Grant box per permission key (Snipe-IT's group page), saved by ``group_create`` /
    ``group_update``."""

    api_serializer = GroupWriteSerializer
    permissions = PermissionMapField(choices=GROUP_CHOICES)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "permissions" in self.fields:
            bind_permission_table(self.fields["permissions"], actor=self.actor, target=None,
                                  stored=self.instance.permissions)

    class Meta:
        model = PermissionGroup
        fields = ["name", "permissions", "notes"]

    def call_service(self, data: dict[str, Any]) -> PermissionGroup:
        if self.adding:
            return services.group_create(actor=self.actor, data=data)
        return services.group_update(actor=self.actor, group=self.instance, data=data)


@admin.register(PermissionGroup)
class PermissionGroupAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = PermissionGroupForm
    list_display = ["name", "created_at"]
    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at", "updated_at"]

    def delete_item(self, request, obj: PermissionGroup) -> None:
        services.group_delete(actor=request.user, group=obj)


class DepartmentForm(ServiceModelForm):
    """Validated by the API's ``DepartmentWriteSerializer``, saved by ``department_create`` / ``department_update``."""

    api_serializer = DepartmentWriteSerializer

    class Meta:
        model = Department
        fields = ["name", "company", "location", "manager", "phone", "fax", "notes"]

    def call_service(self, data: dict[str, Any]) -> Department:
        if self.adding:
            return departments.department_create(actor=self.actor, data=data)
        return departments.department_update(actor=self.actor, department=self.instance, data=data)


@admin.register(Department)
class DepartmentAdmin(ServiceAdminMixin, admin.ModelAdmin):
    """Departments, company-scoped as in the API: the list, pages and pickers read through ``restrict(user)``
    (``assetsvc.admin_services.restricted``, the rule of inventory's ``ScopedAdminMixin``, which this layer cannot
    import); the users count is the API's annotation, of the users the admin may see. A delete goes through
    ``department_delete``, so a department with users is refused with Snipe-IT's message."""

    form = DepartmentForm
    list_display = ["name", "company", "location", "manager", "users_count", "created_at"]
    list_select_related = ["company", "location", "manager"]
    search_fields = ["name", "notes", "phone", "fax"]
    readonly_fields = ["created_by", "created_at", "updated_at"]
    autocomplete_fields = ["manager"]

    def get_queryset(self, request):
        queryset = restricted(super().get_queryset(request), request.user)
        return queryset.annotate(users_count=users_count(request.user))

    def get_list_filter(self, request):
        return ["company"] if request.user.is_superuser else []

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        formfield = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if getattr(formfield, "queryset", None) is not None:
            formfield.queryset = restricted(formfield.queryset, request.user)
        return use_picker_labels(formfield)  # the manager reads as in the autocomplete (issue 28)

    @admin.display(description="users", ordering="users_count")
    def users_count(self, obj: Department) -> int:
        return int(getattr(obj, "users_count", 0) or 0)

    def delete_item(self, request, obj: Department) -> None:
        departments.department_delete(actor=request.user, department=obj)


class PersonalTokenAddForm(forms.ModelForm):
    """Who gets the token and its name; ``personal_token_issue`` makes it (the admin's ``save_model``)."""

    class Meta:
        model = PersonalAccessToken
        fields = ["user", "name"]
        help_texts = {"name": "Shown in the token list, e.g. the script or machine that uses it."}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # a searching picker (the user admin's search fields), labelled as every user picker (issue 28); the widget
        # first: setting the queryset hands the widget its choices
        self.fields["user"].widget = AutocompleteSelect(PersonalAccessToken._meta.get_field("user"), admin.site)
        # issue_token's rule: no token for a deleted or deactivated user (it could not authenticate anyway).
        self.fields["user"].queryset = User.objects.filter(is_active=True, deleted_at__isnull=True).order_by(
            "username")
        use_picker_labels(self.fields["user"])
        self.fields["name"].initial = DEFAULT_TOKEN_NAME


@admin.register(PersonalAccessToken)
class PersonalAccessTokenAdmin(admin.ModelAdmin):
    """Token records: the value is never stored, so there is nothing secret to show or search. "Add" issues a new
    token (super users only: a token acts as its user) and answers with its value, once."""

    list_display = ["name", "user", "revoked", "created_at", "expires_at"]
    list_filter = ["revoked"]
    search_fields = ["name", "user__username"]
    # The OAuth client and access-token rows behind a record are django-oauth-toolkit's internals: not shown.
    readonly_fields = ["id", "user", "name", "created_at", "updated_at", "expires_at", "revoked"]
    actions = ["revoke_tokens"]
    created_template = "admin/accounts/personalaccesstoken/created.html"

    def has_add_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_superuser

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = PersonalTokenAddForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else []

    def get_fields(self, request, obj=None):
        return ["user", "name"] if obj is None else self.readonly_fields

    def save_model(self, request, obj, form, change) -> None:
        if change:  # every field is read-only on the change page: nothing to save
            return
        record, raw = personal_token_issue(user=form.cleaned_data["user"], name=form.cleaned_data["name"])
        obj.pk, obj.application_id, obj.access_token_id = record.pk, record.application_id, record.access_token_id
        obj.created_at, obj.updated_at, obj.expires_at = record.created_at, record.updated_at, record.expires_at
        obj._state.adding = False
        request._issued_token = raw  # for response_add, on this request only

    def response_add(self, request, obj, post_url_continue=None):
        """The value once, on the answer to the form itself: never in a message, a session or a cookie."""
        raw = getattr(request, "_issued_token", None)
        if raw is None:
            return super().response_add(request, obj, post_url_continue)
        context = {**self.admin_site.each_context(request), "opts": self.opts, "record": obj, "token": raw,
                   "title": "Personal access token created"}
        return TemplateResponse(request, self.created_template, context)  # the admin's views send no-store

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



def hide_internal_admins() -> None:
    """Unregister django-oauth-toolkit's models (its one client, tokens, grants: kept consistent by the token
    services), Django's auth ``Group`` (permissions here are ``PermissionGroup``) and django-otp's ``TOTPDevice``
    (unused: authenticators are ``SealedTOTPDevice``, seed encrypted; a device added on its page would keep a plain
    seed and never be asked). Called from ``AccountsConfig.ready()``, after the admin has imported every app's
    ``admin`` module."""
    for model in (get_application_model(), get_access_token_model(), get_refresh_token_model(), get_grant_model(),
                  get_id_token_model(), Group, TOTPDevice):
        if admin.site.is_registered(model):
            admin.site.unregister(model)
