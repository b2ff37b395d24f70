"""Snipe-IT's importer page, replayed through the API as its JavaScript sends it: upload (multipart ``files[]``),
read the header row to map columns, save the mapping, process with ``import-type``, ``import-update`` and
``column-mappings`` (Snipe-IT's field names), read ``import-errors``, fix the file by re-uploading, delete."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from inventory.models import Asset

pytestmark = pytest.mark.django_db

FIRST = ("Tag,Device name,Model,Category,Manufacturer,Status,Purchase Cost\n"
         "CMP-1,Front desk PC,OptiPlex 7010,Desktops,Dell,Ready to Deploy,899.00\n"
         "CMP-2,Lab PC,OptiPlex 7010,Desktops,Dell,Ready to Deploy,not a price\n")


@pytest.fixture(autouse=True)
def _import_dir(settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")


def test_the_importer_page_flow(token_client):
    files = token_client.post("/api/v1/imports", {"files[]": SimpleUploadedFile("pcs.csv", FIRST.encode())},
                              format="multipart").json()["files"]
    upload = files[0]
    assert upload["header_row"][:2] == ["Tag", "Device name"]

    mapping = {"Tag": "asset_tag", "Device name": "item_name", "Model": "model name", "Category": "category",
               "Manufacturer": "manufacturer", "Status": "status", "Purchase Cost": "purchase_cost"}
    saved = token_client.patch(f"/api/v1/imports/{upload['id']}", {"import_type": "asset", "field_map": mapping},
                               format="json").json()
    assert saved["payload"]["field_map"] == mapping

    body = token_client.post(f"/api/v1/imports/process/{upload['id']}",
                             {"import-type": "asset", "import-update": False, "column-mappings": mapping},
                             format="json").json()
    assert body["status"] == "import-errors"
    assert list(body["messages"]) == ["line 3"] and body["payload"]["created"] == 1
    assert Asset.objects.get().name == "Front desk PC"

    fixed = FIRST.replace("not a price", "949.00")
    again = token_client.post("/api/v1/imports", {"files[]": SimpleUploadedFile("pcs.csv", fixed.encode())},
                              format="multipart").json()["files"][0]
    body = token_client.post(f"/api/v1/imports/process/{again['id']}",
                             {"import-type": "asset", "import-update": True, "column-mappings": mapping},
                             format="json").json()
    assert body["status"] == "success", body
    assert Asset.objects.count() == 2
    for item in token_client.get("/api/v1/imports").json():
        assert token_client.delete(f"/api/v1/imports/{item['id']}").json()["status"] == "success"
    assert token_client.get("/api/v1/imports").json() == []
