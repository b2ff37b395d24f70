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


@WIDTHS
def test_request_and_cancel_a_requestable_asset(page, employee, viewport):
    from inventory.models import CheckoutRequest

    employee.permissions = {"assets.view.requestable": 1}
    employee.save()
    asset = AssetFactory(asset_tag="LOAN-7", name="Loaner laptop", requestable=True)
    page.set_viewport_size(viewport)
    portal_login(page, "emma")
    page.get_by_role("link", name="Request").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Request")
    check_page(page, "requests", viewport)
    card = page.locator("#assets ~ ul li.card", has_text="LOAN-7")
    card.get_by_text("Add a note to IT").click()
    card.get_by_label("Note to IT (optional)").fill("For the trip to Lyon next week")
    card.get_by_role("button", name="Request LOAN-7").click()
    expect(page.get_by_role("status")).to_contain_text("Request successfully submitted")
    request = CheckoutRequest.objects.get(asset=asset, user=employee)
    assert request.is_open and request.note == "For the trip to Lyon next week"
    mine = page.locator("#mine ~ ul li.card", has_text="LOAN-7")
    expect(mine).to_contain_text("Open")
    check_page(page, "requests-asked", viewport)
    mine.get_by_role("button", name="Cancel request for LOAN-7").click()
    expect(page.get_by_role("status")).to_contain_text("Request successfully canceled")
    request.refresh_from_db()
    assert request.canceled_at is not None
    expect(page.locator("#mine ~ ul li.card", has_text="LOAN-7")).to_contain_text("Canceled")


@WIDTHS
def test_profile_and_an_api_token(page, employee, viewport):
    from accounts.models import PersonalAccessToken

    employee.permissions = {"self.api": 1}
    employee.save()
    page.set_viewport_size(viewport)
    portal_login(page, "emma")
    page.get_by_role("link", name="Profile").click()
    check_page(page, "profile", viewport)
    page.get_by_label("Phone").fill("+33 1 23 45 67 89")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("main dl")).to_contain_text("+33 1 23 45 67 89")
    employee.refresh_from_db()
    assert employee.phone == "+33 1 23 45 67 89"
    page.get_by_role("link", name="API tokens").first.click()
    check_page(page, "tokens", viewport)
    page.get_by_label("Name").fill("laptop sync script")
    page.get_by_role("button", name="Create token").click()
    raw = page.get_by_label("Token").input_value()
    assert len(raw) > 30
    check_page(page, "token-created", viewport)
    token = PersonalAccessToken.objects.get(user=employee, name="laptop sync script")
    assert raw not in str(token.__dict__)  # only its digest is stored
    page.get_by_role("link", name="back to my tokens").click()
    page.get_by_role("button", name="Revoke the token laptop sync script").click()
    expect(page.locator("main")).to_contain_text("You have no API tokens")


def test_two_factor_set_up_when_the_site_requires_it_then_asked_at_sign_in(page, employee):
    from assetsvc.models import SiteSettings, TwoFactorPolicy
    from tests.browser.test_two_factor import app_code

    SiteSettings.objects.update_or_create(pk=1, defaults={"two_factor": TwoFactorPolicy.EVERYONE})
    page.set_viewport_size(PHONE)
    portal_login(page, "emma")
    expect(page).to_have_url(re.compile(r"/account/two-factor/"))
    check_page(page, "two-factor-enrol", PHONE)
    secret = page.locator("#two-factor-secret").inner_text().strip()
    page.get_by_label("First code").fill(app_code(secret))
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    expect(page.locator("#backup-codes li")).to_have_count(10)
    check_page(page, "two-factor-codes", PHONE)
    page.get_by_role("link", name="I have saved them").click()
    expect(page).to_have_url(re.compile(r"/account/$"))
    page.get_by_role("button", name="Sign out").click()
    portal_login(page, "emma")
    expect(page).to_have_url(re.compile(r"/account/two-factor/verify/"))
    check_page(page, "two-factor-verify", PHONE)
    page.get_by_label("Code").fill(app_code(secret, steps_ahead=1))
    page.get_by_role("button", name="Verify").click()
    expect(page).to_have_url(re.compile(r"/account/$"))
