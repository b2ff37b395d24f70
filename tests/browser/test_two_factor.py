"""Two-factor sign-in and the sign-in throttle in a real browser (issue 30): a person enrols an authenticator from
the enrolment page (the code computed here from the key the page shows, as an app would), keeps the backup codes,
signs out and signs in again with password and code; ten wrong passwords on the login form lock the account for the
configured time; the site setting "required for admins" sends an admin to enrolment first. With ``SCREENSHOTS_DIR``
set it saves the enrolment page at desktop and phone width (docs/directory.md)."""

from __future__ import annotations

import re
import time
from base64 import b32decode
from datetime import timedelta

from django_otp.oath import TOTP

from assetsvc.models import SiteSettings, TwoFactorPolicy
from tests.browser.helpers import ADMIN_PASSWORD, DESKTOP, PHONE, expect, fits_the_width, login, screenshot


def app_code(secret_text: str, steps_ahead: int = 0) -> str:
    """What an authenticator app shows for the key typed from the page."""
    key = b32decode(secret_text.replace(" ", "") + "=" * (-len(secret_text.replace(" ", "")) % 8))
    totp = TOTP(key)
    totp.time = time.time() + 30 * steps_ahead
    return f"{totp.token():06d}"


def sign_out(page) -> None:
    page.click("#logout-form button")
    page.wait_for_load_state()


def test_enrol_an_authenticator_and_sign_in_with_a_code(admin_page, admin_user):
    page = admin_page
    page.set_viewport_size(DESKTOP)
    page.click("#two-factor-link")
    expect(page).to_have_url(re.compile(r"/admin/two-factor/$"))
    expect(page.locator("#two-factor-qr svg")).to_be_visible()
    secret = page.locator("#two-factor-secret").inner_text().strip()
    assert re.fullmatch(r"[A-Z2-7]{4}( [A-Z2-7]{1,4})+", secret)
    screenshot(page, "two-factor-enrol")
    page.set_viewport_size(PHONE)
    assert fits_the_width(page)
    screenshot(page, "two-factor-enrol-phone")
    page.set_viewport_size(DESKTOP)
    page.fill("#id_code", app_code(secret))
    page.click("#two-factor-enrol input[type=submit]")
    codes = page.locator("#backup-codes li")
    expect(codes).to_have_count(10)
    backup = codes.all_inner_texts()
    page.click("#two-factor-continue")
    expect(page).to_have_url(re.compile(r"/admin/$"))

    sign_out(page)
    login(page, admin_user.username, ADMIN_PASSWORD)
    expect(page).to_have_url(re.compile(r"/admin/two-factor/verify/\?next="))
    page.goto("/admin/accounts/user/")  # nothing else before the code
    expect(page).to_have_url(re.compile(r"/admin/two-factor/verify/"))
    page.fill("#id_code", app_code(secret, steps_ahead=1))
    page.click("#two-factor-verify input[type=submit]")
    expect(page).to_have_url(re.compile(r"/admin/accounts/user/$"))
    expect(page.locator("#user-tools")).to_contain_text("Ada")

    sign_out(page)  # a backup code instead of the phone, once
    login(page, admin_user.username, ADMIN_PASSWORD)
    page.fill("#id_code", backup[0])
    page.click("#two-factor-verify input[type=submit]")
    expect(page).to_have_url(re.compile(r"/admin/$"))


def test_ten_wrong_passwords_lock_the_account_for_the_configured_time(page, admin_user, settings):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=3)
    for _ in range(9):
        login(page, admin_user.username, "not the password")
        expect(page.locator(".errornote")).to_contain_text("correct username and password")
    login(page, admin_user.username, "not the password")
    expect(page.locator("#lockout-message")).to_contain_text("Too many failed sign-ins")
    login(page, admin_user.username, ADMIN_PASSWORD)  # the right password, during the lockout
    expect(page.locator("#lockout-message")).to_be_visible()
    assert "sessionid" not in {cookie["name"] for cookie in page.context.cookies()}
    page.wait_for_timeout(3200)  # the configured lockout (3 s here) runs out
    login(page, admin_user.username, ADMIN_PASSWORD)
    expect(page).to_have_url(re.compile(r"/admin/$"))


def test_required_for_admins_sends_an_admin_to_enrolment_first(page, admin_user):
    settings_row = SiteSettings.load()
    settings_row.two_factor = TwoFactorPolicy.ADMINS
    settings_row.save()
    login(page, admin_user.username, ADMIN_PASSWORD)
    expect(page).to_have_url(re.compile(r"/admin/two-factor/\?next="))
    expect(page.locator(".errornote")).to_contain_text("requires two-factor sign-in")
    secret = page.locator("#two-factor-secret").inner_text().strip()
    page.fill("#id_code", app_code(secret))
    page.click("#two-factor-enrol input[type=submit]")
    expect(page.locator("#backup-codes li")).to_have_count(10)
    page.click("#two-factor-continue")
    expect(page).to_have_url(re.compile(r"/admin/$"))
