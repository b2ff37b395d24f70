"""The permission table in a real browser (issue 28 item 4): one Grant box grants exactly that key, which the API then
honours, and the table works at phone width. With ``SCREENSHOTS_DIR`` set it saves the pictures of
docs/back-office.md."""

from __future__ import annotations

from django.urls import reverse

from accounts.services import personal_token_issue
from tests.browser.helpers import DESKTOP, PHONE, expect, fits_the_width, screenshot
from tests.factories import PermissionGroupFactory, UserFactory


def test_a_permission_box_grants_exactly_that_key(admin_page, admin_user):
    person = UserFactory(username="jdoe", first_name="Jane", last_name="Doe")
    person.groups.add(PermissionGroupFactory(name="Helpdesk", permissions={"assets.checkout": 1, "assets.checkin": 1}))
    _record, token = personal_token_issue(user=person, name="browser")
    api = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    assert admin_page.request.get("/api/v1/hardware", headers=api).status == 403

    admin_page.set_viewport_size(DESKTOP)
    admin_page.goto(reverse("admin:accounts_user_change", args=[person.pk]))
    row = admin_page.locator('tr[data-key="assets.checkout"]')
    expect(row).to_contain_text("Granted by group Helpdesk")
    screenshot(admin_page, "permissions-desktop")
    admin_page.check('input[name="permissions[assets.view]"][value="1"]')
    admin_page.click("input[type=submit][name=_continue]")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("was changed successfully")
    person.refresh_from_db()
    assert person.permissions == {"assets.view": 1}
    expect(admin_page.locator('input[name="permissions[assets.view]"][value="1"]')).to_be_checked()

    assert admin_page.request.get("/api/v1/hardware", headers=api).status == 200
    _record, admin_token = personal_token_issue(user=admin_user, name="browser")
    answer = admin_page.request.get(f"/api/v1/users/{person.pk}",
                                    headers={"Authorization": f"Bearer {admin_token}", "Accept": "application/json"})
    assert answer.status == 200 and answer.json()["permissions"] == {"assets.view": 1}


def test_the_permission_table_at_phone_width(admin_page):
    person = UserFactory(username="jdoe", first_name="Jane", last_name="Doe", permissions={"reports.view": 1})
    person.groups.add(PermissionGroupFactory(name="Helpdesk", permissions={"assets.view": 1}))
    admin_page.set_viewport_size(PHONE)
    admin_page.goto(reverse("admin:accounts_user_change", args=[person.pk]))
    deny = admin_page.locator('input[name="permissions[assets.view]"][value="-1"]')
    expect(deny).to_be_visible()
    assert fits_the_width(admin_page)
    screenshot(admin_page, "permissions-phone")
    deny.check()
    admin_page.click("input[type=submit][name=_save]")
    expect(admin_page.locator("ul.messagelist")).to_contain_text("was changed successfully")
    person.refresh_from_db()
    assert person.permissions == {"reports.view": 1, "assets.view": -1}
    group = PermissionGroupFactory(name="Auditors")
    admin_page.goto(reverse("admin:accounts_permissiongroup_change", args=[group.pk]))
    expect(admin_page.locator('input[name="permissions[assets.audit]"]')).to_be_visible()
    assert fits_the_width(admin_page)
    screenshot(admin_page, "permissions-group-phone")
