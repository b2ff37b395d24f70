"""Signing of webhook deliveries (API-CONTRACT.md §8a): the sender's headers and the receiver's check.

:func:`verify` is the receiver printed in docs/notifications.md, verbatim; ``manage.py webhook_receiver`` and the
tests use it, so the documented receiver is the one that is tested.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Mapping

TIMESTAMP_HEADER = "X-Webhook-Timestamp"
SIGNATURE_HEADER = "X-Webhook-Signature"
#: Seconds a signed delivery stays acceptable (either way of the receiver's clock): older is a replay.
TOLERANCE = 300
#: A timestamp a receiver accepts: 1 to 12 ASCII digits (until the year 33658). Longer digit strings are refused
#: before ``int()``: Python refuses to convert more than 4,300 digits, and a number past a float's range cannot be
#: compared with ``time.time()`` (issue 25: the receiver crashed instead of refusing).
TIMESTAMP_PATTERN = r"[0-9]{1,12}"


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex HMAC-SHA256>`` with the secret's UTF-8 bytes as key over ``<timestamp>.<body>``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return "sha256=" + mac


def sign(secret: str, body: bytes, now: float | None = None) -> dict[str, str]:
    """The two headers of one attempt (the time of this attempt, in Unix seconds)."""
    timestamp = str(int(time.time() if now is None else now))
    return {TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: signature(secret, timestamp, body)}


# --- The documented receiver (docs/notifications.md), verbatim. ---
def verify(secret: str, headers, body: bytes, now: float | None = None) -> bool:
    ts = headers.get("X-Webhook-Timestamp") or ""
    sig = headers.get("X-Webhook-Signature") or ""
    if not re.fullmatch(r"[0-9]{1,12}", ts) or abs((now or time.time()) - int(ts)) > 300:
        return False  # missing, absurd, or more than 5 minutes old (or ahead): a replay
    mac = hmac.new(secret.encode(), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(sig.encode(), ("sha256=" + mac).encode())


def verdict(secret: str | None, headers: Mapping[str, str], body: bytes, now: float | None = None) -> str:
    """``manage.py webhook_receiver``'s verdict, checked in this order: ``unchecked`` (no secret given),
    ``missing`` (no signature headers), ``expired`` (a timestamp that is not 1 to 12 digits or is more than 5
    minutes from now), ``invalid`` (the HMAC does not match), ``verified`` (what :func:`verify` accepts)."""
    if not secret:
        return "unchecked"
    ts = headers.get(TIMESTAMP_HEADER) or ""
    sig = headers.get(SIGNATURE_HEADER) or ""
    if not ts and not sig:
        return "missing"
    if not re.fullmatch(TIMESTAMP_PATTERN, ts) or abs((now or time.time()) - int(ts)) > TOLERANCE:
        return "expired"
    return "verified" if verify(secret, headers, body, now) else "invalid"
