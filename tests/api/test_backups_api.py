"""``/settings/backups`` (issue 27): super users only (admins too get 403), Snipe-IT's list shape, downloads as
attachments, names checked against the listing (no path traversal)."""

from __future__ import annotations

import os

import pytest

from assetsvc.api.backups import BackupDownloadView, BackupLatestDownloadView, file_size
from tests.api_mixins import APIResource
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

OLD = "assetsvc-backup-20260101T000000.000000Z.zip"
NEW = "assetsvc-backup-20260102T000000.000000Z.zip"
URLS = ["/api/v1/settings/backups", "/api/v1/settings/backups/download/latest",
        f"/api/v1/settings/backups/download/{OLD}"]


class TestBackupListAPI(APIResource):
    """Covers the list (``url``) and latest download (``viewset``) for the view-coverage audit."""

    url = URLS[0]
    viewset = BackupLatestDownloadView


class TestBackupDownloadAPI(APIResource):
    url = URLS[2]
    viewset = BackupDownloadView


@pytest.fixture
def archives(settings, tmp_path):
    folder = tmp_path / "backups"
    folder.mkdir()
    settings.BACKUP_DIR = folder
    for age, (name, body) in enumerate([(OLD, b"old archive"), (NEW, b"new archive" * 200)]):
        (folder / name).write_bytes(body)
        os.utime(folder / name, (1_767_225_600 + age * 86400,) * 2)
    (folder / "private.zip").write_bytes(b"not a backup")
    (tmp_path / "secret.txt").write_text("outside")
    return folder


def test_anonymous_401_and_everyone_but_super_users_403(api_client, make_client, archives):
    for url in URLS:
        assert api_client.get(url).status_code == 401
    admin = make_client(UserFactory(permissions={"admin": 1}))
    everything = make_client(UserFactory(permissions={"admin": 1, "assets.view": 1, "users.view": 1,
                                                      "companies.view": 1}))
    for client in (admin, everything, make_client(UserFactory())):
        for url in URLS:
            response = client.get(url)
            assert response.status_code == 403, url
            assert response.json()["message"] == "Insufficient permissions."


def test_list_is_snipe_its_shape_newest_first(token_client, archives):
    body = token_client.get("/api/v1/settings/backups").json()
    assert body["total"] == 2
    assert [row["filename"] for row in body["rows"]] == [NEW, OLD]
    row = body["rows"][0]
    assert set(row) == {"filename", "filesize", "modified_value", "modified_display", "backup_url"}
    assert row["filesize"] == "2.15KB" and row["modified_value"] == 1_767_312_000
    assert row["backup_url"].endswith(f"/api/v1/settings/backups/download/{NEW}")


def test_empty_or_missing_folder_lists_nothing(token_client, settings, tmp_path):
    settings.BACKUP_DIR = tmp_path / "none"
    assert token_client.get("/api/v1/settings/backups").json() == {"total": 0, "rows": []}
    response = token_client.get("/api/v1/settings/backups/download/latest")
    assert response.status_code == 404 and response.json()["messages"] == "File not found"


def test_download_streams_an_attachment(token_client, archives):
    response = token_client.get(f"/api/v1/settings/backups/download/{OLD}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == f'attachment; filename="{OLD}"'
    assert b"".join(response.streaming_content) == b"old archive"
    latest = token_client.get("/api/v1/settings/backups/download/latest")
    assert latest["Content-Disposition"] == f'attachment; filename="{NEW}"'
    assert b"".join(latest.streaming_content) == b"new archive" * 200


@pytest.mark.parametrize("name", ["../secret.txt", "..%2Fsecret.txt", "%2e%2e/secret.txt", "private.zip",
                                  "nothing.zip", f"./{OLD}", f"x/../{OLD}", "%2Fetc%2Fpasswd", f"{OLD}%00"])
def test_only_listed_names_are_served(token_client, archives, name):
    response = token_client.get(f"/api/v1/settings/backups/download/{name}")
    assert response.status_code == 404, name
    assert response.json()["status"] == "error" and response.json()["payload"] is None


def test_file_size_is_snipe_its():
    assert [file_size(n) for n in (0, 820, 1536, 5 * 1024**3)] == ["0", "820B", "1.5KB", "5GB"]
