"""Domain errors: what services raise when a rule refuses an operation. They live below the HTTP layer, so services,
the admin and commands share them; ``assetsvc.api.exceptions.api_exception_handler`` turns them into the envelope.

``kind`` picks the status in ``API_ERROR_STATUS=http`` mode: ``invalid`` 422, ``not_found`` 404, ``conflict`` 409
(200 in ``compat`` mode). ``code`` is a stable machine-readable name; ``payload`` rides along in the envelope.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refused domain operation. ``kind`` picks the status in ``http`` mode: ``invalid`` 422, ``not_found`` 404,
    ``conflict`` 409. ``code`` is a stable machine-readable name; ``payload`` rides along in the envelope."""

    kind = "conflict"
    default_code = "domain_error"

    def __init__(self, message: str, *, code: str | None = None, payload: Any = None, messages: Any = None):
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.payload = payload
        self.messages = messages if messages is not None else message


class ConflictError(DomainError):
    kind = "conflict"
    default_code = "conflict"


class InvalidInputError(DomainError):
    """Input that is well-formed but refused by a domain rule; ``messages`` may carry ``{field: [text]}``."""

    kind = "invalid"
    default_code = "invalid"


class NotFoundError(DomainError):
    kind = "not_found"
    default_code = "not_found"
