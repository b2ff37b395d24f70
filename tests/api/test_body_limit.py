"""Issue 25 item 8: every request body is limited before it is read. Under ``/api/`` the limit is
``API_MAX_BODY_MB`` and the refusal is the 413 error envelope; elsewhere (the admin, whose CSV import takes files of
up to 50 MB) ``ADMIN_MAX_BODY_MB``. A body announced larger than the limit is refused without reading a byte of it;
a body without ``Content-Length`` (``Transfer-Encoding: chunked``) is read up to the limit and refused past it.

The live counterpart (a real gunicorn worker, a 300 MB announcement, a chunked stream) is
``tests/api/test_body_limit_live.py``."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client

from inventory.admin.transfer import MAX_UPLOAD
from inventory.models import Asset
from tests.factories import AssetModelFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"
MB = 1024 * 1024


def too_large(limit_mb: int) -> dict:
    message = f"The request body is too large (at most {limit_mb} MB)."
    return {"status": "error", "message": message, "messages": message, "payload": None}


@pytest.fixture
def limit_1mb(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_MAX_BODY_MB": 1}


@pytest.fixture
def viewer(make_client):
    """A view-only user: the issue's 300 MB body came from one."""
    return make_client(UserFactory(permissions={"assets.view": 1}))


@pytest.fixture
def asset_body(db):
    return {"asset_tag": "BIG-1", "model_id": AssetModelFactory().pk, "status_id": StatusLabelFactory().pk}


