"""One import at a time (issue 31; docs/decisions.md "Issue 31: one import at a time"): two runs of ``import_snipeit``
that write (a run, ``--resume``, ``--merge``) into the same database would both write the records neither has mapped
yet, and the second would fail on the first's ids halfway. :func:`import_lock` is held for the whole run; a second run
fails at once with :data:`LOCKED`. ``--dry-run`` and ``--verify`` write nothing and take no lock.

PostgreSQL: a session advisory lock (``pg_try_advisory_lock``), per database, released by the server when the
session ends, so a killed run (SIGKILL, a lost connection) never leaves it behind. SQLite: an exclusive ``flock`` on a
file next to the database file, released by the kernel when the process ends, however it ends; an in-memory
database belongs to one process, so its lock file is per process.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

#: The advisory lock's key: any constant no other part of the service uses ("snipeit" as a number).
ADVISORY_KEY = int.from_bytes(b"snipeit", "big")
LOCKED = ("Another import_snipeit run is writing into this database ({how}). Wait until it ends: two runs at once "
          "would write the same records twice. (--dry-run and --verify may run meanwhile.)")


class ImportLocked(Exception):
    """Another run holds the lock."""


def lock_path() -> Path:
    """The SQLite lock file: ``<database file>.import_snipeit.lock``; for an in-memory database one per process."""
    name = str(connection.settings_dict["NAME"])
    if name == ":memory:" or "mode=memory" in name or name.startswith("file:memorydb"):
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"assetsvc-import-snipeit-{digest}-{os.getpid()}.lock"
    return Path(f"{name}.import_snipeit.lock")


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ImportLocked(LOCKED.format(how=f"another process holds {path}")) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


@contextmanager
def advisory_lock() -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_KEY])
        held = cursor.fetchone()[0]
    if not held:
        raise ImportLocked(LOCKED.format(how=f"PostgreSQL advisory lock {ADVISORY_KEY} is held by another session"))
    try:
        yield
    finally:
        if connection.connection is not None:  # a lost connection released it already
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_KEY])


@contextmanager
def import_lock() -> Iterator[None]:
    """Held for the whole of a writing run; raises :class:`ImportLocked` at once when another run holds it."""
    if connection.vendor == "postgresql":
        with advisory_lock():
            yield
    else:
        with file_lock(lock_path()):
            yield
