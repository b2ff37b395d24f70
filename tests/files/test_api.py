"""Files on records through the API (issue 27; docs/files.md): upload, list, download and delete on every kind,
under Snipe-IT v8.5's generic paths and the older per-type ones, on a local folder and on an S3 bucket (moto's
server: ``files_storage`` in ``conftest.py`` runs each test on both). Refused uploads leave no file and no row;
another company's record is "not found" and its files are never listed nor served; 401/403 by key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from activity.api.views import StoredFileViewSet
from activity.models import ActionLog, StoredFile
from tests.api_mixins import APIResource, error_of, http_errors
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ComponentFactory,
    ConsumableFactory,
    LicenseFactory,
    LocationFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
UPLOADED = "File(s) successfully uploaded."
DELETED = "File successfully deleted."
NOT_FOUND = "File not found."


@dataclass(frozen=True)
class Kind:
    api: str
    item_type: str
    section: str
    write_verb: str
    factory: Any
    not_found: str
    scoped: bool

    def make(self, company=None):
        return self.factory(company=company) if self.scoped else self.factory()


KINDS = {
    "assets": Kind("assets", "asset", "assets", "edit", AssetFactory, "Asset does not exist.", True),
    "models": Kind("models", "model", "models", "edit", AssetModelFactory, "AssetModel not found", False),
    "users": Kind("users", "user", "users", "edit", UserFactory,
                  "User does not exist or you do not have permission view them.", True),
    "accessories": Kind("accessories", "accessory", "accessories", "files", AccessoryFactory, "Accessory not found",
                        True),
    "consumables": Kind("consumables", "consumable", "consumables", "files", ConsumableFactory,
                        "Consumable not found", True),
    "components": Kind("components", "component", "components", "files", ComponentFactory, "Component not found",
                       True),
    "licenses": Kind("licenses", "license", "licenses", "files", LicenseFactory, "License not found", True),
    "locations": Kind("locations", "location", "locations", "edit", LocationFactory, "Location not found", False),
}
SCOPED = [name for name, kind in KINDS.items() if kind.scoped]


@dataclass(frozen=True)
class Paths:
    """The routes of one path style for one record: (method, path) of each verb."""

    upload: tuple[str, str]
    listing: str
    download: str  # with {file}
    delete: tuple[str, str]  # with {file}
    field: str  # the multipart key the style's clients send


def paths(style: str, kind: Kind, record_id: int) -> Paths:
    if style == "v81":  # Snipe-IT v8.1.4's per-type routes
        if kind.api == "users":
            base = f"/api/v1/users/{record_id}"
            return Paths(("post", f"{base}/upload"), f"{base}/files", f"{base}/files/{{file}}",
                         ("delete", f"{base}/files/{{file}}"), "file[]")
        base = f"/api/v1/{'hardware' if kind.api == 'assets' else kind.api}/{record_id}"
        return Paths(("post", f"{base}/files"), f"{base}/files", f"{base}/file/{{file}}",
                     ("delete", f"{base}/file/{{file}}"), "file[]")
    base = f"/api/v1/{kind.api}/{record_id}"  # v8.5's generic routes
    return Paths(("post", f"{base}/files"), f"{base}/files", f"{base}/files/{{file}}",
                 ("post", f"{base}/files/{{file}}/delete"), "file")


CASES = [(name, "v85") for name in KINDS] + [(name, "v81") for name in ("assets", "models", "users")]


def pdf(name: str = "Invoice 2026-03.pdf", content: bytes = PDF) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def upload(client, route: Paths, *files, notes: str | None = None, field: str | None = None):
    data: dict[str, Any] = {field or route.field: list(files)}
    if notes is not None:
        data["notes"] = notes
    method, path = route.upload
    return getattr(client, method)(path, data, format="multipart")


def downloaded(response) -> bytes:
    return b"".join(response.streaming_content)


def nothing_stored(files_storage, logs_before: int) -> None:
    assert StoredFile.objects.count() == 0
    assert ActionLog.objects.count() == logs_before
    assert files_storage.names() == []


class TestStoredFilesAPI(APIResource):
    """The files of a record (``activity.api.views.StoredFileViewSet``), on every kind and both path styles."""

    url = "/api/v1/hardware/1/files"
    viewset: ClassVar[type] = StoredFileViewSet
    section = "assets"

    @pytest.mark.parametrize(("kind_name", "style"), CASES)
    def test_upload_list_download_delete(self, token_client, superuser, files_storage,
                                         django_capture_on_commit_callbacks, kind_name, style):
        kind = KINDS[kind_name]
        record = kind.make()
        route = paths(style, kind, record.pk)

        response = upload(token_client, route, pdf(), notes="March invoice")
        body = response.json()
        assert response.status_code == 200 and body["status"] == "success", body
        assert body["messages"] == UPLOADED and body["payload"]["total"] == 1
        row = body["payload"]["rows"][0]
        stored = StoredFile.objects.get()
        assert (stored.item_type, stored.item_id, stored.filename) == (kind.item_type, record.pk, "Invoice 2026-03.pdf")
        assert row["id"] == stored.pk and row["filename"] == "Invoice 2026-03.pdf"
        assert row["filetype"] == "application/pdf" and row["size"] == len(PDF) and row["note"] == "March invoice"
        assert row["created_by"] == {"id": superuser.pk, "name": superuser.full_name}
        assert row["available_actions"] == {"delete": True} and row["deleted_at"] is None
        assert row["url"].endswith(f"/files/{stored.pk}")
        log = ActionLog.objects.get(action_type="uploaded")
        assert (log.item_type, log.item_id, log.created_by) == (kind.item_type, record.pk, superuser)
        assert log.log_meta == {"filename": "Invoice 2026-03.pdf", "file_id": stored.pk}
        assert log.note == "March invoice"
        assert len(files_storage.names()) == 1
        assert "Invoice" not in files_storage.names()[0]  # stored under a generated name

        listed = token_client.get(route.listing).json()
        assert listed == {"total": 1, "rows": [row]}

        response = token_client.get(route.download.format(file=stored.pk))
        assert response.status_code == 200
        assert downloaded(response) == PDF
        assert response["Content-Type"] == "application/pdf"
        assert response["Content-Disposition"] == 'attachment; filename="Invoice 2026-03.pdf"'
        assert response["X-Content-Type-Options"] == "nosniff"

        method, path = route.delete
        with django_capture_on_commit_callbacks(execute=True):
            response = getattr(token_client, method)(path.format(file=stored.pk))
        assert response.json() == {"status": "success", "messages": DELETED, "payload": None}
        assert not StoredFile.objects.exists() and files_storage.names() == []
        deleted = ActionLog.objects.get(action_type="upload deleted")
        assert (deleted.item_type, deleted.item_id) == (kind.item_type, record.pk)
        assert deleted.log_meta == {"filename": "Invoice 2026-03.pdf"}
        assert token_client.get(route.listing).json() == {"total": 0, "rows": []}
        assert error_of(token_client.get(route.download.format(file=stored.pk))) == NOT_FOUND

    @pytest.mark.parametrize(("method", "suffix"), [("delete", ""), ("delete", "/delete"), ("post", "/delete")])
    def test_every_delete_route(self, token_client, files_storage, django_capture_on_commit_callbacks, method,
                                suffix):
        asset = AssetFactory()
        upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf())
        stored = StoredFile.objects.get()
        with django_capture_on_commit_callbacks(execute=True):
            response = getattr(token_client, method)(f"/api/v1/assets/{asset.pk}/files/{stored.pk}{suffix}")
        assert response.json()["status"] == "success"
        assert files_storage.names() == [] and not StoredFile.objects.exists()

    def test_several_files_at_once_and_listing(self, token_client, files_storage):
        asset = AssetFactory()
        route = paths("v85", KINDS["assets"], asset.pk)
        png = SimpleUploadedFile("photo.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, content_type="image/png")
        text = SimpleUploadedFile("licence key.txt", "clé: ABC-123\n".encode(), content_type="text/plain")
        body = upload(token_client, route, pdf(), png, text).json()
        assert body["payload"]["total"] == 3
        types = {row["filename"]: row["filetype"] for row in body["payload"]["rows"]}
        assert types == {"Invoice 2026-03.pdf": "application/pdf", "photo.png": "image/png",
                         "licence key.txt": "text/plain"}
        assert len(files_storage.names()) == 3
        assert ActionLog.objects.filter(action_type="uploaded").count() == 3
        listing = token_client.get(route.listing, {"sort": "filename", "order": "asc"}).json()
        assert [r["filename"] for r in listing["rows"]] == ["Invoice 2026-03.pdf", "licence key.txt", "photo.png"]
        assert token_client.get(route.listing, {"search": "photo"}).json()["total"] == 1
        assert token_client.get(route.listing, {"limit": 1, "offset": 1, "sort": "filename",
                                                "order": "asc"}).json()["rows"][0]["filename"] == "licence key.txt"

    def test_download_name_is_sanitized_and_unicode_safe(self, token_client, files_storage):
        asset = AssetFactory()
        route = paths("v85", KINDS["assets"], asset.pk)
        upload(token_client, route, pdf("C:\\Scans\\Rech\x07nung M\u00e4rz\u202e.pdf"))
        stored = StoredFile.objects.get()
        assert stored.filename == "Rechnung März.pdf"
        response = token_client.get(route.download.format(file=stored.pk))
        assert response["Content-Disposition"] == "attachment; filename*=utf-8''Rechnung%20M%C3%A4rz.pdf"
        assert downloaded(response) == PDF

    def test_a_file_of_another_record_is_not_found(self, token_client, files_storage):
        first, second = AssetFactory(), AssetFactory()
        upload(token_client, paths("v85", KINDS["assets"], first.pk), pdf())
        stored = StoredFile.objects.get()
        assert error_of(token_client.get(f"/api/v1/assets/{second.pk}/files/{stored.pk}")) == NOT_FOUND
        assert error_of(token_client.get(f"/api/v1/models/{first.model_id}/files/{stored.pk}")) == NOT_FOUND
        assert error_of(token_client.delete(f"/api/v1/assets/{second.pk}/files/{stored.pk}")) == NOT_FOUND
        assert StoredFile.objects.count() == 1 and len(files_storage.names()) == 1

    def test_missing_and_deleted_records_are_not_found(self, token_client, files_storage):
        from django.utils import timezone

        assert error_of(token_client.get("/api/v1/hardware/999999/files")) == "Asset does not exist."
        gone = AssetFactory(deleted_at=timezone.now())
        assert error_of(upload(token_client, paths("v85", KINDS["assets"], gone.pk), pdf())) == "Asset does not exist."
        nothing_stored(files_storage, 0)

    # --- refusals: no file, no row --------------------------------------------------------------------------------

    @pytest.mark.parametrize(("name", "content", "words"), [
        ("invoice.pdf", b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 64, "not an allowed type"),  # an executable
        ("invoice.pdf", b"just some text, not a PDF\n", "not an allowed type"),
        ("setup.exe", b"MZ\x90\x00" + b"\x00" * 64, "not an allowed type"),
        ("drawing.svg", b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
         "not an allowed type"),
        ("no-extension", PDF, "not an allowed type"),
        ("..\\..\\boot.pdf", PDF, "not allowed"),
        ("empty.pdf", b"", "empty"),
    ])
    def test_refused_upload_leaves_no_file_and_no_row(self, token_client, files_storage, name, content, words):
        asset = AssetFactory()
        logs = ActionLog.objects.count()
        response = upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf(name, content))
        messages = error_of(response)
        assert words in messages["file"][0], messages
        nothing_stored(files_storage, logs)

    @pytest.mark.parametrize("name", ["../../etc/passwd.pdf", "a/../../b.pdf", "..%2F..%2Fx.pdf".replace("%2F", "/"),
                                      "../..", "..", "&#46;&#46;/x.pdf"])
    def test_a_climbing_name_sent_raw_leaves_no_file_and_no_row(self, token_client, files_storage, name):
        """Test clients (and Django's ``UploadedFile``) strip folders from a name before sending; a raw multipart
        body sends the name as a misbehaving client would."""
        asset = AssetFactory()
        logs = ActionLog.objects.count()
        boundary = "XyZboundary"
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: application/pdf\r\n\r\n").encode() + PDF + f"\r\n--{boundary}--\r\n".encode()
        response = token_client.generic("POST", f"/api/v1/hardware/{asset.pk}/files", body,
                                        content_type=f"multipart/form-data; boundary={boundary}")
        messages = error_of(response)
        assert "not allowed" in messages["file"][0] or "did not select any files" in messages["file"][0], messages
        nothing_stored(files_storage, logs)

    def test_oversized_upload_is_refused(self, token_client, files_storage, settings):
        settings.UPLOAD_MAX_MB = 1
        asset = AssetFactory()
        logs = ActionLog.objects.count()
        big = PDF + b"0" * (1024 * 1024)
        messages = error_of(upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf(content=big)))
        assert messages["file"] == ["The file Invoice 2026-03.pdf is larger than 1 MB."]
        nothing_stored(files_storage, logs)

    def test_a_body_beyond_the_upload_limit_is_413(self, token_client, files_storage, settings):
        settings.UPLOAD_MAX_MB = 1
        settings.ASSETSVC = {**settings.ASSETSVC, "API_MAX_BODY_MB": 1}
        asset = AssetFactory()
        response = upload(token_client, paths("v85", KINDS["assets"], asset.pk),
                          pdf(content=PDF + b"0" * (3 * 1024 * 1024)))
        assert response.status_code == 413 and response.json()["status"] == "error"
        nothing_stored(files_storage, 0)

    def test_the_upload_limit_lifts_the_api_body_limit_for_uploads_only(self, token_client, files_storage,
                                                                       settings):
        settings.ASSETSVC = {**settings.ASSETSVC, "API_MAX_BODY_MB": 1}
        asset = AssetFactory()
        content = PDF + b"0" * (2 * 1024 * 1024)
        body = upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf(content=content)).json()
        assert body["status"] == "success", body
        assert token_client.patch(f"/api/v1/hardware/{asset.pk}", {"notes": "x" * (2 * 1024 * 1024)},
                                  format="json").status_code == 413

    def test_one_bad_file_refuses_the_whole_upload(self, token_client, files_storage):
        asset = AssetFactory()
        logs = ActionLog.objects.count()
        response = upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf(),
                          pdf("virus.pdf", b"\x7fELF\x02\x01"))
        assert "virus.pdf" in error_of(response)["file"][0]
        nothing_stored(files_storage, logs)

    def test_no_file_is_refused(self, token_client, files_storage):
        asset = AssetFactory()
        for response in (token_client.post(f"/api/v1/hardware/{asset.pk}/files", {"notes": "x"}, format="multipart"),
                         token_client.post(f"/api/v1/hardware/{asset.pk}/files", {"notes": "x"}, format="json")):
            assert error_of(response)["file"] == [
                "You did not select any files for upload, or the file you are trying to upload is too large"]
        nothing_stored(files_storage, 0)

    def test_a_storage_failure_leaves_no_file_and_no_row(self, token_client, files_storage, monkeypatch):
        """The row is written after the bytes: when writing the log fails, the written bytes are removed too."""
        import activity.services

        def broken(**kwargs):
            raise RuntimeError("log down")

        monkeypatch.setattr(activity.services, "log_action", broken)
        asset = AssetFactory()
        token_client.raise_request_exception = False
        response = upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf())
        assert response.status_code == 500
        nothing_stored(files_storage, 0)


# --- company separation and permissions (local storage only: the checks come before the storage) ----------------


@pytest.fixture
def local_files(settings, tmp_path):
    root = tmp_path / "files"
    settings.STORAGES = {**settings.STORAGES, "files": {
        "BACKEND": "activity.storage.PrivateFileSystemStorage", "OPTIONS": {"location": str(root)}}}
    return root


def stored_count(root) -> int:
    return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0


@pytest.mark.parametrize("kind_name", SCOPED)
def test_another_companys_record_and_its_files_are_not_found(kind_name, fmcs_on, company, other_company, local_files,
                                                            superuser, make_client, settings,
                                                            django_capture_on_commit_callbacks):
    kind = KINDS[kind_name]
    theirs = kind.make(company=other_company)
    admin = make_client(superuser)
    upload(admin, paths("v85", kind, theirs.pk), pdf())
    stored = StoredFile.objects.get()
    assert stored.company_id == other_company.pk
    keys = {f"{kind.section}.view": 1, f"{kind.section}.{kind.write_verb}": 1}
    mine = make_client(UserFactory(company=company, permissions=keys))
    base = f"/api/v1/{kind.api}/{theirs.pk}/files"
    missing = f"/api/v1/{kind.api}/999999/files"
    logs = ActionLog.objects.count()
    for method, suffix in (("get", ""), ("get", f"/{stored.pk}"), ("delete", f"/{stored.pk}"),
                           ("post", f"/{stored.pk}/delete")):
        with django_capture_on_commit_callbacks(execute=True):
            response = getattr(mine, method)(base + suffix)
        reference = getattr(mine, method)(missing + suffix)
        assert response.status_code == reference.status_code == 200
        assert response.json() == reference.json() and error_of(response) == kind.not_found, (method, suffix)
    assert error_of(upload(mine, paths("v85", kind, theirs.pk), pdf("mine.pdf"))) == kind.not_found
    assert StoredFile.objects.count() == 1 and stored_count(local_files) == 1
    assert ActionLog.objects.count() == logs
    http_errors(settings)  # API_ERROR_STATUS=http: a real 404, the same for theirs and for a missing record
    for suffix in ("", f"/{stored.pk}"):
        assert mine.get(base + suffix).status_code == mine.get(missing + suffix).status_code == 404
    # Their own company still sees and downloads it; a file follows its record.
    own = make_client(UserFactory(company=other_company, permissions=keys))
    assert own.get(base).json()["total"] == 1
    assert downloaded(own.get(f"{base}/{stored.pk}")) == PDF


@pytest.mark.parametrize("kind_name", list(KINDS))
def test_anonymous_gets_401_everywhere(kind_name, api_client, local_files, token_client):
    kind = KINDS[kind_name]
    record = kind.make()
    upload(token_client, paths("v85", kind, record.pk), pdf())
    stored = StoredFile.objects.get()
    base = f"/api/v1/{kind.api}/{record.pk}/files"
    for method, path in (("get", base), ("post", base), ("get", f"{base}/{stored.pk}"),
                         ("delete", f"{base}/{stored.pk}"), ("post", f"{base}/{stored.pk}/delete")):
        response = getattr(api_client, method)(path)
        assert response.status_code == 401, (method, path)
        assert response.json()["message"] == "Unauthenticated."
    assert StoredFile.objects.count() == 1 and stored_count(local_files) == 1


@pytest.mark.parametrize("kind_name", list(KINDS))
def test_each_verb_needs_its_key(kind_name, make_client, local_files, token_client):
    kind = KINDS[kind_name]
    record = kind.make()
    upload(token_client, paths("v85", kind, record.pk), pdf())
    stored = StoredFile.objects.get()
    base = f"/api/v1/{kind.api}/{record.pk}/files"
    view, write = f"{kind.section}.view", f"{kind.section}.{kind.write_verb}"
    other = "companies.view" if kind.section != "companies" else "users.view"

    reader = make_client(UserFactory(permissions={view: 1}))
    assert reader.get(base).json()["rows"][0]["available_actions"] == {"delete": False}
    assert downloaded(reader.get(f"{base}/{stored.pk}")) == PDF
    writer = make_client(UserFactory(permissions={write: 1}))
    stranger = make_client(UserFactory(permissions={other: 1}))
    for client, method, path in (
        (reader, "post", base), (reader, "delete", f"{base}/{stored.pk}"),
        (reader, "post", f"{base}/{stored.pk}/delete"), (writer, "get", base), (writer, "get", f"{base}/{stored.pk}"),
        (stranger, "get", base), (stranger, "post", base),
    ):
        data = {"file": pdf()} if method == "post" and path == base else {}
        response = getattr(client, method)(path, data, format="multipart")
        assert response.status_code == 403, (method, path, response.content)
        assert response.json()["message"] == "Insufficient permissions."
    assert StoredFile.objects.count() == 1 and stored_count(local_files) == 1
    assert upload(writer, paths("v85", kind, record.pk), pdf("second.pdf")).json()["status"] == "success"
    assert StoredFile.objects.count() == 2


def test_delete_without_the_files_key_is_refused_for_sections_that_have_it(make_client, local_files, token_client):
    """Snipe-IT's ``accessories.files``: editing the accessory is not enough to add or remove its files."""
    accessory = AccessoryFactory()
    editor = make_client(UserFactory(permissions={"accessories.view": 1, "accessories.edit": 1}))
    assert upload(editor, paths("v85", KINDS["accessories"], accessory.pk), pdf()).status_code == 403


def test_unknown_object_type_is_the_endpoint_not_found(token_client):
    response = token_client.get("/api/v1/companies/1/files")
    assert response.status_code == 404 and response.json()["status"] == "error"


def test_the_files_are_not_served_by_any_public_url(client, local_files, token_client, settings):
    """No route outside the API serves stored files: the folder's path is not under a URL, the storage has none."""
    from django.core.files.storage import storages

    asset = AssetFactory()
    upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf())
    stored = StoredFile.objects.get()
    with pytest.raises(ValueError):
        storages["files"].url(stored.storage_name)
    for path in (f"/media/{stored.storage_name}", f"/files/{stored.storage_name}", f"/static/{stored.storage_name}"):
        assert client.get(path).status_code == 404


