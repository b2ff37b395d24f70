from __future__ import annotations

import django_filters
from rest_framework.response import Response

from assetsvc.api.filters import IdFilter
from assetsvc.api.viewsets import SELECTLIST_KEYS, ApiViewSet, ResourceSchema, SelectListMixin, success
from companies import services
from companies.api.serializers import CompanySerializer, CompanyWriteSerializer
from companies.counts import COUNT_NAMES
from companies.models import Company


class CompanyFilterSet(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="iexact")
    email = django_filters.CharFilter(field_name="email", lookup_expr="iexact")
    created_by = IdFilter(field_name="created_by_id")

    class Meta:
        model = Company
        fields = ["name", "email", "created_by"]


class CompanyViewSet(SelectListMixin, ApiViewSet):
    """``/companies``: list, read, create, update (PUT and PATCH are both partial) and delete (rule 9).

    With separation on, a user with a company sees only their own company (``CompanyQuerySet.restrict``)."""

    queryset = Company.objects.all()
    permission_section = "companies"
    serializer_class = CompanySerializer  # the record: answers and the schema's responses
    write_serializer_class = CompanyWriteSerializer  # request bodies
    schema = ResourceSchema()
    lookup_value_regex = "[^/]+"
    not_found_message = services.COMPANY_NOT_FOUND
    action_permissions = {"selectlist": None}
    selectlist_keys = SELECTLIST_KEYS
    filterset_class = CompanyFilterSet
    search_fields = ["name", "phone", "fax", "email"]
    sort_fields = {
        **{key: key for key in ("id", "name", "phone", "fax", "email", "created_at", "updated_at", "notes")},
        **{name: name for name in COUNT_NAMES},
        "created_by": ("created_by__first_name", "created_by__last_name"),
    }

    def get_queryset(self):
        if self.action == "selectlist":
            return super().get_queryset()
        return super().get_queryset().with_counts().select_related("created_by")


    def _record(self, company: Company) -> dict:
        # Re-read with the counts, unrestricted: the caller just wrote it (a company user creating another company
        # is answered with the record, even though separation hides it from their later reads).
        fresh = Company.objects.with_counts().select_related("created_by").get(pk=company.pk)
        return self.get_serializer(fresh).data

    def list(self, request):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    def create(self, request):
        serializer = CompanyWriteSerializer(data=self.input, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        company = services.company_create(actor=request.user, data=serializer.validated_data)
        return success(self._record(company), "Company created successfully.")

    def update(self, request, pk=None):
        company = self.get_object()
        serializer = CompanyWriteSerializer(company, data=self.input, partial=True,
                                            context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        company = services.company_update(actor=request.user, company=company, data=serializer.validated_data)
        return success(self._record(company), "Company updated successfully.")

    partial_update = update

    def destroy(self, request, pk=None):
        company = self.get_object()
        services.company_delete(actor=request.user, company=company)
        return success(None, "The Company was deleted successfully.")
