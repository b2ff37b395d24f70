"""Issue 25 item 22: ``make`` builds ``.venv`` with Python 3.11, else 3.12 (the versions the hashed lock installs
from wheels), found by running each candidate (a pyenv shim exists for versions that are not selected and fails when
run), and refuses any other interpreter with a message instead of a broken install.

Fake interpreters in a private ``PATH`` stand in for the installed ones; ``make -n`` prints what would run."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ("python3.11", "python3.12", "python3.13", "python3")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def fake_bin(tmp_path: Path, installed: dict[str, str]) -> Path:
    """Interpreters by name: those ``installed`` print their version (``3.12``) for any command, as the Makefile's
    probe asks; the others fail like a pyenv shim of a version that is not selected (exit 127)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in CANDIDATES:
        script = folder / name
        script.write_text(f"#!/bin/sh\necho {installed[name]}\n" if name in installed else
                          f"#!/bin/sh\necho 'pyenv: {name}: command not found' >&2\nexit 127\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def make(tmp_path: Path, installed: dict[str, str], *args: str, dry_run: bool = True) -> subprocess.CompletedProcess:
    """``make`` on a copy of the Makefile (nothing of the checkout is touched), ``.venv`` to be built."""
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(ROOT / "Makefile", work / "Makefile")
    (work / "requirements.lock").write_text("")
    path = f"{fake_bin(tmp_path, installed)}:/usr/bin:/bin"
    command = ["make", *(["-n"] if dry_run else []), "install", *args]
    return subprocess.run(command, cwd=work, env={"PATH": path, "HOME": str(tmp_path)}, capture_output=True,
                          text=True, timeout=60)


def venv_line(output: str) -> str:
    return next(line for line in output.splitlines() if "-m venv" in line)


def test_python_3_11_is_preferred(tmp_path):
    result = make(tmp_path, {"python3.11": "3.11", "python3.12": "3.12", "python3": "3.11"})
    assert result.returncode == 0, result.stderr
    assert venv_line(result.stdout).startswith("python3.11 -m venv")


def test_a_plain_python3_of_a_fitting_version_is_taken(tmp_path):
    result = make(tmp_path, {"python3": "3.12"})
    assert result.returncode == 0, result.stderr
    assert venv_line(result.stdout).startswith("python3 -m venv")


def test_python_3_12_is_taken_when_3_11_is_not_installed(tmp_path):
    """Before: ``PYTHON ?= python3.11`` ran a missing python3.11 whatever else was installed."""
    result = make(tmp_path, {"python3.12": "3.12", "python3.13": "3.13", "python3": "3.13"})
    assert result.returncode == 0, result.stderr
    assert venv_line(result.stdout).startswith("python3.12 -m venv")


def test_without_a_fitting_python_make_says_so_and_builds_nothing(tmp_path):
    result = make(tmp_path, {"python3.13": "3.13", "python3": "3.10"}, dry_run=False)
    assert result.returncode != 0
    assert "Python 3.11 or 3.12 is needed" in result.stdout + result.stderr
    assert not (tmp_path / "repo" / ".venv").exists()


def test_an_explicit_python_is_checked_too(tmp_path):
    result = make(tmp_path, {"python3.11": "3.11", "python3.13": "3.13"}, "PYTHON=python3.13", dry_run=False)
    assert result.returncode != 0
    assert "Python 3.11 or 3.12 is needed" in result.stdout + result.stderr
    assert not (tmp_path / "repo" / ".venv").exists()
