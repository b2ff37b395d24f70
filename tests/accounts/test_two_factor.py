"""Two-factor sign-in to the admin (issue 30): enrolment with a QR code and a first code, backup codes shown once
and used once, the code page after the password, the site setting that makes it required, switching it off.
Driven through the admin's real login form with Django's test client."""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django_otp.plugins.otp_static.models import StaticToken

from accounts.models import SealedTOTPDevice
from assetsvc.models import TwoFactorPolicy
from tests.browser.helpers import ADMIN_PASSWORD
from tests.factories import UserFactory
from tests.twofactor import codes_on, totp_code

pytestmark = pytest.mark.django_db


def sign_in(user, password=ADMIN_PASSWORD, **extra) -> tuple[Client, object]:
    client = Client(**extra)
    response = client.post("/admin/login/?next=/admin/", {"username": user.username, "password": password,
                                                          "next": "/admin/"})
    return client, response


def enrol(client: Client, user) -> list[str]:
    page = client.get("/admin/two-factor/")
    assert page.status_code == 200
    device = SealedTOTPDevice.objects.get(user=user, confirmed=False)
    response = client.post("/admin/two-factor/", {"code": totp_code(device), "next": "/admin/"})
    assert response.status_code == 200, response.content
    return codes_on(response.content.decode())


@pytest.fixture
def admin(db):
    return UserFactory(username="ada", first_name="Ada", superuser=True)


def policy(site_settings, value: str) -> None:
    site_settings.two_factor = value
    site_settings.save()


def test_without_enrolment_and_optional_sign_in_is_as_before(admin):
    client, response = sign_in(admin)
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/accounts/user/").status_code == 200


def test_enrolment_shows_a_qr_code_and_the_key_then_ten_backup_codes_once(admin):
    client, _ = sign_in(admin)
    page = client.get("/admin/two-factor/").content.decode()
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=False)
    assert "<svg" in page and 'id="two-factor-qr"' in page
    secret = page.split('id="two-factor-secret">', 1)[1].split("<", 1)[0].replace(" ", "")
    assert device.config_url.split("secret=", 1)[1].startswith(secret)
    assert secret[:4] + " " + secret[4:8] in client.get("/admin/two-factor/").content.decode()  # same key on reload
    wrong = client.post("/admin/two-factor/", {"code": "000000"})
    assert "does not match" in wrong.content.decode()
    time.sleep(1.1)  # django-otp throttles a device for 1 s after a wrong code (doubling after each further one)
    codes = enrol(client, admin)
    assert len(codes) == 10 and len(set(codes)) == 10
    stored = set(StaticToken.objects.filter(device__user=admin).values_list("token", flat=True))
    assert len(stored) == 10 and not stored & {code.replace("-", "") for code in codes} and not stored & set(codes)
    manage = client.get("/admin/two-factor/").content.decode()
    assert 'id="backup-codes-left">10<' in manage and codes[0] not in manage
    assert client.get("/admin/").status_code == 200  # this session gave a code


def test_next_sign_in_asks_for_the_code_before_anything_else(admin):
    client, _ = sign_in(admin)
    enrol(client, admin)
    client, response = sign_in(admin)
    assert response["Location"] == "/admin/"
    for path in ("/admin/", "/admin/accounts/user/", "/admin/assetsvc/sitesettings/"):
        answer = client.get(path)
        assert answer.status_code == 302 and answer["Location"].startswith("/admin/two-factor/verify/?next="), path
    wrong = client.post("/admin/two-factor/verify/?next=/admin/accounts/user/", {"code": "123456"})
    assert wrong.status_code == 200 and "not valid" in wrong.content.decode()
    time.sleep(1.1)
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=True)
    right = client.post("/admin/two-factor/verify/", {"code": totp_code(device, 1), "next": "/admin/accounts/user/"})
    assert right.status_code == 302 and right["Location"] == "/admin/accounts/user/"
    assert client.get("/admin/accounts/user/").status_code == 200


def test_a_backup_code_signs_in_once(admin):
    client, _ = sign_in(admin)
    code = enrol(client, admin)[3]
    for attempt in (1, 2):
        client, _ = sign_in(admin)
        response = client.post("/admin/two-factor/verify/", {"code": code.upper(), "next": "/admin/"})
        if attempt == 1:
            assert response.status_code == 302 and client.get("/admin/").status_code == 200
        else:
            assert response.status_code == 200 and client.get("/admin/").status_code == 302
    assert StaticToken.objects.filter(device__user=admin).count() == 9


