"""The accessibility check of the browser tests (issue 32): axe-core, from the npm registry, run inside the page.

axe-core is pinned in ``tests/browser/npm/package.json`` (and its ``package-lock.json``) and installed into
``tests/browser/npm/node_modules`` by ``npm ci``: ``make test`` runs it when npm is there and the package is not,
``.ci/run`` always (and installs Debian's npm first when missing). Without it, :func:`serious_violations` skips the
test that asked (``BROWSER_TESTS=auto``) or fails it (``required``, as in CI).

Only the WCAG 2.x A and AA rules and axe's best practices run; a violation of impact "serious" or "critical" fails.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE_JS = Path(__file__).resolve().parent / "npm" / "node_modules" / "axe-core" / "axe.min.js"
FAILING_IMPACTS = ("serious", "critical")
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def _need_axe() -> None:
    if AXE_JS.is_file():
        return
    reason = f"axe-core is not installed at {AXE_JS} (npm ci --prefix tests/browser/npm; make test runs it)"
    if os.environ.get("BROWSER_TESTS", "auto").strip().lower() == "required":
        pytest.fail(f"the accessibility check is required but cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def serious_violations(page: Page) -> list[str]:
    """axe-core's violations of impact serious or critical on the page as it is now, one line each (rule, impact,
    the first elements, help text); empty when the page passes."""
    _need_axe()
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate("""tags => axe.run(document, {runOnly: {type: 'tag', values: tags},
                                                       resultTypes: ['violations']})""", TAGS)
    lines = []
    for violation in result["violations"]:
        if violation.get("impact") not in FAILING_IMPACTS:
            continue
        targets = ", ".join(" ".join(node["target"]) for node in violation["nodes"][:3])
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']} -- at {targets}")
    return lines


def assert_accessible(page: Page, what: str = "") -> None:
    problems = serious_violations(page)
    assert not problems, f"axe-core on {what or page.url}:\n" + "\n".join(problems)
