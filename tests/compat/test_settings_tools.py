"""An administrator's maintenance script, replayed: read the settings, switch on company separation and tag
numbering, check the change, list the backups and download the newest, and purge Snipe-IT's barcode cache, all
as a super user; the same calls with an administrator's token are refused."""

from __future__ import annotations

import pytest

from assetsvc.models import SiteSettings
from tests.factories import AssetModelFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db

BACKUP = "assetsvc-backup-20260101T000000.000000Z.zip"


def test_nightly_admin_script(token_client, make_client, settings, tmp_path):
    settings.BACKUP_DIR = tmp_path
    (tmp_path / BACKUP).write_bytes(b"PK archive")
    before = token_client.get("/api/v1/settings/1").json()
    assert before["full_multiple_companies_support"] is False

    saved = token_client.patch("/api/v1/settings/1", {"full_multiple_companies_support": "1",
                                                      "auto_increment_assets": True, "auto_increment_prefix": "IT-",
                                                      "zerofill_count": 4}, format="json").json()
    assert saved["status"] == "success", saved
    after = token_client.get("/api/v1/settings").json()
    assert (after["full_multiple_companies_support"], after["auto_increment_prefix"]) == (True, "IT-")
    created = token_client.post("/api/v1/hardware", {"model_id": AssetModelFactory().pk,
                                                      "status_id": StatusLabelFactory().pk},
                                format="json").json()
    assert created["payload"]["asset_tag"].startswith("IT-")

    backups = token_client.get("/api/v1/settings/backups").json()
    assert [row["filename"] for row in backups["rows"]] == [BACKUP]
    latest = token_client.get("/api/v1/settings/backups/download/latest")
    assert b"".join(latest.streaming_content) == b"PK archive"
    assert token_client.post("/api/v1/settings/purge_barcodes").json()["message"] == "Deleted 0 barcodes"

    admin = make_client(UserFactory(permissions={"admin": 1}))
    for method, url in (("get", "/api/v1/settings"), ("patch", "/api/v1/settings/1"),
                        ("get", "/api/v1/settings/backups"), ("post", "/api/v1/settings/purge_barcodes")):
        assert getattr(admin, method)(url, {"full_multiple_companies_support": False},
                                      format="json").status_code == 403
    assert SiteSettings.load().full_multiple_companies_support is True

