"""The employees' portal in a real browser (issue 32): an ordinary user signs in at /account/ and uses every page,
at desktop and at phone width (390 px, no sideways scrolling), and axe-core finds no serious or critical
accessibility violation on any of them (tests/browser/axe.py)."""

from __future__ import annotations

import re

import pytest

from tests.browser.axe import assert_accessible
from tests.browser.helpers import ADMIN_PASSWORD, DESKTOP, PHONE, expect, fits_the_width, screenshot
from tests.factories import AssetFactory, UserFactory

DESKTOP_PICTURES = {"my-items", "waiting"}
WIDTHS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def portal_login(page, username: str, password: str = ADMIN_PASSWORD, next_url: str = "/account/") -> None:
    """Fill in and submit the portal's own sign-in form (not the admin's)."""
    page.goto(f"/account/login/?next={next_url}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()


def check_page(page, name: str, viewport: dict) -> None:
    """What every portal page must be: no sideways scrolling, no serious accessibility problem. Photographed for
    docs/portal.md (``make screenshots``) at phone width, and a few at desktop width too. The caller first waits for
    the page it expects (a click's navigation may not have started yet)."""
    page.wait_for_load_state()
    assert fits_the_width(page), f"{page.url} scrolls sideways at {viewport['width']} px"
    assert_accessible(page)
    if viewport is PHONE:
        screenshot(page, f"portal-{name}-phone")
    elif name in DESKTOP_PICTURES:
        screenshot(page, f"portal-{name}-desktop")


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
    expect(page.get_by_role("heading", level=1)).to_have_text("Profile")
    check_page(page, "profile", viewport)
    page.get_by_label("Phone").fill("+33 1 23 45 67 89")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("main dl")).to_contain_text("+33 1 23 45 67 89")
    employee.refresh_from_db()
    assert employee.phone == "+33 1 23 45 67 89"
    page.get_by_role("link", name="API tokens").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("API tokens")
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


def api_names(admin, person) -> set[str]:
    """What the API lists as held by ``person``: asset tags and the names of the other kinds."""
    from rest_framework.test import APIClient

    from accounts.services import personal_token_issue

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {personal_token_issue(user=admin, name='t')[1]}")
    names = {row["asset_tag"] for row in client.get(f"/api/v1/users/{person.pk}/assets").json()["rows"]}
    for kind in ("accessories", "consumables", "licenses"):
        names |= {row["name"] for row in client.get(f"/api/v1/users/{person.pk}/{kind}").json()["rows"]}
    return names


@WIDTHS
def test_what_i_hold_is_what_the_api_lists_and_a_problem_report_reaches_the_history(page, employee, viewport,
                                                                                    admin_user):
    from activity.models import ActionLog
    from tests.portal.scene import one_of_each

    mine = one_of_each(employee, prefix="EMMA")
    one_of_each(UserFactory(username="olga"), prefix="OLGA")
    expected = api_names(admin_user, employee)
    assert expected == {"EMMA-LAP", "EMMA dock", "EMMA toner", "EMMA office"}
    page.set_viewport_size(viewport)
    portal_login(page, "emma")
    main = page.locator("main")
    for name in (*expected, "EMMA ram"):  # and the component inside the laptop
        expect(main).to_contain_text(name)
    expect(main).not_to_contain_text("OLGA")
    expect(main).not_to_contain_text("EMMA-KEY-123")  # an employee may not see license keys
    check_page(page, "my-items", viewport)

    page.get_by_role("link", name="Report a problem with EMMA-LAP").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Report a problem")
    check_page(page, "problem", viewport)
    page.get_by_role("button", name="Send to IT").click()  # empty: refused, nothing written
    expect(page.locator("#note-errors")).to_contain_text("Describe the problem")
    page.get_by_label("What is wrong?").fill("The hinge cracked; the screen flickers when opened.")
    page.get_by_role("button", name="Send to IT").click()
    expect(page).to_have_url(re.compile(r"/account/$"))
    expect(page.get_by_role("status")).to_contain_text("IT")
    card = page.get_by_role("region", name="Assets").locator("li.card", has_text="EMMA-LAP")
    card.locator("summary", has_text="History").click()
    expect(card.locator("table.history")).to_contain_text("The hinge cracked")
    assert ActionLog.objects.filter(action_type="problem reported", item_type="asset", item_id=mine["asset"].pk,
                                    created_by=employee, note__startswith="The hinge cracked").count() == 1
    check_page(page, "my-items-history", viewport)


