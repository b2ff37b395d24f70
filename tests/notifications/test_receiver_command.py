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


# --- Issue 25, item 14: the secret out of ``ps``, absurd timestamps, untrusted bodies escaped. ---


def _signed_body() -> bytes:
    return json.dumps({"event": "asset.checked_out", "delivery_id": "d"}).encode()


def test_secret_from_a_file_is_not_on_the_command_line(start_receiver, tmp_path):
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    process, url = start_receiver("--secret-file", str(secret_file))
    assert SECRET not in Path(f"/proc/{process.pid}/cmdline").read_bytes().decode(errors="replace")
    body = _signed_body()
    assert post(url, body, sign(SECRET, body)) == 200
    assert line(process).endswith("signature=verified")
    for _ in range(4):
        line(process)
    assert post(url, body, sign("wrong-secret-0123456", body)) == 401
    assert line(process).endswith("signature=invalid")
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_secret_from_the_environment(start_receiver, monkeypatch):
    monkeypatch.setenv("WEBHOOK_SECRET", SECRET)
    process, url = start_receiver()
    assert SECRET not in Path(f"/proc/{process.pid}/cmdline").read_bytes().decode(errors="replace")
    body = _signed_body()
    assert post(url, body) == 401
    assert line(process).endswith("signature=missing")
    for _ in range(4):
        line(process)
    assert post(url, body, sign(SECRET, body)) == 200
    assert line(process).endswith("signature=verified")
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_unreadable_or_short_secret_file_is_refused(tmp_path):
    short = tmp_path / "short"
    short.write_text("too-short")
    for path in (tmp_path / "missing", short):
        result = subprocess.run([sys.executable, "manage.py", "webhook_receiver", "--port", str(free_port()),
                                 "--secret-file", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert result.returncode == 1
        assert "--secret-file" in result.stderr and "too-short" not in result.stderr + result.stdout


@pytest.mark.parametrize("timestamp", ["9" * 400, "9" * 5000, "0" * 5000 + "1"])
def test_absurd_timestamps_are_expired_not_a_crash(start_receiver, timestamp):
    process, url = start_receiver("--secret", SECRET)
    body = _signed_body()
    assert post(url, body, {"X-Webhook-Timestamp": timestamp, "X-Webhook-Signature": "sha256=00"}) == 401
    assert line(process).endswith("signature=expired")
    for _ in range(4):
        line(process)
    # Still serving.
    assert post(url, body, sign(SECRET, body)) == 200
    assert line(process).endswith("signature=verified")
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_non_ascii_signature_is_invalid_not_a_crash(start_receiver):
    process, url = start_receiver("--secret", SECRET)
    body = _signed_body()
    headers = {**sign(SECRET, body), "X-Webhook-Signature": "sha256=\xe9"}
    assert post(url, body, headers) == 401
    assert line(process).endswith("signature=invalid")
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_control_characters_of_untrusted_bodies_are_escaped(start_receiver):
    process, url = start_receiver()
    raw = "line\x1b[2J\x1b]0;pwned\x07 bell\r\u202eevil\x9b\x00end\nnext".encode()
    assert post(url, raw) == 200
    assert line(process) == "delivery event=- delivery_id=- signature=unchecked"
    shown = line(process) + "\n" + line(process)
    assert shown == "line\\x1b[2J\\x1b]0;pwned\\x07 bell\\x0d\\u202eevil\\x9b\\x00end\nnext"
    body = json.dumps({"event": "asset\x1b[31m.x\n", "delivery_id": "\u202eid", "text": "a\x7fb\u2028c"}).encode()
    assert post(url, body) == 200
    assert line(process) == "delivery event=asset\\x1b[31m.x\\x0a delivery_id=\\u202eid signature=unchecked"
    printed = "".join(line(process) + "\n" for _ in range(5))
    assert "\x1b" not in printed and "\x7f" not in printed and "\u202e" not in printed and "\u2028" not in printed
    assert '"text": "a\\x7fb\\u2028c"' in printed
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0
