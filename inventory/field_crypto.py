"""Encryption of custom field values at rest (API-CONTRACT.md §11.1, "Encrypted fields").

Values of ``field_encrypted`` fields are stored as Fernet tokens (AES-128-CBC with an HMAC-SHA256, from the
``cryptography`` package the OAuth toolkit already brings): authenticated, so a tampered value fails to decrypt
instead of reading as garbage. ``settings.FIELD_ENCRYPTION_KEYS`` (env ``FIELD_ENCRYPTION_KEY``, comma-separated)
holds the keys: the first encrypts, every one decrypts, so a key can be rotated without losing values. A key that is
not a Fernet key is hashed into one, so any long random text works.

Unique encrypted values are compared through :func:`unique_digest`, a keyed HMAC of the normalised plaintext: equal
values give equal digests without the database ever holding something a dictionary attack could reverse without the
key. Plain fields use an unkeyed SHA-256 of the normalised value (nothing secret to protect).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings

#: What a caller without ``assets.view.encrypted_custom_fields`` reads where an encrypted value exists.
MASK = "ENCRYPTED"


def _fernet_key(text: str) -> bytes:
    try:
        Fernet(text.encode())
        return text.encode()
    except (ValueError, TypeError):
        return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest())


@lru_cache(maxsize=4)
def _cipher(keys: tuple[str, ...]) -> tuple[MultiFernet, bytes]:
    fernets = [Fernet(_fernet_key(key)) for key in keys]
    mac_key = hashlib.sha256(b"assetsvc-unique-digest:" + _fernet_key(keys[0])).digest()
    return MultiFernet(fernets), mac_key


def _current() -> tuple[MultiFernet, bytes]:
    return _cipher(tuple(settings.FIELD_ENCRYPTION_KEYS))


def encrypt(plaintext: str) -> str:
    return _current()[0].encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str | None:
    """The plaintext, or None when the text is not a token of any configured key (a lost key, a tampered row)."""
    if not token:
        return ""
    try:
        return _current()[0].decrypt(token.encode()).decode()
    except (InvalidToken, ValueError):
        return None


def normalised(value: str) -> str:
    """What uniqueness compares: the value trimmed and lower-cased."""
    return value.strip().lower()


def unique_digest(value: str, *, encrypted: bool) -> str:
    """``AssetFieldValue.unique_key`` of a value (64 hex characters)."""
    data = normalised(value).encode()
    if encrypted:
        return hmac.new(_current()[1], data, hashlib.sha256).hexdigest()
    return hashlib.sha256(data).hexdigest()
