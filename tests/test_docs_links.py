"""Issue 14: no document in the repository points to a file outside it. Every Markdown file's links resolve to
files inside the repository, every ``../`` path names a file of the repository, no absolute path of this machine
appears, and every ``name.md`` it mentions is a document of the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {".venv", ".git", "node_modules", "mutants", "staticfiles", ".pytest_cache"}
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CLIMB = re.compile(r"(?<![\w.])(?:\.\./)+[\w.-][\w./-]*")
ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:work|home|root|Users)/[\w.-]+")
DOCUMENT = re.compile(r"(?<![\w./-])[\w-]+\.md\b")


def documents() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.md") if not SKIPPED & set(p.relative_to(ROOT).parts))


def _inside(path: Path) -> bool:
    return path.resolve().is_relative_to(ROOT)


def problems(path: Path, text: str | None = None) -> list[str]:
    text, found = path.read_text(encoding="utf-8") if text is None else text, []
    names = {p.name for p in documents()}
    for target in LINK.findall(text):
        if re.match(r"^(?:[a-z]+:|#)", target):  # http(s), mailto, an anchor of this page
            continue
        local = (path.parent / target.split("#", 1)[0]).resolve()
        if not _inside(local) or not local.exists():
            found.append(f"link {target}")
    for climb in CLIMB.findall(text):
        climb = climb.rstrip(".")  # the end of a sentence
        if not _inside(path.parent / climb) or not (path.parent / climb).exists():
            found.append(f"path {climb}")
    found += [f"absolute path {hit}" for hit in ABSOLUTE.findall(text)]
    found += [f"document {name}" for name in DOCUMENT.findall(text) if name not in names]
    return found


def test_the_repository_has_its_documents():
    found = {p.relative_to(ROOT).as_posix() for p in documents()}
    assert {"README.md", "docs/quickstart.md", "docs/architecture.md"} <= found


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_document_points_only_inside_the_repository(path):
    assert problems(path) == []


def test_the_check_catches_each_way_out():
    text = ("[a](../../elsewhere/x.md) [b](docs/missing.md) see ../shared/bench/compare.sh, /work/main/x and "
            "API-CONTRACT.md; fine: [c](https://example.com) [d](#top) [e](architecture.md) ../README.md")
    assert problems(ROOT / "docs" / "quickstart.md", text) == [
        "link ../../elsewhere/x.md", "link docs/missing.md", "path ../../elsewhere/x.md",
        "path ../shared/bench/compare.sh", "absolute path /work/main", "document API-CONTRACT.md"]
