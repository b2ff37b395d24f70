"""The portal's sign-in (issue 32), through its real form: the throttle's lockout page in the portal's look, the
password reset link, two-factor sign-in at /account/ (the code page, enrolment when the site requires it), a staff
member signed in at /account/ still stopped at the admin's door, a deactivated user's session, the navigation."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from accounts.models import SealedTOTPDevice
from assetsvc.models import TwoFactorPolicy
from notifications.models import OutboundMail
from tests.factories import UserFactory
from tests.twofactor import codes_on, totp_code

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"


def sign_in(username: str, password: str = PASSWORD, address: str = "192.0.2.20") -> tuple[Client, object]:
    client = Client(REMOTE_ADDR=address)
    answer = client.post("/account/login/?next=/account/", {"username": username, "password": password,
                                                            "next": "/account/"})
    return client, answer


def enrol(client: Client, user) -> list[str]:
    page = client.get("/account/two-factor/")
    assert page.status_code == 200
    device = SealedTOTPDevice.objects.get(user=user, confirmed=False)
    answer = client.post("/account/two-factor/", {"code": totp_code(device), "next": "/account/"})
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    return codes_on(answer.content.decode())


def test_a_locked_out_portal_sign_in_gets_the_portal_lockout_page(settings):
    settings.AXES_FAILURE_LIMIT = 3
    UserFactory(username="emma")
    for _ in range(2):
        assert sign_in("emma", "wrong")[1].status_code == 200
    assert sign_in("emma", "wrong")[1].status_code == 429
    client, right = sign_in("emma")
    page = right.content.decode()
    assert right.status_code == 429 and 'id="lockout-message"' in page and "portal/portal.css" in page
    assert 'href="/account/login/"' in page and "admin/css" not in page
    assert client.get("/account/").status_code == 302  # no session
    assert sign_in("emma", address="198.51.100.9")[1]["Location"] == "/account/"  # another address: its own count


def test_forgot_password_is_linked_while_mail_works_and_serves_a_non_staff_user(settings, client):
    settings.EMAIL_HOST = ""
    assert 'id="forgot-password"' not in Client().get("/account/login/").content.decode()
    settings.EMAIL_HOST = "localhost"
    page = Client().get("/account/login/").content.decode()
    assert '<a href="/admin/password_reset/" id="forgot-password">Forgot your password?</a>' in page
    emma = UserFactory(username="emma", email="emma@example.com")
    answer = Client().post("/admin/password_reset/", {"email": "emma@example.com"})
    assert answer.status_code == 302 and OutboundMail.objects.get(event="password_reset").user_id == emma.pk
    done = client.get("/admin/reset/done/")
    assert done.status_code == 200 and 'href="/account/login/"' in done.content.decode()  # "Log in": the portal

def test_an_employee_with_an_authenticator_gives_the_code_before_any_portal_page():
    emma = UserFactory(username="emma")
    client, _ = sign_in("emma")
    codes = enrol(client, emma)
    assert len(codes) == 10
    assert client.get("/account/").status_code == 200  # this session gave the first code
    client, answer = sign_in("emma")
    assert answer["Location"] == "/account/"
    for path in ("/account/", "/account/profile/"):
        redirect = client.get(path)
        assert redirect.status_code == 302, path
        assert redirect["Location"].startswith("/account/two-factor/verify/?next="), path
    page = client.get(redirect["Location"])
    assert page.status_code == 200 and "portal/portal.css" in page.content.decode()
    assert 'id="two-factor-verify"' in page.content.decode()
    wrong = client.post("/account/two-factor/verify/", {"code": "123456", "next": "/account/profile/"})
    assert wrong.status_code == 200 and "not valid" in wrong.content.decode()
    time.sleep(1.1)  # django-otp throttles a device for a second after a wrong code
    device = SealedTOTPDevice.objects.get(user=emma, confirmed=True)
    right = client.post("/account/two-factor/verify/", {"code": totp_code(device, 1), "next": "/account/profile/"})
    assert right.status_code == 302 and right["Location"] == "/account/profile/"
    assert client.get("/account/profile/").status_code == 200
    assert client.get("/account/two-factor/").content.decode().count('id="backup-codes-left">10<') == 1


def test_required_for_everyone_sends_an_employee_to_enrolment_first(site_settings):
    site_settings.two_factor = TwoFactorPolicy.EVERYONE
    site_settings.save()
    emma = UserFactory(username="emma")
    client, _ = sign_in("emma")
    redirect = client.get("/account/")
    assert redirect.status_code == 302 and redirect["Location"].startswith("/account/two-factor/?next=")
    page = client.get("/account/two-factor/").content.decode()
    assert "requires two-factor sign-in" in page and 'id="two-factor-qr"' in page and "<svg" in page
    assert 'id="two-factor-secret"' in page
    enrol(client, emma)
    assert client.get("/account/").status_code == 200
    client.post("/account/two-factor/", {"action": "disable"})
    assert SealedTOTPDevice.objects.filter(user=emma, confirmed=True).exists()  # required: stays on


def test_optional_two_factor_leaves_an_employee_free_and_admins_only_does_not_cover_them(site_settings):
    UserFactory(username="emma")
    assert sign_in("emma")[0].get("/account/").status_code == 200
    site_settings.two_factor = TwoFactorPolicy.ADMINS
    site_settings.save()
    assert sign_in("emma")[0].get("/account/").status_code == 200


def test_a_staff_member_signed_in_at_the_portal_without_a_code_is_stopped_at_the_admin():
    ada = UserFactory(username="ada", superuser=True)
    client, _ = sign_in("ada")
    enrol(client, ada)
    client, _ = sign_in("ada")  # a new session: no code given yet
    answer = client.get("/admin/")
    assert answer.status_code == 302 and answer["Location"].startswith("/admin/two-factor/verify/?next=")
    assert client.get("/admin/accounts/user/")["Location"].startswith("/admin/two-factor/verify/")
    assert client.get("/account/")["Location"].startswith("/account/two-factor/verify/")


def test_the_two_factor_pages_need_a_signed_in_person():
    for path in ("/account/two-factor/", "/account/two-factor/verify/"):
        answer = Client().get(path)
        assert answer.status_code == 302 and answer["Location"].startswith("/account/login/?next="), path


def test_a_deactivated_users_session_stops_on_the_next_request():
    emma = UserFactory(username="emma")
    client, _ = sign_in("emma")
    assert client.get("/account/profile/").status_code == 200
    emma.is_active = False
    emma.save()
    answer = client.get("/account/profile/")
    assert answer.status_code == 302 and answer["Location"].startswith("/account/login/")


def test_the_navigation_shows_api_tokens_only_to_those_allowed_the_api():
    UserFactory(username="emma")
    UserFactory(username="dev", permissions={"self.api": 1})
    emma_page = sign_in("emma")[0].get("/account/profile/").content.decode()
    dev_page = sign_in("dev")[0].get("/account/profile/").content.decode()
    assert 'href="/account/profile/" aria-current="page">Profile<' in emma_page
    assert ">API tokens<" not in emma_page and 'href="/account/tokens/"' not in emma_page
    assert 'href="/account/tokens/">API tokens<' in dev_page
