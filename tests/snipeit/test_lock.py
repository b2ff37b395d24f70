"""One import at a time (inventory.snipeit.lock; issue 31): while another run holds the lock (another PostgreSQL
session, another process holding the SQLite lock file), a writing run fails at once with a clear message and writes
nothing; ``--dry-run`` and ``--verify`` still run; once the other run ends, the import runs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.core.management import CommandError
from django.db import connection

from companies.models import Company
from inventory.models import SnipeitImport
from inventory.snipeit import lock
from tests.snipeit.conftest import run_import

pytestmark = pytest.mark.django_db

HOLD = """
import fcntl, os, sys
handle = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(handle, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""




@pytest.fixture
def held_elsewhere(tmp_path, monkeypatch):
    """Another process (PostgreSQL: another session) holding the lock until the test ends."""
    if connection.vendor == "postgresql":
        import psycopg

        settings = connection.settings_dict
        other = psycopg.connect(dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"],
                                port=settings["PORT"] or 5432, password=settings["PASSWORD"] or None, autocommit=True)
        assert other.execute("SELECT pg_try_advisory_lock(%s)", [lock.ADVISORY_KEY]).fetchone()[0]
        yield
        other.close()
        return
    path = tmp_path / "db.sqlite3.import_snipeit.lock"
    monkeypatch.setattr(lock, "lock_path", lambda: path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "held"
    yield
    holder.stdin.close()
    holder.wait(timeout=10)


def test_a_second_run_fails_at_once_while_another_writes(snipeit_standin, token, held_elsewhere):
    with pytest.raises(CommandError, match="Another import_snipeit run is writing into this database"):
        run_import(snipeit_standin.url)
    with pytest.raises(CommandError, match="Another import_snipeit run"):
        run_import(snipeit_standin.url, "--resume")
    assert not Company.objects.exists() and not SnipeitImport.objects.exists()
    assert "would import" in run_import(snipeit_standin.url, "--dry-run")  # reading takes no lock


def test_the_lock_is_released_after_a_run(snipeit_standin, token):
    run_import(snipeit_standin.url)
    with lock.import_lock():  # free again in this process
        pass
    assert Company.objects.exists()
