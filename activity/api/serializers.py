"""The record of a stored file (issue 27): Snipe-IT's ``UploadedFilesTransformer`` keys in this service's formats."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from activity.models import StoredFile
from assetsvc.api.fields import IsoUtcField, SchemaField, UserBriefField, actions_schema


class StoredFileSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    filetype = serializers.CharField(source="content_type", read_only=True)
    created_by = UserBriefField()
    created_at = IsoUtcField()
    updated_at = IsoUtcField()
    deleted_at = SchemaField({"type": "string", "nullable": True, "description": "Always null: a deleted file is "
                                                                                  "gone."}, allow_null=True)
    available_actions = SchemaField(actions_schema("delete"))

    class Meta:
        model = StoredFile
        fields = ["id", "filename", "url", "filetype", "size", "note", "created_by", "created_at", "updated_at",
                  "deleted_at", "available_actions"]
        read_only_fields = fields

    def get_url(self, obj: StoredFile) -> str:
        """The API's download address (the only place the file is served)."""
        path = reverse("api-files-detail", kwargs={"object_type": self.context["object_type"], "pk": obj.item_id,
                                                   "file_id": obj.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    def to_representation(self, instance: StoredFile):
        data = super().to_representation(instance)
        data["deleted_at"] = None
        data["available_actions"] = {"delete": bool(self.context.get("can_write"))}
        return data
