"""The local backend of the ``files`` storage (issue 27): a folder that no URL serves."""

from __future__ import annotations

from django.core.files.storage import FileSystemStorage


class PrivateFileSystemStorage(FileSystemStorage):
    """``FileSystemStorage`` without URLs: stored files are read only through the API and the admin (with the
    record's permission), so asking for a URL is a bug, refused loudly."""

    def url(self, name: str | None) -> str:
        raise ValueError("stored files have no URL: they are served only through the API and the admin")
