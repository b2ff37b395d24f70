"""Encryption of custom field values at rest (API-CONTRACT.md §11.1, "Encrypted fields").

The Fernet encryption itself (keys from ``FIELD_ENCRYPTION_KEY``, rotation) is :mod:`assetsvc.crypto`, shared with
the site settings' webhook secret (issue 25: the settings live in ``assetsvc``, below ``inventory``); this module keeps
inventory's names for it and adds what is specific to custom values.

Unique encrypted values are compared through :func:`unique_digest`, a keyed HMAC of the normalised plaintext: equal
values give equal digests without the database ever holding something a dictionary attack could reverse without the
key. Plain fields use an unkeyed SHA-256 of the normalised value (nothing secret to protect).
"""

from __future__ import annotations

import hashlib
import hmac

from assetsvc.crypto import decrypt, encrypt, mac_key

__all__ = ["MASK", "decrypt", "encrypt", "normalised", "unique_digest"]

#: What a caller without ``assets.view.encrypted_custom_fields`` reads where an encrypted value exists.
MASK = "ENCRYPTED"


def normalised(value: str) -> str:
    """What uniqueness compares: the value trimmed and lower-cased."""
    return value.strip().lower()


def unique_digest(value: str, *, encrypted: bool) -> str:
    """``AssetFieldValue.unique_key`` of a value (64 hex characters)."""
    data = normalised(value).encode()
    if encrypted:
        return hmac.new(mac_key(), data, hashlib.sha256).hexdigest()
    return hashlib.sha256(data).hexdigest()
