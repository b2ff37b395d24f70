"""``/users``: list, read, create, update, delete and restore (reference §6.3), company-scoped like items."""

from __future__ import annotations

import re
from typing import Any

import django_filters
from django.db.models import Exists, OuterRef
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts import services
from accounts.api.serializers import GroupsField, PermissionsField, UserProfileSerializer
from accounts.holdings import leavers
from accounts.models import Department, User
from accounts.permissions import has_access
from assetsvc.api.fields import EmailField, ScopedPrimaryKeyRelatedField, StrictCharField, TextField
from assetsvc.api.filters import IdFilter, parse_id
from assetsvc.api.inputs import parse_flag
from assetsvc.api.serializers import ApiSerializer
from assetsvc.api.viewsets import (
    SELECTLIST_KEYS,
    ApiViewSet,
    ResourceSchema,
    SelectListMixin,
    success,
    success_envelope,
)
from companies.models import Company

#: Locations belong to inventory, a layer above accounts: the user's ``location`` foreign key names the model.
LOCATION_MODEL = User._meta.get_field("location").related_model
PERMISSION_ITEM = re.compile(r"^permissions\[([^\]]+)\]$")
ID = re.compile(r"^[0-9]{1,18}$")
#: Snipe-IT's words for a location it cannot find (inventory's catalogue answers the same).
LOCATION_NOT_FOUND = "Location not found"


class UserWriteSerializer(ApiSerializer):
    """The fields a client may write (an allowlist: nothing else reaches the model, whatever the body carries)."""

    first_name = StrictCharField(max_length=191)
    last_name = TextField(max_length=191)
    username = StrictCharField(max_length=191)
    password = StrictCharField(min_length=8, max_length=4096, write_only=True, trim_whitespace=False)
    password_confirmation = StrictCharField(required=False, allow_null=True, write_only=True, trim_whitespace=False)
    email = EmailField(max_length=191)
    employee_num = StrictCharField(max_length=191, required=False, allow_null=True)
    jobtitle = TextField(max_length=191)
    phone = TextField(max_length=50)
    notes = TextField(max_length=65535)
    activated = serializers.BooleanField(required=False)
    company_id = ScopedPrimaryKeyRelatedField(queryset=Company.objects.all(), required=False, allow_null=True,
                                              source="company")
    location_id = ScopedPrimaryKeyRelatedField(queryset=LOCATION_MODEL._default_manager.all(), required=False,
                                               allow_null=True, source="location")
    department_id = ScopedPrimaryKeyRelatedField(queryset=Department.objects.all(), required=False,
                                                 allow_null=True, source="department")
    #: Who manages the user (issue 31): a live user the caller may see; ``accounts.services.checked_manager`` also
    #: refuses the user themselves and a loop.
    manager_id = ScopedPrimaryKeyRelatedField(queryset=User.objects.alive(), required=False, allow_null=True,
                                              source="manager")
    permissions = PermissionsField()
    groups = GroupsField()

    def validate_email(self, value):
        return value or ""

    def validate_username(self, value):
        """A taken username is reported with the other field errors (issue 12); the service checks it again."""
        if services.username_taken(value, self.context.get("user_pk")):
            raise serializers.ValidationError(services.USERNAME_TAKEN)
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        confirmation = attrs.pop("password_confirmation", None)
        if confirmation is not None and attrs.get("password") != confirmation:
            raise serializers.ValidationError({"password": ["The password confirmation does not match."]})
        return attrs


