"""The employees' portal in a real browser (issue 32): an ordinary user signs in at /account/ and uses every page,
at desktop and at phone width (390 px, no sideways scrolling), and axe-core finds no serious or critical
accessibility violation on any of them (tests/browser/axe.py)."""

from __future__ import annotations

import re

import pytest

from tests.browser.axe import assert_accessible
from tests.browser.helpers import ADMIN_PASSWORD, DESKTOP, PHONE, expect, fits_the_width, screenshot
from tests.factories import AssetFactory, UserFactory

WIDTHS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def portal_login(page, username: str, password: str = ADMIN_PASSWORD, next_url: str = "/account/") -> None:
    """Fill in and submit the portal's own sign-in form (not the admin's)."""
    page.goto(f"/account/login/?next={next_url}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()


def check_page(page, name: str, viewport: dict) -> None:
    """What every portal page must be: no sideways scrolling, no serious accessibility problem; photographed."""
    assert fits_the_width(page), f"{page.url} scrolls sideways at {viewport['width']} px"
    assert_accessible(page)
    suffix = "phone" if viewport is PHONE else "desktop"
    screenshot(page, f"portal-{name}-{suffix}")


@pytest.fixture
def employee(transactional_db):
    """An ordinary employee: no rights at all, turned away by the admin."""
    return UserFactory(username="emma", first_name="Emma", last_name="Employee")


@WIDTHS
def test_an_employee_signs_in_where_the_admin_refuses_them(page, employee, viewport):
    page.set_viewport_size(viewport)
    page.goto("/account/")
    expect(page).to_have_url(re.compile(r"/account/login/\?next=%2Faccount%2F$"))
    check_page(page, "sign-in", viewport)
    portal_login(page, "emma", "wrong password")
    expect(page.get_by_role("alert")).to_contain_text("correct username and password")
    portal_login(page, "emma")
    expect(page).to_have_url(re.compile(r"/account/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("My items")
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/account/login/$"))


@WIDTHS
def test_my_items_shows_what_i_hold_and_nothing_of_anyone_else(page, employee, viewport):
    mine = AssetFactory(asset_tag="LAP-0001", assigned_user=employee)
    theirs = AssetFactory(asset_tag="LAP-0002", assigned_user=UserFactory(username="olga"))
    page.set_viewport_size(viewport)
    portal_login(page, "emma")
    main = page.locator("main")
    expect(main).to_contain_text(mine.asset_tag)
    expect(main).not_to_contain_text(theirs.asset_tag)
    check_page(page, "my-items", viewport)