def test_deleting_a_location_deletes_its_files(token_client, local_files, django_capture_on_commit_callbacks):
    """Locations are deleted for real: their files go with them (soft-deleted kinds keep theirs for a restore)."""
    location, asset = LocationFactory(), AssetFactory()
    upload(token_client, paths("v85", KINDS["locations"], location.pk), pdf())
    upload(token_client, paths("v85", KINDS["assets"], asset.pk), pdf())
    with django_capture_on_commit_callbacks(execute=True):
        assert token_client.delete(f"/api/v1/locations/{location.pk}").json()["status"] == "success"
    assert list(StoredFile.objects.values_list("item_type", flat=True)) == ["asset"]
    assert stored_count(local_files) == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert token_client.delete(f"/api/v1/hardware/{asset.pk}").json()["status"] == "success"
    assert StoredFile.objects.count() == 1 and stored_count(local_files) == 1
    token_client.post(f"/api/v1/hardware/{asset.pk}/restore")
    assert token_client.get(f"/api/v1/hardware/{asset.pk}/files").json()["total"] == 1


def test_the_list_runs_a_constant_number_of_queries(token_client, local_files):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    asset = AssetFactory()
    route = paths("v85", KINDS["assets"], asset.pk)
    upload(token_client, route, pdf())
    with CaptureQueriesContext(connection) as one:
        assert token_client.get(route.listing).json()["total"] == 1
    for index in range(10):
        upload(token_client, route, pdf(f"more-{index}.pdf"), notes=str(index))
    with CaptureQueriesContext(connection) as many:
        assert token_client.get(route.listing).json()["total"] == 11
    assert len(many.captured_queries) == len(one.captured_queries)


