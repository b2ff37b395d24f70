"""Fixtures for the Snipe-IT import: a small generated data set and a running stand-in serving it."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import pytest
from django.core.management import call_command

from tests.snipeit.dataset import generate
from tests.snipeit.standin import SnipeitStandin

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.snipeit.dataset import Dataset

SNIPEIT_TOKEN = "snipeit-test-token-not-a-secret"


@pytest.fixture(autouse=True)
def snipeit_files_dir(settings, tmp_path):
    """Imported files go to a temporary folder (the ``files`` storage), never to the checkout's ``var/files``."""
    root = tmp_path / "files"
    settings.STORAGES = {**settings.STORAGES, "files": {
        "BACKEND": "activity.storage.PrivateFileSystemStorage", "OPTIONS": {"location": str(root)}}}
    return root


@pytest.fixture(scope="session")
def snipeit_dataset() -> Dataset:
    """Small but complete: every kind, every checkout type, seats, deleted assets, files, 1,000 log rows.

    Session-scoped and never mutated (the stand-in copies what it changes), so generate it once.
    """
    return generate(seed=1, assets=200, log_rows=1000)


@pytest.fixture
def snipeit_standin(snipeit_dataset: Dataset) -> Iterator[SnipeitStandin]:
    """A stand-in on 127.0.0.1 (a free port), well-behaved; build your own for 429s or drift."""
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN) as standin:
        yield standin


@pytest.fixture
def token(monkeypatch):
    """The stand-in's token in ``SNIPEIT_TOKEN``, as an operator gives it to ``import_snipeit``."""
    monkeypatch.setenv("SNIPEIT_TOKEN", SNIPEIT_TOKEN)


def run_import(url: str, *args: str) -> str:
    """``manage.py import_snipeit --url URL ARGS...``: what it printed (its stdout; progress goes to stderr)."""
    out = io.StringIO()
    call_command("import_snipeit", "--url", url, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()
