"""Uploaded import files between preview and confirmation (issue 25, item 13): kept readable by the service's user
only (mode 0600, in a 0700 directory), and deleted once their preview's token has expired, on the next upload or
confirmation, so an unconfirmed 50 MB upload does not stay on disk forever."""

from __future__ import annotations

import csv
import io
import os
import stat
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from inventory.admin.transfer import TOKEN_AGE, import_dir
from inventory.models import Asset
from inventory.transfer.columns import ASSET_COLUMNS

pytestmark = pytest.mark.urls("tests.inventory.transfer.csv_admin_site")
HEADER = [column.header for column in ASSET_COLUMNS]
IMPORT_URL = "/csvadmin/inventory/asset/import/"


def upload(tag: str) -> SimpleUploadedFile:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["Asset Tag", "Model name", "Category"])
    writer.writerow([tag, "Latitude", "Laptops"])
    return SimpleUploadedFile("assets.csv", buffer.getvalue().encode(), content_type="text/csv")


@pytest.fixture
def admin_client(client, superuser, settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")
    client.force_login(superuser)
    return client


@pytest.fixture
def loose_umask():
    """The usual umask (022), under which a plainly opened file is world-readable."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def kept_files() -> set[str]:
    return {path.name for path in import_dir().iterdir()}


def test_the_kept_upload_is_readable_by_its_owner_only(admin_client, loose_umask):
    response = admin_client.post(IMPORT_URL, {"file": upload("U-1")})
    assert response.status_code == 200 and "1 would be created" in response.content.decode()

    (kept,) = import_dir().iterdir()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(import_dir().stat().st_mode) == 0o700
    assert not Asset.objects.exists()


def test_an_expired_preview_file_is_deleted_on_the_next_upload(admin_client):
    admin_client.post(IMPORT_URL, {"file": upload("U-1")})
    (stale,) = kept_files()
    expired = time.time() - TOKEN_AGE - 5  # its token (signed when the preview was shown) has expired
    os.utime(import_dir() / stale, (expired, expired))
    admin_client.post(IMPORT_URL, {"file": upload("U-2")})
    (fresh,) = kept_files() - {stale}
    (import_dir() / "README.txt").write_text("not an upload")  # the directory may hold other files

    response = admin_client.post(IMPORT_URL, {"file": upload("U-3")})

    assert response.status_code == 200
    files = kept_files()
    assert stale not in files  # expired: gone
    assert fresh in files  # a preview still open (someone may still confirm it): kept
    assert "README.txt" in files and len(files) == 3  # not ours: kept; and the new upload
    assert not Asset.objects.exists()


def test_an_expired_preview_file_is_deleted_on_a_confirmation(admin_client):
    confirmed = admin_client.post(IMPORT_URL, {"file": upload("U-1")})
    (mine,) = kept_files()
    admin_client.post(IMPORT_URL, {"file": upload("U-2")})  # a preview never confirmed
    (stale,) = kept_files() - {mine}
    expired = time.time() - TOKEN_AGE - 5
    os.utime(import_dir() / stale, (expired, expired))

    response = admin_client.post(f"{IMPORT_URL}confirm/", {"token": confirmed.context["token"]})

    assert response.status_code == 302
    assert kept_files() == set()  # the confirmed file after its import, the expired one by the sweep
    assert list(Asset.objects.values_list("asset_tag", flat=True)) == ["U-1"]


def test_the_prune_command_deletes_expired_uploads(admin_client):
    from django.core.management import call_command

    admin_client.post(IMPORT_URL, {"file": upload("U-1")})
    admin_client.post(IMPORT_URL, {"file": upload("U-2")})
    stale, fresh = sorted(kept_files())
    expired = time.time() - TOKEN_AGE - 5
    os.utime(import_dir() / stale, (expired, expired))
    out = io.StringIO()

    call_command("prune_csv_uploads", stdout=out)

    assert out.getvalue().strip() == "Deleted 1 expired import uploads."
    assert kept_files() == {fresh}
