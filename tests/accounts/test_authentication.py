"""Every way a request can fail to authenticate answers 401 in the envelope, and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import AccessToken

from accounts.services import personal_token_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ME = "/api/v1/users/me"
UNAUTH = {"status": "error", "message": "Unauthenticated.", "messages": "Unauthenticated.", "payload": None}
INVALID = {"status": "error", "message": "The token is invalid or has expired.",
           "messages": "The token is invalid or has expired.", "payload": None}


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, UNAUTH),
        ("", UNAUTH),
        ("Bearer", UNAUTH),
        ("Bearer ", UNAUTH),
        ("Token abc", UNAUTH),
        ("Basic YWRtaW46YWRtaW4=", UNAUTH),
        ("Bearer abc", INVALID),
        ("Bearer " + "x" * 5000, INVALID),
        ("Bearer a\x00b", INVALID),
        ("Bearer 3c6e0b8a9c15224a8228b9a98ca1531d", INVALID),
    ],
)
def test_bad_credentials_are_401_in_the_envelope(api_client, header, expected):
    kwargs = {} if header is None else {"HTTP_AUTHORIZATION": header}
    response = api_client.get(ME, **kwargs)
    assert response.status_code == 401
    assert response.json() == expected
    assert response["Content-Type"] == "application/json"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_two_authorization_headers_are_refused(api_client):
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    # Servers join repeated headers with a comma.
    response = api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}, Bearer {raw}")
    assert response.status_code == 401
    assert response.json() == INVALID


def test_expired_token_fails(api_client):
    user = UserFactory()
    record, raw = personal_token_issue(user=user)
    AccessToken.objects.filter(pk=record.access_token_id).update(expires=timezone.now() - timedelta(seconds=1))
    response = api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json() == INVALID


def test_deactivated_users_token_fails(api_client):
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    user.is_active = False
    user.save()
    response = api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json() == INVALID


def test_deleted_users_token_fails(api_client):
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    user.deleted_at = timezone.now()
    user.save()
    response = api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json() == INVALID


def test_token_of_a_hard_deleted_user_fails(api_client):
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    user.delete()
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401


def test_scheme_is_case_insensitive(api_client):
    user = UserFactory()
    _, raw = personal_token_issue(user=user)
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"bearer {raw}").status_code == 200


def test_anonymous_cannot_create_tokens(api_client):
    response = api_client.post("/api/v1/account/personal-access-tokens", {"name": "x"}, format="json")
    assert response.status_code == 401
    from accounts.models import PersonalAccessToken

    assert PersonalAccessToken.objects.count() == 0
