"""Where uploaded CSV files wait: the admin's previews (a random name in the import directory, swept after an hour)
and the files of ``POST /imports`` (a random name in its ``api`` subdirectory, kept until deleted through the API).
Each file is created 0600, never through an existing file or link of that name."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings


def import_dir() -> Path:
    """Where uploaded files wait for their confirmation (``CSV_IMPORT_DIR`` setting, else the temp directory)."""
    directory = Path(getattr(settings, "CSV_IMPORT_DIR", "") or Path(tempfile.gettempdir()) / "assetsvc-imports")
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


def api_upload_dir() -> Path:
    """The files of ``POST /imports`` (never swept: they are deleted with their row)."""
    directory = import_dir() / "api"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


def keep_upload(upload: Any, directory: Path | None = None) -> tuple[Path, int]:
    """Write an upload to a new file that only the service's user may read; the file and its count of line
    breaks."""
    target = (directory or import_dir()) / f"{secrets.token_hex(16)}.csv"
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    lines = 0
    try:
        with os.fdopen(descriptor, "wb") as kept:
            for chunk in upload.chunks():
                kept.write(chunk)
                lines += chunk.count(b"\n")
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target, lines
