"""What the browser tests do on admin pages, in one place: sign in, search a change list, run a list action, read the
messages and the result table. Selectors are Django admin's own (``#searchbar``, ``select[name=action]``,
``#result_list``, ``ul.messagelist``).

Playwright's ``expect`` waits (up to the page's timeout) until its assertion holds, so a test never sleeps; use it
for anything that appears after a navigation.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

try:
    from playwright.sync_api import expect
except ImportError:  # the ``browser`` fixture skips (or fails) with the reason before any test uses it
    expect = None

if TYPE_CHECKING:
    from collections.abc import Iterable

    from playwright.sync_api import Page

__all__ = ["ADMIN_PASSWORD", "DESKTOP", "PHONE", "expect", "fits_the_width", "login", "messages", "pick_autocomplete",
           "result_column", "run_action", "screenshot", "search"]

ADMIN_PASSWORD = "correct horse battery"  # UserFactory's


def login(page: Page, username: str, password: str) -> None:
    """Fill in and submit the admin's login form (the caller checks where it led)."""
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("#login-form input[type=submit]")
    page.wait_for_load_state()


def messages(page: Page) -> list[str]:
    """The texts of the admin messages on the page (success, warning, error), in order."""
    return [text.strip() for text in page.locator("ul.messagelist li").all_inner_texts()]


def search(page: Page, changelist: str, query: str) -> None:
    """Type ``query`` into the search box of the change list at ``changelist`` and submit it."""
    page.goto(changelist)
    page.fill("#searchbar", query)
    page.press("#searchbar", "Enter")
    page.wait_for_url(lambda url: "q=" in url)


def result_column(page: Page, field: str) -> list[str]:
    """The texts of one column of the change list's result table (``list_display`` name)."""
    return [text.strip() for text in page.locator(f"#result_list tbody .field-{field}").all_inner_texts()]


def run_action(page: Page, action: str, pks: Iterable[int]) -> None:
    """Tick the rows ``pks`` of the change list on the page, choose the list action ``action`` and press Go."""
    for pk in pks:
        page.check(f'#result_list input.action-select[value="{pk}"]')
    page.select_option("select[name=action]", action)
    page.click("button[name=index]")
    page.wait_for_load_state()


def pick_autocomplete(page: Page, select_id: str, typed: str, choice: str) -> None:
    """Choose ``choice`` in the admin's autocomplete (select2) widget of the ``<select id=select_id>``: open it, type
    ``typed`` into its search box, and click the first answer that contains ``choice``."""
    page.click(f"[aria-labelledby='select2-{select_id}-container']")
    page.fill(".select2-container--open .select2-search__field", typed)
    option = page.locator(".select2-results__option", has_text=choice).first
    expect(option).to_be_visible()
    option.click()
    expect(page.locator(f"#select2-{select_id}-container")).to_contain_text(choice)


#: Where :func:`screenshot` saves pictures for the documentation (``make screenshots`` sets it to ``docs/img``);
#: unset, nothing is saved.
SCREENSHOTS = os.environ.get("SCREENSHOTS_DIR", "")
DESKTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


def screenshot(page: Page, name: str) -> None:
    """Save the full page as ``<SCREENSHOTS_DIR>/<name>.png`` when the variable is set (the docs' pictures)."""
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)


def fits_the_width(page: Page) -> bool:
    """Whether the page needs no sideways scrolling at its viewport's width (a phone at the shelf)."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