def test_a_foreign_next_is_not_followed(admin):
    client, _ = sign_in(admin)
    enrol(client, admin)
    client, _ = sign_in(admin)
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=True)
    response = client.post("/admin/two-factor/verify/", {"code": totp_code(device, 1), "next": "https://evil.example/"})
    assert response["Location"] == "/admin/"


def test_required_for_admins_sends_an_unenrolled_admin_to_enrolment_first(admin, site_settings):
    policy(site_settings, TwoFactorPolicy.ADMINS)
    client, _ = sign_in(admin)
    for path in ("/admin/", "/admin/inventory/asset/"):
        answer = client.get(path)
        assert answer.status_code == 302 and answer["Location"].startswith("/admin/two-factor/?next="), path
    page = client.get("/admin/two-factor/").content.decode()
    assert "requires two-factor sign-in" in page
    enrol(client, admin)
    assert client.get("/admin/").status_code == 200
    manage = client.get("/admin/two-factor/").content.decode()
    assert "cannot be switched off" in manage
    client.post("/admin/two-factor/", {"action": "disable"})
    assert SealedTOTPDevice.objects.filter(user=admin, confirmed=True).exists()


def test_optional_leaves_an_admin_free_and_everyone_covers_administrators(site_settings):
    administrator = UserFactory(permissions={"admin": 1})
    policy(site_settings, TwoFactorPolicy.OPTIONAL)
    client, _ = sign_in(administrator)
    assert client.get("/admin/").status_code == 200
    policy(site_settings, TwoFactorPolicy.EVERYONE)
    assert client.get("/admin/")["Location"].startswith("/admin/two-factor/")


def test_switching_it_off_and_new_backup_codes(admin):
    client, _ = sign_in(admin)
    old = enrol(client, admin)
    new = codes_on(client.post("/admin/two-factor/", {"action": "codes"}).content.decode())
    assert len(new) == 10 and not set(new) & set(old)
    response = client.post("/admin/two-factor/", {"action": "disable"})
    assert response.status_code == 302
    assert not SealedTOTPDevice.objects.filter(user=admin).exists()
    assert not StaticToken.objects.filter(device__user=admin).exists()
    client, _ = sign_in(admin)
    assert client.get("/admin/").status_code == 200


def test_a_password_alone_cannot_re_enrol_or_manage(admin):
    """With a device and no code given in this session, the management page asks for the code: a stolen password
    does not replace the authenticator or read new backup codes."""
    client, _ = sign_in(admin)
    enrol(client, admin)
    client, _ = sign_in(admin)
    assert client.get("/admin/two-factor/")["Location"].startswith("/admin/two-factor/verify/")
    response = client.post("/admin/two-factor/", {"action": "codes"})
    assert response.status_code == 302 and "backup-codes" not in response.content.decode()


def test_the_pages_need_a_signed_in_person(db):
    client = Client()
    for path in ("/admin/two-factor/", "/admin/two-factor/verify/"):
        assert client.get(path)["Location"].startswith("/admin/login/")


def test_the_user_links_name_the_page(admin):
    client, _ = sign_in(admin)
    assert 'id="two-factor-link"' in client.get("/admin/").content.decode()


def test_the_site_settings_page_sets_who_must_use_it(super_client, site_settings):
    from django.urls import reverse

    page = super_client.get(reverse("admin:assetsvc_sitesettings_change", args=[1])).content.decode()
    assert 'name="two_factor"' in page and "Required for everyone who may use the admin" in page


def test_wrong_codes_in_a_row_make_the_page_say_how_long_to_wait(admin):
    client, _ = sign_in(admin)
    enrol(client, admin)
    client, _ = sign_in(admin)
    client.post("/admin/two-factor/verify/", {"code": "000000"})
    device = SealedTOTPDevice.objects.get(user=admin, confirmed=True)
    right_but_throttled = client.post("/admin/two-factor/verify/", {"code": totp_code(device, 1)})
    assert "Too many wrong codes: wait" in right_but_throttled.content.decode()
    assert client.get("/admin/").status_code == 302
