"""``/departments``: list, read, create, update (PUT and PATCH partial), delete and a select list (Snipe-IT's
``DepartmentsController`` and ``DepartmentsTransformer``), company-scoped like users."""

from __future__ import annotations

from typing import Any, ClassVar

import django_filters
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from rest_framework import serializers

from accounts import departments as services
from accounts.models import Department, User
from assetsvc.api.fields import (
    BRIEF_SCHEMA,
    CompanyBriefField,
    CountField,
    IsoUtcField,
    SchemaField,
    ScopedPrimaryKeyRelatedField,
    StrictCharField,
    TextField,
    UserBriefField,
    actions_schema,
    company_brief,
    person_brief,
    reference_limit,
)
from assetsvc.api.filters import IdFilter
from assetsvc.api.formats import brief, record_formats
from assetsvc.api.serializers import ApiSerializer
from assetsvc.api.viewsets import SELECTLIST_KEYS, ResourceViewSet, item_service
from companies.models import Company

#: Locations belong to inventory, a layer above accounts: the foreign key names the model.
LOCATION_MODEL = Department._meta.get_field("location").related_model
MANAGER_SCHEMA = {
    "type": "object",
    "nullable": True,
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "first_name": {"type": "string"},
                   "last_name": {"type": "string"}},
}


def users_count(viewer) -> Coalesce:
    """The live users of each department that ``viewer`` may see, as one correlated subquery (a list runs the same
    queries for any page size)."""
    users = User.objects.restrict(viewer).filter(department_id=OuterRef("pk"), deleted_at__isnull=True)
    rows = users.order_by().values("department_id").annotate(n=Count("pk")).values("n")[:1]
    return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))


def manager_brief(user: User | None, limit_company_id: int | None) -> dict[str, Any] | None:
    """Snipe-IT's manager shape; null when absent or another company's person (separation)."""
    shown = person_brief(user, limit_company_id)
    if shown is None:
        return None
    return {**shown, "first_name": user.first_name, "last_name": user.last_name}


class DepartmentSerializer(serializers.Serializer):
    """The department record (Snipe-IT's ``DepartmentsTransformer``, with ISO timestamps and ``created_by``).
    ``users_count`` is annotated by the view, scoped to the caller. The declared fields are the record's keys for the
    schema; :meth:`to_representation` builds the answer."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    phone = serializers.CharField(read_only=True, allow_null=True)
    fax = serializers.CharField(read_only=True, allow_null=True)
    image = serializers.CharField(read_only=True, allow_null=True)
    company = CompanyBriefField()
    manager = SchemaField(MANAGER_SCHEMA)
    location = SchemaField(BRIEF_SCHEMA)
    users_count = CountField()
    notes = serializers.CharField(read_only=True, allow_null=True)
    created_by = UserBriefField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    available_actions = SchemaField(actions_schema("update", "delete"))

    def to_representation(self, department: Department) -> dict[str, Any]:
        can = self.context.get("can") or {}
        limit = reference_limit(self.context)
        stamp, _day = record_formats()
        count = int(getattr(department, "users_count", 0) or 0)
        record = {
            "id": department.pk,
            "name": department.name,
            "phone": department.phone or None,
            "fax": department.fax or None,
            "image": department.image or None,
            "company": company_brief(department.company, limit),
            "manager": manager_brief(department.manager, limit),
            "location": brief(department.location),
            "users_count": count,
            "notes": department.notes or None,
            "created_by": person_brief(department.created_by, limit),
            "created_at": stamp(department.created_at),
            "updated_at": stamp(department.updated_at),
            "available_actions": {
                "update": bool(can.get("edit")),
                "delete": bool(can.get("delete")) and count == 0,
            },
        }
        # the write answers' flat ids (``with_flat_keys`` declares them on a subclass)
        record.update({name: getattr(department, name) for name in self.fields if name.endswith("_id")})
        return record


class DepartmentWriteSerializer(ApiSerializer):
    """Department input (create; ``partial=True`` for update). Snipe-IT's rules: ``name`` required, at most 255
    characters, unique per company and location; ``company_id``, ``location_id`` and ``manager_id`` are ids the
    caller may see."""

    name = StrictCharField(max_length=255)
    phone = TextField(max_length=255)
    fax = TextField(max_length=255)
    notes = TextField(max_length=65535)
    company_id = ScopedPrimaryKeyRelatedField(queryset=Company.objects.all(), required=False, allow_null=True,
                                              source="company")
    location_id = ScopedPrimaryKeyRelatedField(queryset=LOCATION_MODEL._default_manager.all(), required=False,
                                               allow_null=True, source="location")
    manager_id = ScopedPrimaryKeyRelatedField(queryset=User.objects.alive(), required=False, allow_null=True,
                                              source="manager")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The name rule on the department as it would be after the write (the service checks it again, locked)."""
        instance = self.instance
        name = attrs.get("name", getattr(instance, "name", None))
        company = attrs["company"] if "company" in attrs else getattr(instance, "company", None)
        location = attrs["location"] if "location" in attrs else getattr(instance, "location", None)
        if name and services.department_name_taken(
                name=name, company_id=getattr(company, "pk", None), location_id=getattr(location, "pk", None),
                exclude_pk=getattr(instance, "pk", None)):
            raise serializers.ValidationError({"name": [services.DEPARTMENT_EXISTS]})
        return attrs


class DepartmentFilterSet(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="iexact")
    company_id = IdFilter(field_name="company_id")
    location_id = IdFilter(field_name="location_id")
    manager_id = IdFilter(field_name="manager_id")

    class Meta:
        model = Department
        fields = ["name", "company_id", "location_id", "manager_id"]


class DepartmentViewSet(ResourceViewSet):
    """Departments are company-scoped like users (``Department.objects.restrict``): with separation on, another
    company's department is "not found", never listed nor counted, and its id in a write is unknown."""

    queryset = Department.objects.all()
    serializer_class = DepartmentSerializer
    write_serializer_class = DepartmentWriteSerializer
    filterset_class = DepartmentFilterSet
    permission_section = "departments"
    selectlist_keys = SELECTLIST_KEYS  # Snipe-IT's ``view.selectlists`` gate (the user forms pick departments)
    not_found_message = services.DEPARTMENT_NOT_FOUND
    lookup_value_regex = "[^/]+"
    #: Snipe-IT answers the saved model, so clients may read these ids flat (API-CONTRACT.md §3).
    flat_keys = ("company", "location", "manager")
    search_fields = ("name", "notes", "phone", "fax")
    sort_fields: ClassVar[dict[str, Any]] = {
        **{key: key for key in ("id", "name", "image", "users_count", "notes", "phone", "fax", "created_at",
                                "updated_at")},
        "location": "location__name",
        "manager": ("manager__first_name", "manager__last_name"),
        "company": "company__name",
    }
    messages: ClassVar[dict[str, str]] = {
        "create": "Department created successfully.",
        "update": "Department updated successfully.",
        "delete": "The department was deleted successfully.",
    }
    create_service = staticmethod(lambda *, model, data, actor: services.department_create(actor=actor, data=data))
    update_service = item_service(services.department_update, "department")
    delete_service = item_service(services.department_delete, "department")

    def annotate(self, queryset: QuerySet) -> QuerySet:
        return queryset.select_related("company", "location", "manager").annotate(
            users_count=users_count(self.request.user))
