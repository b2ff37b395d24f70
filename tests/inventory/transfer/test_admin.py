"""The admin's CSV import (upload → preview → confirm) and export actions (issue 14), through
``inventory.admin_csv.CsvImportExportMixin`` on a test admin site (``tests/inventory/transfer/csv_admin_site.py``)."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import load_workbook

from activity.models import ActionLog
from inventory.admin.transfer import import_dir
from inventory.models import Accessory, Asset
from inventory.transfer.columns import ASSET_COLUMNS
from tests.factories import AssetFactory, CompanyFactory, UserFactory

pytestmark = pytest.mark.urls("tests.inventory.transfer.csv_admin_site")
HEADER = [column.header for column in ASSET_COLUMNS]


def csv_file(rows, header=HEADER, name="assets.csv"):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return SimpleUploadedFile(name, buffer.getvalue().encode(), content_type="text/csv")


def asset_row(tag, **cells):
    values = {"Asset Tag": tag, "Model name": "Latitude", "Category": "Laptops", "Status": "Ready", **cells}
    return [values.get(header, "") for header in HEADER]


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture(autouse=True)
def _import_dir(settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")


def token_of(response) -> str:
    return response.context["token"]


def test_changelist_links_to_the_import(admin_client):
    response = admin_client.get("/csvadmin/inventory/asset/")
    assert response.status_code == 200
    assert b'href="/csvadmin/inventory/asset/import/"' in response.content
    assert b"Import CSV" in response.content


def test_upload_preview_confirm(admin_client, superuser):
    upload = csv_file([asset_row("ADM-1"), asset_row("ADM-2", **{"Purchase Date": "yesterday"}), asset_row("ADM-3")])

    response = admin_client.post("/csvadmin/inventory/asset/import/", {"file": upload})

    assert response.status_code == 200
    assert "3 rows: 2 would be created, 0 would be updated, 0 skipped, 1 failed." in response.content.decode()
    assert "line 3, column Purchase Date: The purchase date does not match the format YYYY-MM-DD." in \
        response.content.decode()
    assert [row["status"] for row in response.context["preview_rows"]] == ["created", "failed", "created"]
    assert not Asset.objects.exists()
    assert len(list(import_dir().iterdir())) == 1

    response = admin_client.post("/csvadmin/inventory/asset/import/confirm/", {"token": token_of(response)})

    assert response.status_code == 302
    assert response["Location"] == "/csvadmin/inventory/asset/"
    assert set(Asset.objects.values_list("asset_tag", flat=True)) == {"ADM-1", "ADM-3"}
    assert set(ActionLog.objects.filter(item_type="asset").values_list("action_source", flat=True)) == {"importer"}
    assert not list(import_dir().iterdir())
    page = admin_client.get(response["Location"]).content.decode()
    assert "Import done. 3 rows: 2 created, 0 updated, 0 skipped, 1 failed." in page
    assert "Line 3, column Purchase Date" in page  # the admin capitalises messages

    # The token names a file that is gone: a second confirmation imports nothing.
    again = admin_client.post("/csvadmin/inventory/asset/import/confirm/", {"token": token_of(
        admin_client.post("/csvadmin/inventory/asset/import/", {"file": csv_file([asset_row("ADM-9")])}))})
    assert again.status_code == 302
    assert Asset.objects.filter(asset_tag="ADM-9").exists()


def test_a_forged_or_foreign_token_is_refused(admin_client, client):
    response = admin_client.post("/csvadmin/inventory/asset/import/", {"file": csv_file([asset_row("T-1")])})
    token = token_of(response)

    forged = admin_client.post("/csvadmin/inventory/asset/import/confirm/", {"token": token + "x"})
    assert forged.status_code == 302 and not Asset.objects.exists()

    other = UserFactory(username="other-admin", superuser=True)
    client.force_login(other)
    assert client.post("/csvadmin/inventory/asset/import/confirm/", {"token": token}).status_code == 403
    assert not Asset.objects.exists()


def test_an_unreadable_file_is_a_form_error(admin_client):
    upload = SimpleUploadedFile("x.csv", b"nothing,here\n1,2\n", content_type="text/csv")
    response = admin_client.post("/csvadmin/inventory/asset/import/", {"file": upload})
    assert response.status_code == 200
    assert "no known column" in response.content.decode()
    assert not list(import_dir().iterdir())


def test_update_needs_the_change_right(client, fmcs_on):
    from tests.inventory.transfer.csv_admin_site import OpenAssetAdmin

    client.force_login(UserFactory(username="clerk"))
    OpenAssetAdmin.rights = {"add": True, "change": False, "view": True}
    try:
        response = client.post("/openadmin/inventory/asset/import/", {"file": csv_file([asset_row("U-1")]),
                                                                      "update": "on"})
        assert response.status_code == 403
        OpenAssetAdmin.rights = {"add": False, "change": True, "view": True}
        assert client.get("/openadmin/inventory/asset/import/").status_code == 403
    finally:
        OpenAssetAdmin.rights = {"add": True, "change": True, "view": True}


def test_a_user_with_a_company_imports_into_it_and_exports_only_its_assets(client, fmcs_on):
    mine, theirs = CompanyFactory(name="Mine"), CompanyFactory(name="Theirs")
    clerk = UserFactory(username="clerk", company=mine)
    client.force_login(clerk)
    AssetFactory(asset_tag="THEIRS-1", company=theirs)

    response = client.post("/openadmin/inventory/asset/import/", {"file": csv_file([asset_row("M-1",
                                                                                              Company="Theirs")])})
    client.post("/openadmin/inventory/asset/import/confirm/", {"token": token_of(response)})
    assert Asset.objects.get(asset_tag="M-1").company == mine

    everything = Asset.objects.values_list("pk", flat=True)
    response = client.post("/openadmin/inventory/asset/", {"action": "export_selected_csv",
                                                           ACTION_CHECKBOX_NAME: list(everything)})
    body = response.content.decode()
    assert response.status_code == 200 and "M-1" in body and "THEIRS-1" not in body


def test_export_actions_csv_and_xlsx(admin_client):
    chosen = AssetFactory(asset_tag="EXP-1")
    AssetFactory(asset_tag="EXP-2")

    response = admin_client.post("/csvadmin/inventory/asset/", {"action": "export_selected_csv",
                                                                ACTION_CHECKBOX_NAME: [chosen.pk]})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == HEADER and [row[0] for row in rows[1:]] == ["EXP-1"]
    assert response["X-Exported-Rows"] == "1"

    response = admin_client.post("/csvadmin/inventory/asset/", {"action": "export_selected_xlsx",
                                                                ACTION_CHECKBOX_NAME: [chosen.pk]})
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert [row[0] for row in sheet.iter_rows(values_only=True)] == ["Asset Tag", "EXP-1"]


def test_accessory_import_from_the_admin(admin_client):
    upload = csv_file([["Dock", "Docks", "3"]], header=["Item Name", "Category", "Quantity"])
    response = admin_client.post("/csvadmin/inventory/accessory/import/", {"file": upload})
    assert "1 would be created" in response.content.decode()
    admin_client.post("/csvadmin/inventory/accessory/import/confirm/", {"token": token_of(response)})
    assert Accessory.objects.get(name="Dock").qty == 3
