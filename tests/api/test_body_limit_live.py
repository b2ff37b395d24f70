"""Issue 25 item 8 on a real gunicorn worker: a body announced at 300 MB is refused at once, before the server waits
for (or holds) any of it; a chunked body without ``Content-Length`` is bounded the same way, and one within the limit
is read (Django alone would have read it as empty)."""

from __future__ import annotations

import http.client
import json
import time

import pytest
import requests

from accounts.services import personal_token_issue
from inventory.models import Asset
from tests.factories import AssetModelFactory, StatusLabelFactory, UserFactory
from tests.live import Gunicorn, live_env

pytestmark = [pytest.mark.postgres, pytest.mark.live]  # gunicorn must see the test database
MB = 1024 * 1024


@pytest.fixture
def server(transactional_db):
    gunicorn = Gunicorn(live_env(API_MAX_BODY_MB="1"), workers=1, threads=2).start()
    try:
        yield gunicorn
    finally:
        gunicorn.stop()


@pytest.fixture
def token(transactional_db):
    _record, raw = personal_token_issue(user=UserFactory(superuser=True))
    return raw


def test_an_announced_300_mb_body_is_answered_413_without_sending_it(server, token):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=15)
    started = time.monotonic()
    connection.putrequest("POST", "/api/v1/hardware")
    for name, value in (("Authorization", f"Bearer {token}"), ("Content-Type", "application/json"),
                        ("Content-Length", str(300 * MB))):
        connection.putheader(name, value)
    connection.endheaders(b"{")  # one byte of the announced 300 MB, then nothing: the answer must not wait
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    assert time.monotonic() - started < 10
    assert response.status == 413
    message = "The request body is too large (at most 1 MB)."
    assert body == {"status": "error", "message": message, "messages": message, "payload": None}
    assert response.getheader("X-RateLimit-Limit")  # counted like every /api/v1 answer
    assert Asset.objects.count() == 0


def chunks(data: bytes, size: int = 64 * 1024):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def test_chunked_bodies_are_read_within_the_limit_and_refused_beyond_it(server, token):
    model, status = AssetModelFactory(), StatusLabelFactory()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Connection": "close"}
    small = json.dumps({"asset_tag": "CHUNK-1", "model_id": model.pk, "status_id": status.pk}).encode()
    ok = requests.post(f"{server.base}/api/v1/hardware", data=chunks(small, 16), headers=headers, timeout=15)
    assert ok.status_code == 200 and ok.json()["status"] == "success", ok.text[:300]
    assert Asset.objects.filter(asset_tag="CHUNK-1").exists()

    big = json.dumps({"asset_tag": "CHUNK-2", "model_id": model.pk, "status_id": status.pk,
                      "notes": "x" * (2 * MB)}).encode()
    refused = requests.post(f"{server.base}/api/v1/hardware", data=chunks(big), headers=headers, timeout=15)
    assert refused.status_code == 413, refused.text[:300]
    assert refused.json()["message"] == "The request body is too large (at most 1 MB)."
    assert not Asset.objects.filter(asset_tag="CHUNK-2").exists()
