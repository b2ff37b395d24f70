"""Tokens managed in the Django admin: deleting or revoking one there stops it on the very next request."""

from __future__ import annotations

import pytest
from django.urls import reverse
from oauth2_provider.models import AccessToken
from rest_framework.test import APIClient

from accounts.models import PersonalAccessToken
from accounts.services import personal_token_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def _bearer(raw: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return api


def _issue(user=None, name="script"):
    user = user or UserFactory(permissions={"assets.view": 1})
    record, raw = personal_token_issue(user=user, name=name)
    assert _bearer(raw).get("/api/v1/users/me").status_code == 200
    return record, raw


def test_token_deleted_in_admin_fails_on_the_next_request(admin_client):
    record, raw = _issue()
    url = reverse("admin:accounts_personalaccesstoken_delete", args=[record.pk])
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not PersonalAccessToken.objects.filter(pk=record.pk).exists()
    assert not AccessToken.objects.filter(pk=record.access_token_id).exists()
    response = _bearer(raw).get("/api/v1/users/me")
    assert response.status_code == 401
    assert response.json()["message"] == "The token is invalid or has expired."


def test_tokens_deleted_in_bulk_from_the_changelist_all_fail(admin_client):
    (first, raw1), (second, raw2) = _issue(name="a"), _issue(name="b")
    kept, kept_raw = _issue(name="kept")
    url = reverse("admin:accounts_personalaccesstoken_changelist")
    response = admin_client.post(url, {"action": "delete_selected", "_selected_action": [first.pk, second.pk],
                                       "post": "yes"})
    assert response.status_code == 302
    assert _bearer(raw1).get("/api/v1/users/me").status_code == 401
    assert _bearer(raw2).get("/api/v1/users/me").status_code == 401
    assert not AccessToken.objects.filter(pk__in=[first.access_token_id, second.access_token_id]).exists()
    assert _bearer(kept_raw).get("/api/v1/users/me").status_code == 200


def test_revoke_action_keeps_the_record_and_stops_the_token(admin_client):
    record, raw = _issue()
    url = reverse("admin:accounts_personalaccesstoken_changelist")
    response = admin_client.post(url, {"action": "revoke_tokens", "_selected_action": [record.pk]})
    assert response.status_code == 302
    record.refresh_from_db()
    assert record.revoked and record.access_token_id is None
    assert _bearer(raw).get("/api/v1/users/me").status_code == 401


def test_a_secret_whose_record_is_gone_or_revoked_does_not_authenticate():
    """Defence in depth: the access token alone is not enough; its personal-token record must be live."""
    record, raw = _issue()
    PersonalAccessToken.objects.filter(pk=record.pk).update(revoked=True)
    assert _bearer(raw).get("/api/v1/users/me").status_code == 401
    record2, raw2 = _issue(name="second")
    PersonalAccessToken.objects.filter(pk=record2.pk).update(access_token=None)
    assert AccessToken.objects.filter(user=record2.user).exists()
    assert _bearer(raw2).get("/api/v1/users/me").status_code == 401


# Issuing from the admin (issue 14) ----------------------------------------------------------------------------------


def test_super_user_issues_a_token_for_a_user_shown_once(admin_client):
    person = UserFactory(username="scanner", permissions={"assets.view": 1})
    add_url = reverse("admin:accounts_personalaccesstoken_add")
    page = admin_client.get(add_url)
    assert page.status_code == 200 and b'name="user"' in page.content and b'name="name"' in page.content
    response = admin_client.post(add_url, {"user": person.pk, "name": "barcode scanner"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    record = PersonalAccessToken.objects.get(user=person)
    assert record.name == "barcode scanner" and not record.revoked
    raw = response.context["token"]
    assert raw.encode() in response.content
    # Only the checksum is stored, and the value works at once.
    stored = AccessToken.objects.get(pk=record.access_token_id)
    assert raw not in (stored.token, stored.token_checksum)
    me = _bearer(raw).get("/api/v1/users/me")
    assert me.status_code == 200 and me.json()["username"] == "scanner"
    # Never shown again: not on the list, not on the record's page.
    for url in (reverse("admin:accounts_personalaccesstoken_changelist"),
                reverse("admin:accounts_personalaccesstoken_change", args=[record.pk])):
        shown = admin_client.get(url)
        assert shown.status_code == 200 and raw.encode() not in shown.content
        assert b"Access token" not in shown.content and b"Application" not in shown.content


def test_issued_in_the_admin_then_revoked_there(admin_client):
    person = UserFactory(permissions={"assets.view": 1})
    response = admin_client.post(reverse("admin:accounts_personalaccesstoken_add"), {"user": person.pk, "name": "x"})
    raw, record = response.context["token"], PersonalAccessToken.objects.get(user=person)
    response = admin_client.post(reverse("admin:accounts_personalaccesstoken_changelist"),
                                 {"action": "revoke_tokens", "_selected_action": [record.pk]})
    assert response.status_code == 302
    assert _bearer(raw).get("/api/v1/users/me").status_code == 401


def test_no_token_for_a_deactivated_or_deleted_user(admin_client):
    from django.utils import timezone

    for person in (UserFactory(is_active=False), UserFactory(deleted_at=timezone.now())):
        response = admin_client.post(reverse("admin:accounts_personalaccesstoken_add"),
                                     {"user": person.pk, "name": "x"})
        assert response.status_code == 200 and "token" not in response.context
        assert response.context["adminform"].form.errors["user"]
        assert not PersonalAccessToken.objects.filter(user=person).exists()


def test_add_refused_without_a_name_and_to_anyone_not_signed_in(admin_client, client):
    person = UserFactory()
    response = admin_client.post(reverse("admin:accounts_personalaccesstoken_add"), {"user": person.pk, "name": ""})
    assert response.status_code == 200 and response.context["adminform"].form.errors["name"]
    assert not PersonalAccessToken.objects.exists()
    client.logout()
    response = client.post(reverse("admin:accounts_personalaccesstoken_add"), {"user": person.pk, "name": "x"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not PersonalAccessToken.objects.exists()


def test_oauth_and_auth_group_internals_are_not_in_the_admin(admin_client):
    from django.contrib import admin
    from django.contrib.auth.models import Group
    from oauth2_provider.models import Application, Grant, IDToken, RefreshToken

    for model in (Application, AccessToken, RefreshToken, Grant, IDToken, Group):
        assert not admin.site.is_registered(model), model
    index = admin_client.get(reverse("admin:index")).content.decode()
    assert "oauth2_provider" not in index and "/admin/auth/group/" not in index
    assert "/admin/accounts/personalaccesstoken/" in index
    assert admin_client.get("/admin/oauth2_provider/accesstoken/").status_code == 404


def test_admin_pages_link_the_api_docs(admin_client):
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert 'href="/api/docs"' in page and 'href="/api/redoc"' in page
