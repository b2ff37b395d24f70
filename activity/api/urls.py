"""Routes of files on records (issue 27): Snipe-IT v8.5's generic paths and the older per-type ones.

``<filekind:object_type>`` matches only names a kind registered (``activity.files``), so any other path falls
through to the routes after these."""

from __future__ import annotations

from django.urls import path, register_converter

from activity.api.views import StoredFileViewSet
from activity.files import kind_for_api_name


class FileKindConverter:
    regex = "[a-z]+"

    def to_python(self, value: str) -> str:
        if kind_for_api_name(value) is None:
            raise ValueError(value)
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(FileKindConverter, "filekind")

files = StoredFileViewSet.as_view({"get": "list", "post": "upload"})
one_file = StoredFileViewSet.as_view({"get": "download", "delete": "remove"})
delete_file = StoredFileViewSet.as_view({"post": "remove", "delete": "remove"})

urlpatterns = [
    # v8.5: /{object_type}/{id}/files[/{file_id}[/delete]]
    path("<filekind:object_type>/<int:pk>/files", files, name="api-files"),
    path("<filekind:object_type>/<int:pk>/files/<int:file_id>", one_file, name="api-files-detail"),
    path("<filekind:object_type>/<int:pk>/files/<int:file_id>/delete", delete_file, name="api-files-delete"),
    # v8.1: /hardware/{id}/file/{file_id}, /models/{id}/file/{file_id}; POST /users/{id}/upload
    path("<filekind:object_type>/<int:pk>/file/<int:file_id>", one_file, name="api-files-detail-v81"),
    path("<filekind:object_type>/<int:pk>/upload", StoredFileViewSet.as_view({"post": "upload"}),
         name="api-files-upload-v81"),
]
