"""Encryption at rest with ``FIELD_ENCRYPTION_KEY``: the generic part, used by encrypted custom values
(``inventory.custom_values.crypto``) and by the site settings' webhook secret (:class:`EncryptedTextField`, issue 25).

Values are stored as Fernet tokens (AES-128-CBC with an HMAC-SHA256, from the ``cryptography`` package):
authenticated, so a tampered value fails to decrypt instead of reading as garbage. ``settings.FIELD_ENCRYPTION_KEYS``
(env ``FIELD_ENCRYPTION_KEY``, comma-separated) holds the keys: the first encrypts, every one decrypts, so a key can be
rotated without losing values (``manage.py reencrypt_custom_values`` then writes everything with the first key). A key
that is not a Fernet key is hashed into one, so any long random text works.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models


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


def mac_key() -> bytes:
    """A key for keyed digests, derived from the first encryption key
    (``inventory.custom_values.crypto.unique_digest``)."""
    return _current()[1]


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


class Undecryptable(str):
    """What an :class:`EncryptedTextField` reads when no configured key opens the stored token: an empty string
    (it never passes for a value) that remembers the token, so saving the row again writes the token back unchanged
    instead of erasing it. Callers that must tell "none" from "unreadable" test ``isinstance(value, Undecryptable)``."""

    token: str

    def __new__(cls, token: str) -> Undecryptable:
        obj = super().__new__(cls, "")
        obj.token = token
        return obj


class EncryptedTextField(models.TextField):
    """Text stored as a Fernet token and read back as plain text (an empty value is stored empty).

    Each save encrypts with the current first key. A token no key opens reads as :class:`Undecryptable`. Not
    searchable or comparable in queries (a token is different at every save)."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> str | None:
        if not value:
            return value
        plain = decrypt(value)
        return Undecryptable(value) if plain is None else plain

    def get_prep_value(self, value: Any) -> Any:
        if isinstance(value, Undecryptable):
            return value.token
        value = super().get_prep_value(value)
        return encrypt(value) if value else value
