"""``POST /users/two_factor_reset`` and ``GET /settings/login-attempts`` (issue 30), super users only."""

from __future__ import annotations

import pytest
from django.test import Client
from django_otp.plugins.otp_static.models import StaticDevice

from accounts.api.twofactor import NO_ID, RESET_DONE
from accounts.models import SealedTOTPDevice
from accounts.services import USER_NOT_FOUND
from accounts.twofactor.services import backup_codes_issue, totp_pending_device
from activity.models import ActionLog
from assetsvc.models import TwoFactorPolicy
from tests.api_mixins import MISSING, error_of, http_errors
from tests.browser.helpers import ADMIN_PASSWORD
from tests.factories import CompanyFactory, UserFactory

pytestmark = pytest.mark.django_db


def enrolled(user):
    device = totp_pending_device(user=user)
    device.confirmed = True
    device.save()
    backup_codes_issue(user=user)
    return user


def test_reset_clears_the_devices_and_is_logged(token_client, superuser):
    grace = enrolled(UserFactory(username="grace", company=CompanyFactory()))
    other = enrolled(UserFactory(username="other"))
    response = token_client.post("/api/v1/users/two_factor_reset", {"id": grace.pk}, format="json")
    assert response.status_code == 200 and response.json() == {"message": RESET_DONE}
    assert not SealedTOTPDevice.objects.filter(user=grace).exists()
    assert not StaticDevice.objects.filter(user=grace).exists()
    assert SealedTOTPDevice.objects.filter(user=other).exists()
    log = ActionLog.objects.get(action_type="2FA reset")
    assert (log.item_type, log.item_id, log.target_id, log.created_by_id, log.company_id) == (
        "user", grace.pk, grace.pk, superuser.pk, grace.company_id)
    history = token_client.get(f"/api/v1/users/{grace.pk}/history").json()
    assert "2FA reset" in {row["action_type"] for row in history["rows"]}


def test_reset_of_a_user_without_devices_answers_the_same(token_client):
    user = UserFactory()
    assert token_client.post("/api/v1/users/two_factor_reset", {"id": user.pk}).json() == {"message": RESET_DONE}


def test_reset_needs_an_existing_id(token_client, settings):
    assert error_of(token_client.post("/api/v1/users/two_factor_reset", {}, format="json")) is not None
    body = token_client.post("/api/v1/users/two_factor_reset", {}, format="json").json()
    assert body["messages"] == {"id": [NO_ID]}
    assert error_of(token_client.post("/api/v1/users/two_factor_reset", {"id": MISSING}, format="json")) == \
        USER_NOT_FOUND
    assert error_of(token_client.post("/api/v1/users/two_factor_reset", {"id": "x"}, format="json")) is not None
    http_errors(settings)
    assert token_client.post("/api/v1/users/two_factor_reset", {"id": MISSING}, format="json").status_code == 404
    assert not ActionLog.objects.filter(action_type="2FA reset").exists()


def test_reset_is_for_super_users_only(api_client, make_client):
    target = enrolled(UserFactory())
    assert api_client.post("/api/v1/users/two_factor_reset", {"id": target.pk}).status_code == 401
    for permissions in ({}, {"admin": 1}, {"users.edit": 1}):
        client = make_client(UserFactory(permissions=permissions))
        assert client.post("/api/v1/users/two_factor_reset", {"id": target.pk}).status_code == 403, permissions
    assert SealedTOTPDevice.objects.filter(user=target).exists()


def test_after_a_reset_the_next_sign_in_enrols_again_when_required(token_client, site_settings):
    site_settings.two_factor = TwoFactorPolicy.ADMINS
    site_settings.save()
    admin = enrolled(UserFactory(username="ada", permissions={"admin": 1}))
    token_client.post("/api/v1/users/two_factor_reset", {"id": admin.pk})
    client = Client()
    client.post("/admin/login/", {"username": "ada", "password": ADMIN_PASSWORD})
    assert client.get("/admin/")["Location"].startswith("/admin/two-factor/?next=")


# --- login attempts --------------------------------------------------------------------------------------------------


def sign_in(username, password, address):
    Client(REMOTE_ADDR=address, HTTP_USER_AGENT="Firefox/140").post(
        "/admin/login/", {"username": username, "password": password})


def test_login_attempts_lists_successes_and_failures_newest_first_never_the_password(token_client):
    UserFactory(username="ada", superuser=True)
    sign_in("ada", "hunter2-wrong", "192.0.2.1")
    sign_in("nobody", "secret-guess", "192.0.2.2")
    sign_in("ada", ADMIN_PASSWORD, "192.0.2.1")
    response = token_client.get("/api/v1/settings/login-attempts")
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 3
    rows = body["rows"]
    assert [(row["username"], row["remote_ip"], row["successful"]) for row in rows] == [
        ("ada", "192.0.2.1", 1), ("nobody", "192.0.2.2", 0), ("ada", "192.0.2.1", 0)]
    assert set(rows[0]) == {"username", "remote_ip", "user_agent", "successful", "created_at"}
    assert rows[0]["user_agent"] == "Firefox/140" and rows[0]["created_at"].endswith("Z")
    assert "hunter2" not in response.content.decode() and "secret-guess" not in response.content.decode()
    page = token_client.get("/api/v1/settings/login-attempts", {"limit": 1, "offset": 1}).json()
    assert page["total"] == 3 and [row["username"] for row in page["rows"]] == ["nobody"]
    ascending = token_client.get("/api/v1/settings/login-attempts", {"sort": "username", "order": "asc"}).json()
    assert [row["username"] for row in ascending["rows"]] == ["ada", "ada", "nobody"]
    assert token_client.get("/api/v1/settings/login-attempts", {"offset": 10}).json() == {"total": 3, "rows": []}


def test_login_attempts_are_for_super_users_only(api_client, make_client):
    assert api_client.get("/api/v1/settings/login-attempts").status_code == 401
    for permissions in ({}, {"admin": 1}, {"users.view": 1}):
        assert make_client(UserFactory(permissions=permissions)).get(
            "/api/v1/settings/login-attempts").status_code == 403


def test_login_attempts_refuse_a_cursor(token_client):
    response = token_client.get("/api/v1/settings/login-attempts", {"cursor": ""})
    assert response.status_code == 400 and response.json()["status"] == "error"
