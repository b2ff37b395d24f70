"""Signing in to the admin through its real login form, and the admin's own CSS reaching the browser."""

from __future__ import annotations

import re

from tests.browser.helpers import ADMIN_PASSWORD, expect, login
from tests.factories import UserFactory


def test_super_user_signs_in_with_the_login_form(admin_page, admin_user):
    expect(admin_page).to_have_url(re.compile(r"/admin/$"))
    expect(admin_page.locator("#user-tools")).to_contain_text("Ada")
    expect(admin_page.locator("#content h1")).to_have_text("Asset management")  # SITE_NAME (issue 28)
    # The admin's stylesheet was served and applied (the header is dark, not the browser's white default).
    background = admin_page.locator("#header").evaluate("node => getComputedStyle(node).backgroundColor")
    assert background != "rgba(0, 0, 0, 0)"


def test_wrong_password_is_refused_on_the_form(page, admin_user):
    login(page, admin_user.username, "not the password")
    expect(page.locator("#login-form")).to_be_visible()
    expect(page.locator(".errornote")).to_contain_text("Please enter the correct username and password")
    assert "sessionid" not in {cookie["name"] for cookie in page.context.cookies()}


def test_user_without_admin_rights_cannot_sign_in(page, transactional_db):
    user = UserFactory(username="clerk")
    login(page, user.username, ADMIN_PASSWORD)
    expect(page.locator(".errornote")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/admin/login/"))
