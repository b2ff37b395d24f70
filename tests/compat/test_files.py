"""A Python client's file calls, replayed through the API (issue 27; docs/files.md): the request bodies are built
by ``requests`` exactly as a client such as snipeit-python-api sends them (multipart ``file[]`` plus ``notes``, a
bearer token, ``Accept: application/json``), then sent through the test client.

The scenario: upload an invoice PDF to an asset (Snipe-IT 8.1's ``POST /hardware/{id}/files``), list the asset's
files, download the invoice (8.1's ``/hardware/{id}/file/{file_id}`` and 8.5's ``/hardware/{id}/files/{file_id}``),
delete it (8.5's ``DELETE /assets/{id}/files/{file_id}/delete``), and see it gone."""

from __future__ import annotations

import pytest
import requests

from activity.models import ActionLog, StoredFile
from tests.factories import AssetFactory

pytestmark = pytest.mark.django_db

INVOICE = (b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
           b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")


@pytest.fixture
def files_dir(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "files": {
        "BACKEND": "activity.storage.PrivateFileSystemStorage", "OPTIONS": {"location": str(tmp_path / "files")}}}
    return tmp_path / "files"


def client_request(client, method: str, path: str, **kwargs):
    """Send what ``requests`` would send for ``method path`` (body and content type built by requests itself)."""
    prepared = requests.Request(method.upper(), f"http://testserver{path}", **kwargs).prepare()
    content_type = prepared.headers.get("Content-Type", "application/json")
    return client.generic(method.upper(), path, prepared.body or b"", content_type=content_type,
                          HTTP_ACCEPT="application/json")


def test_invoice_upload_list_download_delete(token_client, files_dir, superuser, django_capture_on_commit_callbacks):
    asset = AssetFactory(asset_tag="LAPTOP-0042")

    response = client_request(token_client, "post", f"/api/v1/hardware/{asset.pk}/files",
                              files={"file[]": ("INV-2026-0042.pdf", INVOICE, "application/pdf")},
                              data={"notes": "Purchase invoice"})
    body = response.json()
    assert body["status"] == "success", body
    assert body["messages"] == "File(s) successfully uploaded."
    uploaded = body["payload"]["rows"][0]
    file_id = uploaded["id"]
    assert uploaded["filename"] == "INV-2026-0042.pdf" and uploaded["note"] == "Purchase invoice"

    listed = client_request(token_client, "get", f"/api/v1/hardware/{asset.pk}/files").json()
    assert listed["total"] == 1 and listed["rows"][0]["id"] == file_id

    for path in (f"/api/v1/hardware/{asset.pk}/file/{file_id}", f"/api/v1/hardware/{asset.pk}/files/{file_id}",
                 listed["rows"][0]["url"].removeprefix("http://testserver")):
        download = client_request(token_client, "get", path)
        assert download.status_code == 200
        assert b"".join(download.streaming_content) == INVOICE
        assert download["Content-Type"] == "application/pdf"
        assert download["Content-Disposition"] == 'attachment; filename="INV-2026-0042.pdf"'

    log = ActionLog.objects.get(action_type="uploaded")
    assert (log.item_type, log.item_id, log.item_name, log.created_by) == ("asset", asset.pk, asset.name, superuser)

    with django_capture_on_commit_callbacks(execute=True):
        deleted = client_request(token_client, "delete", f"/api/v1/assets/{asset.pk}/files/{file_id}/delete")
    assert deleted.json() == {"status": "success", "messages": "File successfully deleted.", "payload": None}
    assert client_request(token_client, "get", f"/api/v1/hardware/{asset.pk}/files").json() == {"total": 0,
                                                                                               "rows": []}
    gone = client_request(token_client, "get", f"/api/v1/hardware/{asset.pk}/files/{file_id}").json()
    assert gone["status"] == "error" and gone["messages"] == "File not found."
    assert not StoredFile.objects.exists() and not any(p.is_file() for p in files_dir.rglob("*"))
