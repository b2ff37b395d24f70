"""Files on records in the admin (issue 27): listed, downloaded and deleted with the API's rules (the record's
visibility and keys), deletes through the service."""

from __future__ import annotations

import pytest
from django.test import Client

from activity.models import ActionLog, StoredFile
from tests.factories import AssetFactory, UserFactory
from tests.files.test_api import PDF, pdf

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/activity/storedfile/"


@pytest.fixture
def stored(settings, tmp_path, token_client, company, other_company):
    settings.STORAGES = {**settings.STORAGES, "files": {
        "BACKEND": "activity.storage.PrivateFileSystemStorage", "OPTIONS": {"location": str(tmp_path / "files")}}}
    mine, theirs = AssetFactory(company=company), AssetFactory(company=other_company)
    for asset in (mine, theirs):
        token_client.post(f"/api/v1/hardware/{asset.pk}/files", {"file": pdf(f"bill-{asset.pk}.pdf")},
                          format="multipart")
    return {"mine": StoredFile.objects.get(item_id=mine.pk), "theirs": StoredFile.objects.get(item_id=theirs.pk),
            "root": tmp_path / "files"}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_super_user_lists_downloads_and_deletes(stored, superuser, django_capture_on_commit_callbacks):
    client = logged_in(superuser)
    page = client.get(CHANGELIST)
    assert page.status_code == 200 and stored["mine"].filename in page.text and stored["theirs"].filename in page.text
    response = client.get(f"{CHANGELIST}{stored['mine'].pk}/download/")
    assert b"".join(response.streaming_content) == PDF
    assert response["Content-Disposition"] == f'attachment; filename="{stored["mine"].filename}"'
    with django_capture_on_commit_callbacks(execute=True):
        client.post(CHANGELIST, {"action": "delete_files", "_selected_action": [stored["mine"].pk]})
    assert not StoredFile.objects.filter(pk=stored["mine"].pk).exists()
    assert ActionLog.objects.filter(action_type="upload deleted", item_id=stored["mine"].item_id).exists()
    assert sum(1 for p in stored["root"].rglob("*") if p.is_file()) == 1


def test_company_admin_sees_only_their_companys_files(stored, company, fmcs_on):
    client = logged_in(UserFactory(company=company, permissions={"admin": 1}))
    page = client.get(CHANGELIST)
    assert stored["mine"].filename in page.text and stored["theirs"].filename not in page.text
    assert client.get(f"{CHANGELIST}{stored['theirs'].pk}/download/").status_code == 404
    assert b"".join(client.get(f"{CHANGELIST}{stored['mine'].pk}/download/").streaming_content) == PDF
    client.post(CHANGELIST, {"action": "delete_files", "_selected_action": [stored["theirs"].pk]})
    assert StoredFile.objects.filter(pk=stored["theirs"].pk).exists()
