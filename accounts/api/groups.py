"""``/groups``: permission groups, super users only (Snipe-IT authorizes ``superadmin`` on every action)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from rest_framework import serializers
from rest_framework.response import Response

from accounts import services
from accounts.api.serializers import PERMISSION_MAP_SCHEMA, PermissionsField, permissions_map
from accounts.models import PermissionGroup, User
from assetsvc.api.fields import (
    CountField,
    IsoUtcField,
    SchemaField,
    StrictCharField,
    TextField,
    UserBriefField,
    actions_schema,
)
from assetsvc.api.formats import iso_utc
from assetsvc.api.permissions import HasItemPermission, IsSuperUser
from assetsvc.api.serializers import ApiSerializer
from assetsvc.api.viewsets import ApiViewSet, ResourceSchema, success


class GroupSerializer(serializers.Serializer):
    """The permission group record. The declared fields are its keys for the schema; :meth:`to_representation`
    builds the answer (tests/api/test_record_schemas.py checks that they agree)."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    permissions = SchemaField(PERMISSION_MAP_SCHEMA)
    users_count = CountField()
    notes = serializers.CharField(read_only=True, allow_null=True)
    created_by = UserBriefField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    available_actions = SchemaField(actions_schema("update", "delete"))

    def to_representation(self, group: PermissionGroup) -> dict[str, Any]:
        creator = group.created_by
        return {
            "id": group.pk,
            "name": group.name,
            "permissions": permissions_map(group),
            "users_count": int(getattr(group, "users_count", 0) or 0),
            "notes": group.notes or None,
            "created_by": None if creator is None else {"id": creator.pk, "name": creator.full_name},
            "created_at": iso_utc(group.created_at),
            "updated_at": iso_utc(group.updated_at),
            "available_actions": {"update": True, "delete": True},  # only super users ever see a group
        }


class GroupWriteSerializer(ApiSerializer):
    name = StrictCharField(min_length=2, max_length=255)
    permissions = PermissionsField()
    notes = TextField(max_length=65535)

    def validate_name(self, value: str) -> str:
        queryset = PermissionGroup.objects.filter(name__iexact=value)
        if self.instance is not None:
            queryset = queryset.exclude(pk=self.instance.pk)
        if queryset.exists():
            raise serializers.ValidationError(services.GROUP_NAME_TAKEN)
        return value


def _with_users_count(queryset):
    members = (
        User.groups.through.objects.filter(permissiongroup_id=OuterRef("pk"), user__deleted_at__isnull=True)
        .order_by().values("permissiongroup_id").annotate(n=Count("pk")).values("n")[:1]
    )
    return queryset.annotate(users_count=Coalesce(Subquery(members, output_field=IntegerField()), Value(0)))


class GroupViewSet(ApiViewSet):
    queryset = PermissionGroup.objects.all()
    lookup_value_regex = "[^/]+"
    permission_section = None  # not a permission key: super users only, below
    serializer_class = GroupSerializer  # the record: answers and the schema's responses
    write_serializer_class = GroupWriteSerializer  # request bodies
    schema = ResourceSchema()
    permission_classes = [HasItemPermission, IsSuperUser]
    not_found_message = services.GROUP_NOT_FOUND
    search_fields = ["name", "notes"]
    sort_fields = {"id": "id", "name": "name", "created_at": "created_at", "users_count": "users_count"}

    def get_queryset(self):
        return _with_users_count(super().get_queryset().select_related("created_by"))


    def _record(self, group: PermissionGroup) -> dict:
        fresh = _with_users_count(PermissionGroup.objects.select_related("created_by")).get(pk=group.pk)
        return self.get_serializer(fresh).data

    def list(self, request):
        queryset = self.filter_queryset(self.get_queryset())
        name = request.query_params.get("name")
        if name:
            queryset = queryset.filter(name__iexact=name)
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    def create(self, request):
        serializer = GroupWriteSerializer(data=self.input)
        serializer.is_valid(raise_exception=True)
        group = services.group_create(actor=request.user, data=serializer.validated_data)
        return success(self._record(group), "Group was successfully created.")

    def update(self, request, pk=None):
        group = self.get_object()
        serializer = GroupWriteSerializer(group, data=self.input, partial=True)
        serializer.is_valid(raise_exception=True)
        group = services.group_update(actor=request.user, group=group, data=serializer.validated_data)
        return success(self._record(group), "Group was successfully updated.")

    partial_update = update

    def destroy(self, request, pk=None):
        services.group_delete(actor=request.user, group=self.get_object())
        return success(None, "Group was successfully deleted.")
