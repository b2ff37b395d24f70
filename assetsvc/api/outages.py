"""What an ``/api/v1`` request answers while the database cannot be reached (docs/operations.md): the 503 error
envelope, at once, never a 500 or an HTML page. Django opens a fresh connection for the next request
(``CONN_HEALTH_CHECKS``), so the service recovers by itself when the database is back."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

DATABASE_UNAVAILABLE = "The service is temporarily unavailable: its database cannot be reached. Try again shortly."
#: Texts of lock and serialisation problems: the database answered, so these are not an outage.
_NOT_AN_OUTAGE = ("lock", "deadlock", "could not serialize")


def is_database_outage(exc: BaseException | None) -> bool:
    """True for a lost or refused database connection (``OperationalError`` / ``InterfaceError`` that is not a lock
    time-out or a deadlock, which the database itself reported)."""
    if isinstance(exc, InterfaceError):
        return True
    if isinstance(exc, OperationalError):
        text = str(exc).lower()
        return not any(word in text for word in _NOT_AN_OUTAGE)
    return False
