"""``manage.py webhook_receiver`` (API-CONTRACT.md §8a) run as a real process: its output and its verdicts."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from notifications.signing import sign

SECRET = "receiver-secret-0123"
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def start_receiver():
    processes = []

    def start(*args: str):
        port = free_port()
        process = subprocess.Popen([sys.executable, "manage.py", "webhook_receiver", "--port", str(port), *args],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        processes.append(process)
        assert process.stdout.readline() == f"Listening on http://127.0.0.1:{port}/\n"
        return process, f"http://127.0.0.1:{port}/any/path"

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> int:
    return requests.post(url, data=body, headers=headers or {}, timeout=5).status_code


def line(process) -> str:
    return process.stdout.readline().rstrip("\n")


def test_verdicts_in_order(start_receiver):
    process, url = start_receiver("--secret", SECRET)
    body = json.dumps({"event": "asset.checked_out", "delivery_id": "0b7c1a52-1d0e-4c3f-9a55-2f1d3c4b5a69"}).encode()
    assert post(url, body) == 401
    assert line(process) == "delivery event=asset.checked_out delivery_id=0b7c1a52-1d0e-4c3f-9a55-2f1d3c4b5a69 " \
                            "signature=missing"
    assert line(process) == "{"
    for _ in range(3):
        line(process)
    assert post(url, body, sign(SECRET, body, now=time.time() - 600)) == 401
    assert line(process).endswith("signature=expired")
    for _ in range(4):
        line(process)
    assert post(url, body, {"X-Webhook-Timestamp": "abc", "X-Webhook-Signature": "sha256=00"}) == 401
    assert line(process).endswith("signature=expired")
    for _ in range(4):
        line(process)
    assert post(url, body, sign("wrong-secret-0123456", body)) == 401
    assert line(process).endswith("signature=invalid")
    for _ in range(4):
        line(process)
    assert post(url, body, sign(SECRET, body)) == 200
    assert line(process).endswith("signature=verified")
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_unchecked_without_secret_and_raw_text(start_receiver):
    process, url = start_receiver()
    assert post(url, b"not json at all") == 200
    assert line(process) == "delivery event=- delivery_id=- signature=unchecked"
    assert line(process) == "not json at all"
    process.send_signal(signal.SIGINT)
    assert process.wait(10) == 0