class NotToBeRead(io.RawIOBase):
    """A request stream that fails the test if anything reads it: proof that a refusal came before the body was
    read (a real worker would otherwise hold all of it in memory)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        raise AssertionError("the body was read")


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_announced_300_mb_json_body_is_refused_unread_with_413(viewer, method):
    """The issue's case: a view-only user's list request with a 300 MB body, read whole before."""
    response = viewer.generic(method, URL, b"", content_type="application/json",
                              **{"wsgi.input": NotToBeRead(), "CONTENT_LENGTH": str(300 * MB)})
    assert response.status_code == 413, response.content
    assert response.json() == too_large(10)  # the default limit
    assert response["X-RateLimit-Limit"]  # counted like every /api/v1 answer
    assert Asset.objects.count() == 0


@pytest.mark.parametrize("method", ["post", "patch", "put"])
def test_a_json_body_over_the_limit_is_413_and_writes_nothing(token_client, limit_1mb, asset_body, method):
    body = json.dumps({**asset_body, "notes": "x" * (MB + 1)})
    path = URL if method == "post" else f"{URL}/1"
    response = getattr(token_client, method)(path, body, content_type="application/json")
    assert response.status_code == 413 and response.json() == too_large(1)
    assert Asset.objects.count() == 0


def test_a_body_at_the_limit_is_read(token_client, limit_1mb, asset_body):
    body = json.dumps({**asset_body, "notes": "x"})
    body = body[:-1] + " " * (MB - len(body)) + "}"
    assert len(body) == MB
    response = token_client.post(URL, body, content_type="application/json")
    assert response.status_code == 200 and response.json()["status"] == "success", response.content
    assert Asset.objects.filter(asset_tag="BIG-1").exists()


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "application/json"])
def test_a_form_body_over_the_limit_is_the_413_envelope_not_500(token_client, asset_body, content_type):
    """The issue: a form body over 2.5 MB (Django's DATA_UPLOAD_MAX_MEMORY_SIZE) answered 500; above the API limit
    it is 413 like JSON."""
    form = "&".join(f"{key}={value}" for key, value in asset_body.items()) + "&notes=" + "x" * (11 * MB)
    response = token_client.generic("POST", URL, form, content_type=content_type)
    assert response.status_code == 413, response.content[:300]
    assert response.json() == too_large(10)
    assert Asset.objects.count() == 0


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "application/json"])
def test_a_form_body_between_2_5_mb_and_the_limit_is_read_not_500(token_client, asset_body, content_type):
    """Below the API limit a form body is read like JSON: here the notes are too long, a field error."""
    form = "&".join(f"{key}={value}" for key, value in asset_body.items()) + "&notes=" + "x" * (3 * MB)
    response = token_client.generic("POST", URL, form, content_type=content_type)
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["status"] == "error" and body["payload"] is None and "notes" in body["messages"]
    assert Asset.objects.count() == 0


def test_a_multipart_body_over_the_limit_is_413(token_client, limit_1mb, asset_body):
    response = token_client.post(URL, {**asset_body, "notes": "x" * (MB + 1)}, format="multipart")
    assert response.status_code == 413 and response.json() == too_large(1)
    assert Asset.objects.count() == 0


def test_a_form_with_too_many_fields_is_an_envelope_not_500(token_client):
    form = "&".join(f"f{i}=1" for i in range(1500))
    response = token_client.generic("POST", URL, form, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413, response.content[:300]
    message = "The request body has too many fields (at most 1000)."
    assert response.json() == {"status": "error", "message": message, "messages": message, "payload": None}
    assert Asset.objects.count() == 0


def chunked(client, body: bytes, **extra):
    """A request without ``Content-Length`` whose body arrives as ``Transfer-Encoding: chunked`` (what gunicorn
    hands the application: the decoded stream, no length)."""
    return client.generic("POST", URL, b"", content_type="application/json",
                          **{"wsgi.input": io.BytesIO(body), "HTTP_TRANSFER_ENCODING": "chunked", **extra})


def test_a_chunked_body_within_the_limit_is_read(token_client, limit_1mb, asset_body):
    """Before, Django read a body without Content-Length as empty: the asset tag "was required"."""
    response = chunked(token_client, json.dumps(asset_body).encode())
    assert response.status_code == 200 and response.json()["status"] == "success", response.content
    assert Asset.objects.filter(asset_tag="BIG-1").exists()


def test_a_chunked_body_over_the_limit_is_413(token_client, limit_1mb, asset_body):
    response = chunked(token_client, json.dumps({**asset_body, "notes": "x" * (2 * MB)}).encode())
    assert response.status_code == 413 and response.json() == too_large(1)
    assert Asset.objects.count() == 0


def test_a_bad_content_length_is_a_400_envelope(token_client):
    response = token_client.generic("POST", URL, b"", content_type="application/json",
                                    **{"wsgi.input": NotToBeRead(), "CONTENT_LENGTH": "-5"})
    assert response.status_code == 400
    message = "The Content-Length header is invalid."
    assert response.json() == {"status": "error", "message": message, "messages": message, "payload": None}


# --- outside /api/: the admin ---------------------------------------------------------------------------------------


def test_the_admin_limit_leaves_room_for_the_csv_import():
    from assetsvc.conf import app_settings

    assert app_settings.ADMIN_MAX_BODY_MB * MB >= MAX_UPLOAD + MB  # the 50 MB file plus its form's multipart framing


def test_an_admin_csv_upload_larger_than_the_api_limit_still_reaches_the_form(settings, limit_1mb):
    admin = UserFactory(superuser=True)
    client = Client()
    client.force_login(admin)
    rows = "Asset Tag,Model Name,Category,Status,Padding\n" + "".join(
        f"CSV-{i:07d},Model,Laptops,Ready to Deploy,{'p' * 250_000}\n" for i in range(9))
    assert len(rows) > 2 * MB
    upload = io.BytesIO(rows.encode())
    upload.name = "assets.csv"
    response = client.post("/admin/inventory/asset/import/", {"file": upload})
    assert response.status_code in (200, 302), response.status_code  # the preview (or its redirect), not 413


def test_an_admin_body_over_its_limit_is_refused_unread(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "ADMIN_MAX_BODY_MB": 1}
    client = Client()
    response = client.generic("POST", "/admin/login/", b"", content_type="multipart/form-data; boundary=x",
                              **{"wsgi.input": NotToBeRead(), "CONTENT_LENGTH": str(2 * MB)})
    assert response.status_code == 413
    assert b"too large" in response.content
