"""Single sign-on with OpenID Connect (issue 30), over HTTP against a real provider (tests/oidc_provider, its own
process): who is matched, created, refused; forged or replayed answers; the session afterwards; sign-out; the service
unchanged while ``OIDC_ISSUER`` is empty."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest
import requests
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone

from accounts.models import User
from activity.models import ActionLog
from tests.factories import UserFactory
from tests.oidc_provider import fixtures as provider_fixtures
from tests.oidc_provider.fixtures import PASSWORD, free_port

# The provider's fixtures, for this module's tests.
oidc_provider = provider_fixtures.oidc_provider
sso_on = provider_fixtures.sso_on

pytestmark = pytest.mark.django_db(transaction=True)


class Flow:
    """One browser's worth of cookies, walking the authorization code flow by hand."""

    def __init__(self, live_server) -> None:
        self.base = live_server.url
        self.http = requests.Session()

    def to_callback(self, username: str, next_url: str = "/admin/") -> str:
        """Click the button, sign in at the provider; the URL of our callback the provider sends the browser to."""
        answer = self.http.get(f"{self.base}/oidc/authenticate/", params={"next": next_url}, timeout=10)
        assert answer.status_code == 200 and "provider-login" in answer.text, answer.url
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', answer.text).group(1)
        after = html.unescape(re.search(r'name="next" value="([^"]*)"', answer.text).group(1))
        answer = self.http.post(answer.url, data={"csrfmiddlewaretoken": token, "username": username,
                                                  "password": PASSWORD, "next": after},
                                allow_redirects=False, timeout=10)
        for _ in range(5):
            assert answer.status_code == 302, answer.text[:500]
            location = requests.compat.urljoin(answer.url, answer.headers["Location"])
            if location.startswith(f"{self.base}/oidc/callback/"):
                return location
            answer = self.http.get(location, allow_redirects=False, timeout=10)
        raise AssertionError("the provider never sent the browser back")

    def callback(self, url: str) -> str:
        """Follow the provider's redirect to our callback; where our answer sends the browser (a path)."""
        answer = self.http.get(url, allow_redirects=False, timeout=10)
        assert answer.status_code == 302, answer.text[:500]
        return urlsplit(answer.headers["Location"]).path

    def sign_in(self, username: str) -> str:
        return self.callback(self.to_callback(username))

    def messages(self) -> list[str]:
        page = self.http.get(f"{self.base}/admin/login/", timeout=10).text
        return [html.unescape(text).strip() for text in re.findall(r'<li class="error">(.*?)</li>', page, re.S)]

    def admin_status(self) -> tuple[int, str]:
        answer = self.http.get(f"{self.base}/admin/", allow_redirects=False, timeout=10)
        return answer.status_code, answer.text


