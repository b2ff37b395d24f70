"""The Snipe-IT import's crash drill (issue 31), on PostgreSQL: a real ``manage.py import_snipeit`` reading a slow
stand-in is killed with SIGKILL halfway (once it has written some assets and before it has reached the action log);
``--resume`` then finishes it, and the database equals what an uninterrupted run of the same import leaves. A second
full run is refused without ``--merge``, and writes nothing."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from inventory.models import SnipeitImport, SnipeitRecord
from tests.live import live_env, wait_until
from tests.snipeit.conftest import SNIPEIT_TOKEN, snipeit_dataset  # noqa: F401 - the fixture
from tests.snipeit.snapshot import database_state
from tests.snipeit.standin import SnipeitStandin

pytestmark = [pytest.mark.live, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _import(url: str, *extra: str) -> str:
    out = io.StringIO()
    call_command("import_snipeit", "--url", url, *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_a_run_killed_halfway_and_resumed_equals_an_uninterrupted_one(snipeit_dataset, monkeypatch):  # noqa: F811
    monkeypatch.setenv("SNIPEIT_TOKEN", SNIPEIT_TOKEN)
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN) as fast:
        _import(fast.url)
    whole = database_state()
    assert any(kind == "asset" for kind, _id, _our in whole["records"]), "the uninterrupted run imported no asset"
    call_command("flush", interactive=False, verbosity=0)

    # Each answer takes 20 ms: the run lasts several seconds, and the kill lands between the assets and the log.
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN, delay=0.02) as slow:
        process = subprocess.Popen([sys.executable, "manage.py", "import_snipeit", "--url", slow.url],
                                   cwd=settings.BASE_DIR, env=live_env(SNIPEIT_TOKEN=SNIPEIT_TOKEN),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            halfway = wait_until(lambda: SnipeitRecord.objects.filter(kind="asset").exists(), 120, interval=0.01)
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
        finally:
            if process.poll() is None:
                process.kill()
        assert halfway, process.stderr.read().decode()[-3000:]
        process.stderr.close()
        assert not SnipeitRecord.objects.filter(kind="action").exists(), "the kill came too late to test anything"
        assert SnipeitImport.objects.get().state == SnipeitImport.State.RUNNING  # killed: nobody marked it

        with pytest.raises(CommandError, match="--resume"):
            _import(slow.url)  # not resumed: refused, pointing at --resume
        report = _import(slow.url, "--resume")
    assert "resumed" in report
    assert database_state() == whole
    assert SnipeitImport.objects.get().state == SnipeitImport.State.FINISHED

    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN) as again, pytest.raises(CommandError, match="--merge"):
        _import(again.url)  # a second full run into the same database
    assert database_state() == whole