class UserFilterSet(django_filters.FilterSet):
    activated = django_filters.BooleanFilter(field_name="is_active")
    company_id = IdFilter(field_name="company_id")
    location_id = IdFilter(field_name="location_id")
    department_id = IdFilter(field_name="department_id")
    manager_id = IdFilter(field_name="manager_id")
    group_id = IdFilter(method="filter_group")
    email = django_filters.CharFilter(field_name="email", lookup_expr="iexact")
    username = django_filters.CharFilter(field_name="username", lookup_expr="iexact")
    first_name = django_filters.CharFilter(field_name="first_name", lookup_expr="iexact")
    last_name = django_filters.CharFilter(field_name="last_name", lookup_expr="iexact")
    employee_num = django_filters.CharFilter(field_name="employee_num", lookup_expr="iexact")
    created_by = IdFilter(field_name="created_by_id")
    ldap_import = django_filters.BooleanFilter(field_name="ldap_import")
    #: Offboarding (issue 30): ``leavers=true`` lists deactivated users who still hold assets, accessories or
    #: license seats (``false``: everyone else).
    leavers = django_filters.BooleanFilter(method="filter_leavers")

    class Meta:
        model = User
        fields = ["activated", "company_id", "location_id", "department_id", "manager_id", "group_id", "email",
                  "username", "first_name", "last_name", "employee_num", "created_by", "ldap_import", "leavers"]

    def filter_leavers(self, queryset, name, value):
        if value is None:
            return queryset
        chosen = leavers(queryset).values("pk")
        return queryset.filter(pk__in=chosen) if value else queryset.exclude(pk__in=chosen)

    def filter_group(self, queryset, name, value):
        group_id = parse_id(value)
        if group_id is None:
            return queryset.none()
        membership = User.groups.through.objects.filter(user_id=OuterRef("pk"), permissiongroup_id=group_id)
        return queryset.filter(Exists(membership))




#: The statuses of ``GET users/list/{status}``.
USER_LIST_STATUSES = ("active", "deleted", "all")