def test_known_user_signs_in_by_verified_email(live_server, sso_on):
    user = UserFactory(username="asmith", email="ALICE@example.com", first_name="Alicia", last_name="Smith",
                       permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/"
    status, page = flow.admin_status()
    assert status == 200 and "Alice" in page
    user.refresh_from_db()
    assert (user.username, user.email, user.first_name) == ("asmith", "ALICE@example.com", "Alice")  # names only
    assert user.permissions == {"admin": 1}


def test_user_matched_by_username_when_no_email(live_server, sso_on):
    UserFactory(username="Dan", email="dan@corp.example", permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.sign_in("byname") == "/admin/"
    assert flow.admin_status()[0] == 200


def test_next_page_is_kept(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.callback(flow.to_callback("alice", next_url="/admin/accounts/department/")) == \
        "/admin/accounts/department/"


def test_unknown_user_is_refused_when_creation_is_off(live_server, sso_on):
    flow = Flow(live_server)
    assert flow.sign_in("newbie") == "/admin/login/"
    assert any("No user matches your single sign-on account (newbie@example.com)" in m for m in flow.messages())
    assert not User.objects.filter(username__iexact="newbie").exists()
    assert flow.admin_status()[0] == 302


def test_unknown_user_is_created_without_rights_when_creation_is_on(live_server, sso_on, settings):
    settings.OIDC_CREATE_USERS = True
    flow = Flow(live_server)
    assert flow.sign_in("newbie") == "/admin/login/"
    user = User.objects.get(username="newbie")
    assert (user.email, user.first_name, user.last_name) == ("newbie@example.com", "Nora", "Newbie")
    assert user.permissions == {} and not user.groups.exists() and user.company_id is None
    assert not user.has_usable_password() and not user.is_staff
    assert ActionLog.objects.filter(action_type="create", item_type="user", item_id=user.pk).exists()
    assert any("An account was created for you (newbie), but it has no rights" in m for m in flow.messages())
    assert flow.admin_status()[0] == 302  # no session
    # Once an administrator grants the right, the same person signs in (matched, not created again).
    User.objects.filter(pk=user.pk).update(permissions={"admin": 1})
    second = Flow(live_server)
    assert second.sign_in("newbie") == "/admin/"
    assert User.objects.filter(username__iexact="newbie").count() == 1


def test_matched_user_without_rights_gets_a_message_not_a_session(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com")
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/login/"
    assert any("this account has no rights to the admin yet" in m for m in flow.messages())
    assert flow.admin_status()[0] == 302


def test_deactivated_user_is_refused(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1}, is_active=False)
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/login/"
    assert any("deactivated" in m for m in flow.messages())
    assert flow.admin_status()[0] == 302


def test_deleted_user_is_refused_and_not_recreated(live_server, sso_on, settings):
    settings.OIDC_CREATE_USERS = True
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1}, deleted_at=timezone.now())
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/login/"
    assert any("was deleted" in m for m in flow.messages())
    assert User.objects.filter(email__iexact="alice@example.com").count() == 1


def test_user_deactivated_after_signing_in_is_out_on_the_next_request(live_server, sso_on):
    user = UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/"
    assert flow.admin_status()[0] == 200
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert flow.admin_status()[0] == 302


def test_super_user_is_matched_but_never_changed(live_server, sso_on):
    root = UserFactory(username="root", email="root@example.com", first_name="Ada", last_name="Admin",
                       superuser=True)
    before = {f: getattr(root, f) for f in ("username", "email", "first_name", "last_name", "permissions")}
    flow = Flow(live_server)
    assert flow.sign_in("root") == "/admin/"
    assert flow.admin_status()[0] == 200
    root.refresh_from_db()
    assert {f: getattr(root, f) for f in before} == before


def test_unverified_email_never_matches(live_server, sso_on):
    UserFactory(username="carol", email="carol@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.sign_in("unverified") == "/admin/login/"
    assert any("No user matches" in m for m in flow.messages())


def test_two_users_with_the_email_are_refused(live_server, sso_on):
    UserFactory(username="a1", email="alice@example.com", permissions={"admin": 1})
    UserFactory(username="a2", email="Alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/login/"
    assert any("More than one user" in m for m in flow.messages())


def _with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {key: values[0] for key, values in parse_qs(parts.query).items()} | changes
    return urlunsplit(parts._replace(query="&".join(f"{k}={v}" for k, v in query.items())))


def test_foreign_state_is_refused(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    url = flow.to_callback("alice")
    assert flow.callback(_with_query(url, state="forged-state")) == "/admin/login/"
    assert any("could not be verified" in m for m in flow.messages())
    assert flow.admin_status()[0] == 302
    # Another browser (no state of its own) handed this browser's answer: refused too.
    other = Flow(live_server)
    assert other.callback(url) == "/admin/login/"
    assert other.admin_status()[0] == 302


def test_replayed_answer_is_refused(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    url = flow.to_callback("alice")
    assert flow.callback(url) == "/admin/"
    # The state was used up: the same answer again is refused (and ends the session it arrived with).
    assert flow.callback(url) == "/admin/login/"
    assert any("could not be verified" in m for m in flow.messages())
    assert flow.admin_status()[0] == 302


def test_nonce_mismatch_is_refused(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    url = flow.to_callback("alice")
    state = parse_qs(urlsplit(url).query)["state"][0]
    session = SessionStore(flow.http.cookies["sessionid"])
    states = session["oidc_states"]
    states[state]["nonce"] = "not-the-nonce-sent"
    session["oidc_states"] = states
    session.save()
    assert flow.callback(url) == "/admin/login/"
    assert any("could not be verified" in m for m in flow.messages())
    assert flow.admin_status()[0] == 302


def test_provider_error_answer_is_shown(live_server, sso_on):
    flow = Flow(live_server)
    flow.http.get(f"{flow.base}/oidc/authenticate/", timeout=10)
    assert flow.callback(f"{flow.base}/oidc/callback/?error=access_denied&state=x") == "/admin/login/"
    assert any("did not sign you in (access_denied)" in m for m in flow.messages())


def test_sign_out_ends_the_session_and_the_providers(live_server, sso_on):
    UserFactory(username="asmith", email="alice@example.com", permissions={"admin": 1})
    flow = Flow(live_server)
    assert flow.sign_in("alice") == "/admin/"
    flow.admin_status()  # sets the CSRF cookie
    answer = flow.http.post(f"{flow.base}/oidc/logout/", headers={"X-CSRFToken": flow.http.cookies["csrftoken"]},
                            allow_redirects=False, timeout=10)
    assert answer.status_code == 302
    location = answer.headers["Location"]
    assert location.startswith(f"{sso_on.issuer}/logout/")
    query = parse_qs(urlsplit(location).query)
    assert query["client_id"] == [sso_on.client_id]
    assert query["post_logout_redirect_uri"] == [f"{live_server.url}/admin/login/"]
    assert flow.admin_status()[0] == 302
    # The provider takes it from there (django-oauth-toolkit asks to confirm when no ID token hint is sent).
    assert flow.http.get(location, allow_redirects=False, timeout=10).status_code in {200, 302}


def test_provider_unreachable_is_a_message_not_an_error(client, settings):
    settings.OIDC_ISSUER = f"http://127.0.0.1:{free_port()}/o"
    settings.OIDC_CLIENT_ID = settings.OIDC_RP_CLIENT_ID = "x"
    from accounts.sso.discovery import forget_provider_config

    forget_provider_config()
    answer = client.get("/oidc/authenticate/", follow=True)
    assert answer.redirect_chain[-1][0] == "/admin/login/"
    assert "cannot be reached right now" in answer.content.decode()
    assert 'id="sso-button"' in answer.content.decode()  # the button still shows: a later try may work


def test_without_issuer_nothing_changes(client, settings):
    settings.OIDC_ISSUER = ""
    page = client.get("/admin/login/").content.decode()
    assert "sso" not in page and 'id="login-form"' in page
    for path in ("/oidc/authenticate/", "/oidc/callback/?code=a&state=b", "/oidc/logout/"):
        assert client.get(path).status_code == 404
    assert "accounts.sso.backend.SSOBackend" not in settings.AUTHENTICATION_BACKENDS


@pytest.mark.parametrize(("issuer", "label"), [
    ("https://login.microsoftonline.com/0b1c2d3e-0000-4000-8000-000000000000/v2.0", "Sign in with Microsoft"),
    ("https://accounts.google.com", "Sign in with Google"),
    ("https://example.okta.com/oauth2/default", "Sign in with Okta"),
    ("https://sso.example.com/realms/staff", "Sign in with Keycloak"),
    ("https://id.example.com", "Sign in with single sign-on"),
])
def test_button_label_follows_the_issuer(client, settings, issuer, label):
    settings.OIDC_ISSUER = issuer
    settings.OIDC_BUTTON_LABEL = ""
    assert f">{label}</a>" in client.get("/admin/login/").content.decode()
    settings.OIDC_BUTTON_LABEL = "Sign in with Contoso"
    assert ">Sign in with Contoso</a>" in client.get("/admin/login/").content.decode()


@pytest.mark.parametrize(("env", "error"), [
    ({"OIDC_ISSUER": "https://id.example.com"}, "needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET"),
    ({"OIDC_ISSUER": "id.example.com", "OIDC_CLIENT_ID": "a", "OIDC_CLIENT_SECRET": "b"}, "must be an https://"),
    ({"OIDC_ISSUER": "https://id.example.com", "OIDC_CLIENT_ID": "a", "OIDC_CLIENT_SECRET": "b",
      "OIDC_SCOPES": "email profile"}, "must contain openid"),
    ({"OIDC_ISSUER": "https://id.example.com", "OIDC_CLIENT_ID": "a", "OIDC_CLIENT_SECRET": "b",
      "OIDC_CA_FILE": "/nonexistent/ca.pem"}, "is not a file"),
])
def test_incomplete_configuration_fails_at_start(env, error):
    import os
    import subprocess
    import sys

    answer = subprocess.run([sys.executable, "-c", "import assetsvc.settings"], capture_output=True, text=True,
                            env={**os.environ, "SECRET_KEY": "x", **env}, timeout=60, check=False)
    assert answer.returncode != 0 and error in answer.stderr


def test_complete_configuration_adds_the_backend_and_fetches_nothing():
    """Start-up with a provider nobody serves: settings load (discovery waits for the first sign-in)."""
    import os
    import subprocess
    import sys

    code = "import assetsvc.settings as s; print(s.AUTHENTICATION_BACKENDS[-1], s.OIDC_VERIFY_SSL)"
    answer = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False,
                            env={**os.environ, "SECRET_KEY": "x", "OIDC_ISSUER": f"http://127.0.0.1:{free_port()}/o",
                                 "OIDC_CLIENT_ID": "a", "OIDC_CLIENT_SECRET": "b"})
    assert answer.stdout.split() == ["accounts.sso.backend.SSOBackend", "True"], answer.stderr
