"""Single sign-on into the portal (issue 32) against the real test provider (tests/oidc_provider): a person without
any admin right gets a session when the sign-in started at /account/, the same person coming back to the admin gets
none (as before), failures land on the portal's sign-in page with their message, signing out goes through the
provider."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.accounts.test_sso import Flow
from tests.factories import UserFactory
from tests.oidc_provider import fixtures as provider_fixtures

oidc_provider = provider_fixtures.oidc_provider
sso_on = provider_fixtures.sso_on

pytestmark = pytest.mark.django_db(transaction=True)


def portal_status(flow: Flow) -> int:
    return flow.http.get(f"{flow.base}/account/profile/", allow_redirects=False, timeout=10).status_code


def portal_messages(flow: Flow) -> list[str]:
    page = flow.http.get(f"{flow.base}/account/login/", timeout=10).text
    return [html.unescape(text).strip() for text in re.findall(r'<li class="error">(.*?)</li>', page, re.S)]


def test_the_portal_sign_in_page_offers_the_button_back_to_the_portal(live_server, sso_on):
    page = Flow(live_server).http.get(f"{live_server.url}/account/login/?next=/account/profile/", timeout=10).text
    assert 'id="sso-button" href="/oidc/authenticate/?next=%2Faccount%2Fprofile%2F"' in page
    assert "Sign in with single sign-on" in page


def test_an_employee_without_admin_rights_signs_in_to_the_portal_but_not_the_admin(live_server, sso_on):
    emma = UserFactory(username="emma", email="alice@example.com")  # no rights at all
    portal = Flow(live_server)
    assert portal.callback(portal.to_callback("alice", next_url="/account/")) == "/account/"
    assert portal_status(portal) == 200
    assert portal.admin_status()[0] == 302  # the admin stays for staff
    out = portal.http.post(f"{portal.base}/account/logout/", headers={"X-CSRFToken": portal.http.cookies["csrftoken"]},
                           allow_redirects=False, timeout=10)
    location = out.headers["Location"]
    assert out.status_code == 302 and location.startswith(f"{sso_on.issuer}/logout/")
    assert parse_qs(urlsplit(location).query)["post_logout_redirect_uri"] == [f"{live_server.url}/account/login/"]
    assert portal_status(portal) == 302

    admin = Flow(live_server)
    assert admin.sign_in("alice") == "/admin/login/"  # as before: no admin right, no session
    assert any("has no rights to the admin yet" in text for text in admin.messages())
    assert portal_status(admin) == 302 and admin.admin_status()[0] == 302
    emma.refresh_from_db()
    assert emma.permissions == {} and not emma.is_staff


def test_a_refused_portal_sign_in_lands_on_the_portal_sign_in_page(live_server, sso_on):
    flow = Flow(live_server)
    assert flow.callback(flow.to_callback("newbie", next_url="/account/")) == "/account/login/"
    assert any("No user matches your single sign-on account (newbie@example.com)" in text
               for text in portal_messages(flow))
    assert portal_status(flow) == 302


def test_a_deactivated_user_gets_no_portal_session(live_server, sso_on):
    UserFactory(username="emma", email="alice@example.com", is_active=False)
    flow = Flow(live_server)
    assert flow.callback(flow.to_callback("alice", next_url="/account/")) == "/account/login/"
    assert portal_status(flow) == 302
