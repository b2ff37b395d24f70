"""Issue 26: every repository path a document names in backticks exists. A path is backticked text with a ``/``
whose first part is a top-level file or folder of the repository (``inventory/services/assets.py``,
``tests/api_mixins.py``, ``inventory/api/assets/``); what follows a space, ``:`` or ``#`` is a name inside it and is
not checked. A migration may be named by its number (``inventory/migrations/0015``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md"])
TICKED = re.compile(r"`([^`\n]+)`")
PATHLIKE = re.compile(r"^[\w.\-/]+$")
#: Folders the tools write and git ignores (.gitignore): whether they exist depends on what ran before, not on the
#: repository, so a document may name them freely.
GENERATED = ("test-artifacts/", "benchmarks/results/", "mutants/", "staticfiles/", "var/", ".venv/")


def named_paths(text: str) -> list[str]:
    out = []
    for match in TICKED.finditer(text):
        candidate = re.split(r"[\s:#(]", match.group(1).strip(), maxsplit=1)[0].rstrip(".,;")
        if "/" not in candidate or not PATHLIKE.match(candidate) or candidate.startswith(("/", "./", "../")):
            continue
        if f"{candidate}/".startswith(GENERATED):
            continue
        if (ROOT / candidate.split("/")[0]).exists():
            out.append(candidate)
    return out


def exists(path: str) -> bool:
    target = ROOT / path
    if target.exists():
        return True
    return bool(re.fullmatch(r".*/migrations/\d{4}", path)) and any(target.parent.glob(f"{target.name}_*.py"))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_path_a_document_names_exists(doc):
    missing = sorted({path for path in named_paths(doc.read_text()) if not exists(path)})
    assert missing == [], f"{doc.name} names paths that do not exist: {missing}"


def test_the_check_sees_paths_and_refuses_a_missing_one():
    assert named_paths("see `inventory/services/assets.py:40` and `inventory/nowhere.py`, not `a/b` or `x.y`") == [
        "inventory/services/assets.py", "inventory/nowhere.py"]
    # generated folders are not checked, whether a run made them or not
    assert named_paths("`test-artifacts/browser/sqlite` and `benchmarks/results/x.json`") == []
    assert exists("inventory/services/assets.py") and exists("inventory/migrations/0015")
    assert not exists("inventory/nowhere.py")