def handed_out_for_acceptance(person, tag: str):
    from inventory.models import CheckoutAcceptance
    from tests.factories import AssetModelFactory, CategoryFactory
    from tests.portal.scene import hand_out

    category = CategoryFactory(name=f"Laptops {tag}", require_acceptance=True,
                               eula_text="Keep it locked when you are away; return it on your last day.")
    asset = AssetFactory(asset_tag=tag, name=f"Laptop {tag}", model=AssetModelFactory(category=category))
    hand_out("asset", asset, person)
    return asset, CheckoutAcceptance.objects.get(item_type="asset", item_id=asset.pk)


@WIDTHS
def test_accept_one_decline_another_and_download_the_signed_agreement(page, employee, viewport):
    from activity.models import ActionLog

    kept, _ = handed_out_for_acceptance(employee, "ACC-1")
    refused, _ = handed_out_for_acceptance(employee, "ACC-2")
    page.set_viewport_size(viewport)
    portal_login(page, "emma")
    expect(page.locator("li.card", has_text="ACC-1")).to_contain_text("Awaiting your acceptance")
    page.get_by_role("link", name="Waiting for me").click()
    expect(page.locator("main")).to_contain_text("Keep it locked when you are away")
    check_page(page, "waiting", viewport)
    first = page.locator("li.card", has_text="ACC-1")
    first.get_by_label("Note (optional)").fill("Received with its charger.")
    first.get_by_role("button", name="Accept").click()
    expect(page.get_by_role("status")).to_contain_text("accepted")
    page.locator("li.card", has_text="ACC-2").get_by_role("button", name="Decline").click()
    expect(page.get_by_role("status")).to_contain_text("declined")
    expect(page.locator("main")).to_contain_text("Nothing is waiting for your answer")
    assert ActionLog.objects.filter(action_type="accepted", item_id=kept.pk, note="Received with its charger.").exists()
    assert ActionLog.objects.filter(action_type="declined", item_id=refused.pk).exists()
    assert ActionLog.objects.filter(action_type="checkin from", item_id=refused.pk).exists()
    refused.refresh_from_db()
    kept.refresh_from_db()
    assert refused.assigned_user_id is None and kept.assigned_user_id == employee.pk

    page.get_by_role("link", name="Agreements").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Agreements")
    check_page(page, "agreements", viewport)
    with page.expect_download() as download_info:
        page.get_by_role("link", name=re.compile("Download PDF")).click()
    download = download_info.value
    assert download.suggested_filename.endswith(".pdf")
    with open(download.path(), "rb") as pdf:
        assert pdf.read(5) == b"%PDF-"


def test_another_persons_items_are_never_shown_whatever_the_url(page, employee):
    from tests.portal.scene import one_of_each

    olga = UserFactory(username="olga")
    theirs = one_of_each(olga, prefix="OLGA")
    _, pending = handed_out_for_acceptance(olga, "OLGA-ACC")
    _, answered = handed_out_for_acceptance(olga, "OLGA-SIGNED")
    from inventory.services.acceptance import acceptance_accept

    acceptance_accept(answered)
    portal_login(page, "emma")
    addresses = [f"/account/agreements/{answered.pk}/file",
                 *(f"/account/items/{kind}/{item.pk}/problem/" for kind, item in theirs.items())]
    for address in addresses:
        response = page.goto(address)
        assert response.status == 404, address
        expect(page.locator("body")).not_to_contain_text("OLGA")
    answer_page = page.request.get(f"/account/waiting/{pending.pk}/")  # a form's target: POST only
    assert answer_page.status in (404, 405) and "OLGA" not in answer_page.text()
    response = page.request.post(f"/account/waiting/{pending.pk}/", form={"answer": "accept"})
    assert response.status in (403, 404)  # no CSRF token, and not hers either way
    pending.refresh_from_db()
    assert pending.state == "pending"
    for address in ("/account/", "/account/waiting/", "/account/agreements/"):
        page.goto(address)
        expect(page.locator("main")).not_to_contain_text("OLGA")