def test_files_of_a_user_who_outranks_the_caller_are_not_theirs_to_change(make_client, local_files, superuser,
                                                                            token_client):
    """As for any change to a user (GHSA-5448-v74m-7mv7): a ``users.edit`` holder neither adds nor removes files of a
    user with rights they lack; they still read them."""
    boss = UserFactory(permissions={"admin": 1})
    upload(token_client, paths("v85", KINDS["users"], boss.pk), pdf())
    stored = StoredFile.objects.get()
    editor = make_client(UserFactory(permissions={"users.view": 1, "users.edit": 1}))
    logs = ActionLog.objects.count()
    assert upload(editor, paths("v85", KINDS["users"], boss.pk), pdf("mine.pdf")).status_code == 403
    assert upload(editor, paths("v81", KINDS["users"], boss.pk), pdf("mine.pdf")).status_code == 403
    assert editor.delete(f"/api/v1/users/{boss.pk}/files/{stored.pk}").status_code == 403
    assert StoredFile.objects.count() == 1 and stored_count(local_files) == 1 and ActionLog.objects.count() == logs
    assert editor.get(f"/api/v1/users/{boss.pk}/files").json()["total"] == 1
    peer = UserFactory()
    assert upload(editor, paths("v85", KINDS["users"], peer.pk), pdf("peer.pdf")).json()["status"] == "success"
