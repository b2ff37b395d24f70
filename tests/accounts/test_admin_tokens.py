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