class UserViewSet(SelectListMixin, ApiViewSet):
    """Users are company-scoped like items (rules 1 to 5): with separation on, a user with a company sees and manages
    only users of that company; super users and users without a company see everyone."""

    queryset = User.objects.all()
    permission_section = "users"
    serializer_class = UserProfileSerializer  # the record: answers and the schema's responses
    write_serializer_class = UserWriteSerializer  # request bodies
    schema = ResourceSchema()
    lookup_value_regex = "[^/]+"
    action_permissions = {"restore": "delete", "selectlist": None, "location_users": "view",
                          "list_by_status": "view"}
    not_found_message = services.USER_NOT_FOUND
    selectlist_keys = SELECTLIST_KEYS
    selectlist_search_fields = ("first_name", "last_name", "username", "email", "employee_num")
    selectlist_ordering = ("last_name", "first_name", "id")
    filterset_class = UserFilterSet
    search_fields = ["first_name", "last_name", "username", "email", "employee_num", "jobtitle", "phone", "notes",
                     "company__name", "location__name", "department__name"]
    sort_fields = {
        **{key: key for key in ("id", "username", "email", "employee_num", "jobtitle", "phone", "created_at",
                                "updated_at", "last_login", "assets_count")},
        "first_name": ("first_name", "last_name"),
        "last_name": ("last_name", "first_name"),
        "name": ("first_name", "last_name"),
        "activated": "is_active",
        "company": "company__name",
        "location": "location__name",
        "department": "department__name",
        "manager": ("manager__first_name", "manager__last_name"),
    }

    def get_queryset(self):
        if self.action == "selectlist":
            return super().get_queryset().alive()
        queryset = (
            super().get_queryset().with_counts(self.request.user)
            .select_related("company", "location", "department", "manager", "created_by").prefetch_related("groups")
        )
        if self.action == "list":
            params = self.request.query_params
            if bool(parse_flag(params.get("deleted"))):
                return queryset.deleted()
            if not bool(parse_flag(params.get("all"))):
                return queryset.alive()
        return queryset  # single reads also find deleted users (restore, and their deleted_at)


    def selectlist_text(self, user: User) -> str:
        """Snipe-IT's words: ``Last, First (username) - #employee_num``."""
        text = f"{user.last_name}, " if user.last_name else ""
        text += user.first_name
        if user.username:
            text += f" ({user.username})"
        if user.employee_num:
            text += f" - #{user.employee_num}"
        return text

    def _record(self, user: User) -> dict:
        fresh = User.objects.with_counts(self.request.user).select_related(
            "company", "location", "department", "manager", "created_by").prefetch_related("groups").get(pk=user.pk)
        return self.get_serializer(fresh).data

    def _write_input(self) -> dict[str, Any]:
        """The body, with PHP-style ``permissions[key]=value`` fields folded into one ``permissions`` object."""
        data = dict(self.input)
        folded = {}
        for key in list(data):
            match = PERMISSION_ITEM.match(key)
            if match:
                folded[match.group(1)] = data.pop(key)
        if folded:
            base = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
            data["permissions"] = {**base, **folded}
        return data

    def list(self, request):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(operation_id="users_list_by_status", responses={200: UserProfileSerializer(many=True)})
    def list_by_status(self, request, status: str | None = None):
        """``GET users/list/{status}``: Snipe-IT's older list address (v8.1.4 still routes it, to a method its
        controller no longer has: a 500 there). ``deleted`` lists the deleted users, ``all`` every user, ``active``
        (or no status) the live ones, each as ``GET /users`` lists them (filters, search, sort, pages, separation).
        Any other status is a field error rather than a silently different list."""
        wanted = (status or "active").strip().lower()
        if wanted not in USER_LIST_STATUSES:
            choices = ", ".join(USER_LIST_STATUSES)
            raise exceptions.ValidationError({"status": [f"The status must be one of: {choices}."]})
        queryset = self.get_queryset()
        queryset = {"active": queryset.alive, "deleted": queryset.deleted, "all": queryset.all}[wanted]()
        page = self.paginate_queryset(self.filter_queryset(queryset))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(operation_id="locations_users_list", responses={200: UserProfileSerializer(many=True)})
    def location_users(self, request, location_pk: str):
        """``GET locations/{id}/users``: the live users whose location is that location, as ``GET /users`` lists them
        (filters, search, sort, pages, separation). Locations are not scoped (rule 6): an unknown one answers the
        locations' not-found text. The caller needs ``locations.view`` besides ``users.view``."""
        pk = str(location_pk).strip()
        visible = LOCATION_MODEL._default_manager.filter(pk=int(pk)).exists() if ID.match(pk) else False
        if not visible:
            raise self.not_found(LOCATION_NOT_FOUND)
        if not has_access(request.user, "locations.view"):
            raise exceptions.PermissionDenied()
        queryset = self.filter_queryset(self.get_queryset().alive().filter(location_id=int(pk)))
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def create(self, request):
        data = self._write_input()
        services.ensure_company_input_allowed(actor=request.user, data=data,
                                              current_company_id=request.user.company_id, creating=True)
        serializer = UserWriteSerializer(data=data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        user = services.user_create(actor=request.user, data=serializer.validated_data)
        return success(self._record(user), "User was successfully created.")

    def update(self, request, pk=None):
        user = self.get_object()
        data = self._write_input()
        if user.deleted_at is None:
            services.ensure_may_manage(actor=request.user, target=user)
        services.ensure_company_input_allowed(actor=request.user, data=data, current_company_id=user.company_id,
                                              creating=False)
        serializer = UserWriteSerializer(data=data, partial=True,
                                         context={**self.get_serializer_context(), "user_pk": user.pk})
        serializer.is_valid(raise_exception=True)
        user = services.user_update(actor=request.user, user=user, data=serializer.validated_data)
        return success(self._record(user), "User was successfully updated.")

    partial_update = update

    def destroy(self, request, pk=None):
        services.user_delete(actor=request.user, user=self.get_object())
        return success(None, "User was successfully deleted.")

    @extend_schema(request=None, responses={200: success_envelope(None)})
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        services.user_restore(actor=request.user, user=self.get_object())
        return success(None, "User was successfully restored.")
