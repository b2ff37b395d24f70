"""A company-scoped resource built only from ``ResourceViewSet`` declarations, routed for the tests of the base
class (``tests/api/test_resource_viewset.py``): whatever a future kind declares, the base must scope every read."""

from __future__ import annotations

from django.urls import include, path
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.routers import SimpleRouter

from assetsvc.api.serializers import ApiSerializer
from assetsvc.api.viewsets import ResourceViewSet, item_service
from inventory.models import Asset
from inventory.services import assets as services


class ScopedThingRecord(serializers.ModelSerializer):
    class Meta:
        model = Asset
        fields = ["id", "name", "asset_tag", "company_id", "deleted_at"]


class ScopedThingWrite(ApiSerializer):
    name = serializers.CharField(max_length=255, required=False)


class ScopedThingViewSet(ResourceViewSet):
    queryset = Asset.objects.all()
    serializer_class = ScopedThingRecord
    write_serializer_class = ScopedThingWrite
    permission_section = "assets"
    not_found_message = "Thing not found."
    restore_not_found_message = "Thing does not exist."
    soft_deletes = True
    sort_fields = {"id": "id", "name": "name"}
    default_sort = "id"
    messages = {"create": "created", "update": "updated", "delete": "deleted", "restore": "restored"}
    selectlist_ordering = ("asset_tag", "id")
    update_service = item_service(lambda *, asset, actor, data: services.asset_update(asset=asset, actor=actor,
                                                                                       data=data), "asset")
    delete_service = item_service(services.asset_delete, "asset")
    restore_service = item_service(services.asset_restore, "asset")

    def selectlist_text(self, obj) -> str:
        return obj.asset_tag

    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        return self.restore_item(request)


router = SimpleRouter(trailing_slash=False)
router.register("things", ScopedThingViewSet, basename="thing")
urlpatterns = [path("api/v1/", include(router.urls))]
