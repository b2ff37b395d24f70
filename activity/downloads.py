"""Serving a stored file over HTTP (the web side of ``activity`` files): the API's and the portal's downloads of
signed EULAs use the same headers."""

from __future__ import annotations

from django.http import FileResponse

from activity.models import StoredFile
from activity.services import stored_file_open


def stored_file_response(stored_file: StoredFile) -> FileResponse:
    """``stored_file`` as a private download (an attachment under its name and content type, never cached, never
    sniffed); ``assetsvc.exceptions.NotFoundError`` when the storage lost the bytes."""
    response = FileResponse(stored_file_open(stored_file), as_attachment=True, filename=stored_file.filename,
                            content_type=stored_file.content_type)
    response["Content-Length"] = str(stored_file.size)
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response
