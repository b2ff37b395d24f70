"""Storages for the file tests (issue 27): every test that asks for ``files_storage`` runs twice, on a local folder
and on an S3 bucket served by moto's server mode (``ThreadedMotoServer`` on a free port, a dev dependency installed
from the lock: those runs are marked ``s3`` and never skipped)."""

from __future__ import annotations

import socket
import uuid

import pytest
from django.core.files.storage import storages

S3_KEYS = {"access_key": "testing", "secret_key": "testing"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def moto_endpoint():
    """moto's S3 server, started once for the session, on a free port of 127.0.0.1."""
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def s3_bucket(moto_endpoint, monkeypatch):
    """A fresh bucket on the moto server, and a boto3 client to look into it."""
    import boto3

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    client = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
    bucket = f"files-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=bucket)
    return client, bucket


class StoredObjects:
    """What a storage holds, for assertions: the names of every stored object."""

    def __init__(self, backend: str, names) -> None:
        self.backend = backend
        self._names = names

    def names(self) -> list[str]:
        return sorted(self._names())


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.s3)])
def files_storage(request, settings, tmp_path):
    """The ``files`` storage of one test: a temporary folder, or a bucket of moto's server (django-storages'
    ``S3Storage`` pointed at it, as production points it at any S3-compatible store)."""
    if request.param == "local":
        root = tmp_path / "files"
        settings.STORAGES = {**settings.STORAGES, "files": {
            "BACKEND": "activity.storage.PrivateFileSystemStorage", "OPTIONS": {"location": str(root)}}}

        def names():
            return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()] if root.exists() else []
    else:
        client, bucket = request.getfixturevalue("s3_bucket")
        settings.STORAGES = {**settings.STORAGES, "files": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": bucket, "endpoint_url": client.meta.endpoint_url, "region_name": "us-east-1",
                        "location": "private", "default_acl": "private", "file_overwrite": False, **S3_KEYS}}}

        def names():
            listed = client.list_objects_v2(Bucket=bucket).get("Contents", [])
            return [item["Key"] for item in listed]
    expected = "PrivateFileSystemStorage" if request.param == "local" else "S3Storage"
    assert storages["files"].__class__.__name__ == expected
    return StoredObjects(request.param, names)
