"""Snipe-IT's ``/imports`` routes: upload a CSV file, list and read it, run it through the importer with
``import-type`` and ``column-mappings``, get per-row errors, delete it; only the uploader sees it; a refused upload
leaves no file and no row."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from activity.models import ActionLog
from inventory.models import Accessory, Asset, ImportFile
from inventory.transfer.uploads import api_upload_dir
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

GOOD = ("Asset Tag,Item Name,Model name,Category,Manufacturer,Status\n"
        "IMP-1,Laptop one,MacBook Pro 14,Laptops,Apple,Ready to Deploy\n"
        "IMP-2,Laptop two,MacBook Pro 14,Laptops,Apple,Ready to Deploy\n")


@pytest.fixture(autouse=True)
def _import_dir(settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")


def upload(client, text: str, name: str = "assets.csv"):
    return client.post("/api/v1/imports", {"files[]": SimpleUploadedFile(name, text.encode(), "text/csv")},
                       format="multipart")


def kept_files() -> list[str]:
    return sorted(path.name for path in api_upload_dir().iterdir())


def test_upload_list_process_delete(token_client, superuser, django_capture_on_commit_callbacks):
    body = upload(token_client, GOOD, "../../etc/My Assets.csv").json()
    (record,) = body["files"]
    assert record["name"] == "My Assets.csv" and record["import_type"] == ""
    assert record["header_row"] == ["Asset Tag", "Item Name", "Model name", "Category", "Manufacturer", "Status"]
    assert record["first_row"][0] == "IMP-1" and record["filesize"].endswith(("B", "KB"))
    assert kept_files() == [record["file_path"]]
    assert [row["id"] for row in token_client.get("/api/v1/imports").json()] == [record["id"]]
    assert token_client.get(f"/api/v1/imports/{record['id']}").json()["id"] == record["id"]

    # "Item Name" is Snipe-IT's header for the name; the mapping names it
    done = token_client.post(f"/api/v1/imports/process/{record['id']}",
                             {"import-type": "asset", "column-mappings": {"Item Name": "name"}}, format="json").json()
    assert done["status"] == "success", done
    assert done["payload"]["created"] == 2 and done["payload"]["failed"] == 0
    assert sorted(Asset.objects.values_list("asset_tag", "name")) == [("IMP-1", "Laptop one"),
                                                                      ("IMP-2", "Laptop two")]
    stored = ImportFile.objects.get()
    assert stored.import_type == "asset" and stored.field_map == {"Item Name": "name"}

    with django_capture_on_commit_callbacks(execute=True):  # the file goes once the row's delete is committed
        gone = token_client.delete(f"/api/v1/imports/{record['id']}").json()
    assert gone["status"] == "success"
    assert not ImportFile.objects.exists() and kept_files() == []


def test_rows_the_importer_refuses_come_back_by_line_and_column(token_client):
    text = GOOD + "IMP-3,Laptop three,MacBook Pro 14,Laptops,Apple,No Such Status Type\n" \
                  "IMP-1,Duplicate,MacBook Pro 14,Laptops,Apple,Ready to Deploy\n"
    record = upload(token_client, text.replace("IMP-3,Laptop three,MacBook Pro 14,Laptops",
                                               "IMP-3,Laptop three,,")).json()["files"][0]
    body = token_client.post(f"/api/v1/imports/process/{record['id']}", {"import-type": "asset"},
                             format="json").json()
    assert body["status"] == "import-errors"
    assert body["payload"]["created"] == 2 and body["payload"]["failed"] >= 1
    assert all(row.startswith("line ") and isinstance(fields, dict) for row, fields in body["messages"].items())
    assert Asset.objects.filter(asset_tag__in=["IMP-1", "IMP-2"]).count() == 2


def test_stock_kind_with_update(token_client):
    text = "Item Name,Category,Quantity\nUSB-C charger,Chargers,5\n"
    record = upload(token_client, text).json()["files"][0]
    body = token_client.post(f"/api/v1/imports/process/{record['id']}",
                             {"import-type": "accessory", "import-update": "true"}, format="json").json()
    assert body["status"] == "success", body
    assert Accessory.objects.get().qty == 5


@pytest.mark.parametrize(("payload", "field"), [
    ({}, "import-type"),
    ({"import-type": "user"}, "import-type"),
    ({"import-type": "asset", "column-mappings": ["not", "an", "object"]}, "column-mappings"),
])
def test_bad_process_requests_write_nothing(token_client, payload, field):
    record = upload(token_client, GOOD).json()["files"][0]
    logs = ActionLog.objects.count()
    body = token_client.post(f"/api/v1/imports/process/{record['id']}", payload, format="json").json()
    assert body["status"] == "error" and field in body["messages"]
    assert not Asset.objects.exists() and ActionLog.objects.count() == logs


@pytest.mark.parametrize(("content", "message"), [
    (b"", "The file is empty"),
    (b"\xff\xfe\x00b\x00a\x00d", "UTF-8"),
    (b"Name,Name\nx,y\n", "Duplicate header 'Name'"),
])
def test_a_refused_upload_leaves_no_file_and_no_row(token_client, content, message):
    response = token_client.post("/api/v1/imports", {"files[]": SimpleUploadedFile("x.csv", content, "text/csv")},
                                 format="multipart")
    body = response.json()
    assert body["status"] == "error" and message in str(body["messages"])
    assert not ImportFile.objects.exists() and kept_files() == []


def test_no_file_is_a_clear_error(token_client):
    body = token_client.post("/api/v1/imports", {}, format="multipart").json()
    assert body["status"] == "error" and "files" in body["messages"]


def test_only_the_uploader_and_super_users_see_an_upload(make_client, token_client):
    importer, other = (UserFactory(permissions={"import": "1"}) for _ in range(2))
    mine = make_client(importer)
    record = upload(mine, GOOD).json()["files"][0]
    theirs = make_client(other)
    assert theirs.get("/api/v1/imports").json() == []
    missing = theirs.get("/api/v1/imports/999999").json()
    assert theirs.get(f"/api/v1/imports/{record['id']}").json() == missing
    assert theirs.post(f"/api/v1/imports/process/{record['id']}", {"import-type": "asset"},
                       format="json").json() == theirs.post("/api/v1/imports/process/999999",
                                                            {"import-type": "asset"}, format="json").json()
    assert theirs.delete(f"/api/v1/imports/{record['id']}").json()["status"] == "error"
    assert ImportFile.objects.count() == 1 and not Asset.objects.exists()
    assert [row["id"] for row in token_client.get("/api/v1/imports").json()] == [record["id"]]


def test_the_import_permission_is_needed_and_admin_does_not_imply_it(make_client, api_client):
    assert api_client.get("/api/v1/imports").status_code == 401
    for permissions in ({}, {"admin": "1"}, {"assets.create": "1"}):
        client = make_client(UserFactory(permissions=permissions))
        assert client.get("/api/v1/imports").status_code == 403
        response = client.post("/api/v1/imports",
                               {"files[]": SimpleUploadedFile("a.csv", GOOD.encode(), "text/csv")},
                               format="multipart")
        assert response.status_code == 403
    assert not ImportFile.objects.exists()
    assert not list(api_upload_dir().iterdir())


def test_upload_file_is_private(token_client):
    import stat

    record = upload(token_client, GOOD).json()["files"][0]
    mode = (api_upload_dir() / record["file_path"]).stat().st_mode
    assert stat.S_IMODE(mode) == 0o600
