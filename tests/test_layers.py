"""The one-way layers are enforced: the import-linter contracts in pyproject.toml pass on the code as it is and fail
as soon as a lower app imports a higher one (also inside a function or only for an annotation), a domain module
imports HTTP, or an inner layer of inventory imports one above it (issue 26)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("assetsvc", "activity", "companies", "accounts", "inventory", "notifications")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _copy_tree(dest: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, dest / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


def _lint(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tree, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}, timeout=120)


@pytest.fixture
def tree(tmp_path) -> Path:
    _copy_tree(tmp_path)
    return tmp_path


def test_the_layers_contract_is_kept(tree):
    result = _lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    counts = re.search(r"Contracts: (\d+) kept, (\d+) broken", result.stdout)
    assert counts and int(counts.group(2)) == 0, result.stdout
    assert int(counts.group(1)) >= 4, result.stdout


@pytest.mark.parametrize("module, line", [
    ("companies/services.py", "from inventory.models import Asset\n"),
    ("assetsvc/api/viewsets.py", "def _late():\n    from accounts.models import User\n    return User\n"),
    ("activity/services.py", "import companies.models\n"),
    ("accounts/holdings.py", "def _late():\n    import notifications.events\n"),
    ("companies/querysets.py",
     "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from accounts.models import User\n"),
    ("inventory/selectors/assets.py", "from rest_framework import exceptions as _drf\n"),
    ("inventory/custom_values/lookups.py", "from assetsvc.api import inputs as _api_inputs\n"),
    ("inventory/models/base.py", "def _late():\n    from inventory.services import assets\n"),
    ("inventory/selectors/tally.py", "def _late():\n    from inventory.api import reports\n"),
])
def test_a_back_import_breaks_the_contract(tree, module, line):
    path = tree / module
    path.write_text(path.read_text() + "\n\n" + line)
    result = _lint(tree)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout
