"""Browser tests (issue 14): Playwright drives Debian's Chromium, headless, against pytest-django's live server.

- **Chromium** is the system one (``/usr/bin/chromium``, package ``chromium``; ``BROWSER_CHROMIUM`` names another
  file). Playwright's own browser builds are never downloaded (``playwright install`` is never run).
- **Missing browser:** the tests are skipped with the reason, unless ``BROWSER_TESTS=required`` (``.ci/run`` sets
  it): then they fail. ``make test`` on a machine with only Python therefore passes, and CI cannot pass without them.
- **Live server:** pytest-django's ``live_server`` (one per xdist worker, on a free port) serves the WSGI application
  in a thread of the test process, against this test's database (``transactional_db``: the server thread only sees
  committed rows; the tables are emptied after each test). Static files (the admin's CSS and JavaScript) are served
  from the app folders by its static handler, so no ``collectstatic`` is needed.
- **One Chromium per worker** while the tests of this folder run (package scope), a fresh browser context (cookies,
  storage) per test.
- **Failures** leave ``<test name>.png`` (full page) and ``<test name>.html`` in ``test-artifacts/browser/`` at the
  repository root (``BROWSER_ARTIFACTS`` names another folder; git-ignored); a passing run of the test removes its
  old ones.
- **Broken pages fail the test:** any answer 500 or above, and any static file that does not load, seen by the page.

Playwright's synchronous API runs its event loop in the test's thread, where Django then refuses ORM calls
("SynchronousOnlyOperation"); ``DJANGO_ALLOW_ASYNC_UNSAFE`` is set while the browser is up, and only then.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from tests.browser.helpers import ADMIN_PASSWORD, login
from tests.factories import UserFactory

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHROMIUM = os.environ.get("BROWSER_CHROMIUM", "/usr/bin/chromium")
MODE = os.environ.get("BROWSER_TESTS", "auto").strip().lower() or "auto"
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS") or ROOT / "test-artifacts" / "browser")
TIMEOUT_MS = 10_000
REPORTS = pytest.StashKey[dict]()


def pytest_collection_modifyitems(config, items):
    """Every test of this folder carries the ``browser`` marker (``-m "not browser"`` leaves them out); without a
    browser they are skipped here, before any database or server is set up for them (``BROWSER_TESTS=required``:
    the ``browser`` fixture fails them instead)."""
    reason = unavailable_reason() if MODE == "auto" else None
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {reason}"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Kept on the item so the ``page`` fixture knows at teardown whether the test failed.
    report = yield
    item.stash.setdefault(REPORTS, {})[report.when] = report
    return report


def unavailable_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed (make install installs the dev dependencies)"
    if not os.path.isfile(CHROMIUM) or not os.access(CHROMIUM, os.X_OK):
        return (f"no Chromium at {CHROMIUM} (apt-get install chromium chromium-driver; .ci/run installs it; "
                "BROWSER_CHROMIUM names another executable)")
    return None


@pytest.fixture(scope="package")
def browser():
    """Debian's Chromium, headless, for the tests of this folder in this worker; skipped (or failed, with
    ``BROWSER_TESTS=required``) when it cannot run."""
    if MODE not in {"auto", "required"}:
        pytest.fail(f"BROWSER_TESTS must be 'auto' or 'required', not {MODE!r}", pytrace=False)
    reason = unavailable_reason()
    if reason is not None:
        if MODE == "required":
            pytest.fail(f"browser tests are required (BROWSER_TESTS=required) but cannot run: {reason}",
                        pytrace=False)
        pytest.skip(f"browser tests skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                  args=["--disable-dev-shm-usage"])
            yield chromium
            chromium.close()


def artifact_paths(item: pytest.Item) -> dict[str, Path]:
    """``test_assets__test_find_an_asset_by_its_tag.png`` (and ``.html``, ``.txt``) for one test."""
    name = item.nodeid.removeprefix("tests/browser/").replace(".py::", "__")
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", name)
    return {suffix: ARTIFACTS / f"{stem}.{suffix}" for suffix in ("png", "html", "txt")}


@pytest.fixture
def page(request, browser, live_server):
    """A fresh page on the live server (``page.goto("/admin/")``), 10 s timeouts; screenshot and HTML on failure."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    broken: list[str] = []

    def check(response) -> None:
        path = response.url.removeprefix(live_server.url)
        if response.status >= 500 or (path.startswith("/static/") and response.status >= 400):
            broken.append(f"{response.status} {response.request.method} {path}")

    page.on("response", check)
    page.on("requestfailed", lambda req: req.url.startswith(f"{live_server.url}/static/") and broken.append(
        f"failed {req.method} {req.url.removeprefix(live_server.url)}: {req.failure}"))
    yield page
    reports = request.node.stash.get(REPORTS, {})
    failed = any(report.failed for report in reports.values())
    paths = artifact_paths(request.node)
    if failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        try:
            page.screenshot(path=paths["png"], full_page=True)
            paths["html"].write_text(page.content())
        except Exception as exc:  # a crashed page still lets the test report its own failure
            paths["txt"].write_text(f"no screenshot: {exc!r}\n")
    else:
        for path in paths.values():
            path.unlink(missing_ok=True)
    context.close()
    if broken and not failed:
        pytest.fail("the page saw broken answers: " + "; ".join(broken), pytrace=False)


@pytest.fixture
def admin_user(transactional_db):
    """A super user (who may do everything in the admin) with the factory's password (``helpers.ADMIN_PASSWORD``)."""
    return UserFactory(username="browser-admin", first_name="Ada", last_name="Admin", superuser=True)


@pytest.fixture
def admin_page(page, admin_user):
    """``page`` signed in as ``admin_user`` through the real admin login form."""
    login(page, admin_user.username, ADMIN_PASSWORD)
    return page


@pytest.fixture
def receiver():
    """A local webhook receiver (pytest-httpserver, threaded, on a free port of 127.0.0.1)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()

