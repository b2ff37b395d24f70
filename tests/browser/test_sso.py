"""Single sign-on (issue 30) in a real browser: the admin's login page shows the provider's button, the button leads
to the real test provider (tests/oidc_provider, its own process), and signing in there lands in the admin as the
matched user. Pictures of the login page with the button at desktop and phone width (docs/directory.md)."""

from __future__ import annotations

import re

from tests.browser.helpers import DESKTOP, PHONE, expect, fits_the_width, messages, screenshot
from tests.factories import UserFactory
from tests.oidc_provider import fixtures as provider_fixtures
from tests.oidc_provider.fixtures import PASSWORD

oidc_provider = provider_fixtures.oidc_provider
sso_on = provider_fixtures.sso_on


def sign_in_at_provider(page, username: str) -> None:
    expect(page.locator("#provider-login")).to_be_visible()
    page.fill("#provider-username", username)
    page.fill("#provider-password", PASSWORD)
    page.click("#provider-submit")
    page.wait_for_load_state()


def test_sign_in_with_the_button_lands_in_the_admin(page, sso_on, settings, transactional_db):
    settings.OIDC_BUTTON_LABEL = "Sign in with Contoso ID"
    UserFactory(username="asmith", email="alice@example.com", first_name="Alice", last_name="Smith",
                permissions={"admin": 1})
    page.set_viewport_size(DESKTOP)
    page.goto("/admin/login/?next=/admin/")
    button = page.locator("#sso-button")
    expect(button).to_have_text("Sign in with Contoso ID")
    expect(page.locator("#login-form")).to_be_visible()  # the password form stays
    screenshot(page, "sso-login-desktop")
    button.click()
    page.wait_for_url(re.compile(rf"^{re.escape(sso_on.issuer.rsplit('/', 1)[0])}/accounts/login/"))
    sign_in_at_provider(page, "alice")
    expect(page).to_have_url(re.compile(r"/admin/$"))
    expect(page.locator("#user-tools")).to_contain_text("Alice")
    expect(page.locator("#content h1")).to_have_text("Asset management")


def test_login_page_with_the_button_fits_a_phone(page, sso_on, transactional_db):
    page.set_viewport_size(PHONE)
    page.goto("/admin/login/?next=/admin/")
    expect(page.locator("#sso-button")).to_be_visible()
    assert fits_the_width(page)
    screenshot(page, "sso-login-phone")


def test_unknown_person_sees_why(page, sso_on, transactional_db):
    page.goto("/admin/login/?next=/admin/")
    page.click("#sso-button")
    sign_in_at_provider(page, "newbie")
    expect(page).to_have_url(re.compile(r"/admin/login/"))
    assert any("No user matches your single sign-on account" in text for text in messages(page))
    screenshot(page, "sso-login-refused")
