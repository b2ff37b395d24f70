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


# --- the request context: token, user, groups and site settings read together, fresh on every request ----------


def test_a_group_grant_applies_on_the_next_request_and_its_withdrawal_too(make_client):
    from tests.factories import AssetFactory, PermissionGroupFactory

    asset = AssetFactory()
    member = UserFactory()
    client = make_client(member)
    assert client.get(f"/api/v1/hardware/{asset.pk}").status_code == 403
    group = PermissionGroupFactory(permissions={"assets.view": 1})
    group.users.add(member)
    assert client.get(f"/api/v1/hardware/{asset.pk}").json()["id"] == asset.pk
    group.permissions = {"assets.view": 0}
    group.save()
    assert client.get(f"/api/v1/hardware/{asset.pk}").status_code == 403
    group.permissions = {"assets.view": 1}
    group.save()
    PermissionGroupFactory(permissions={}).users.add(member)  # a second group grants nothing more
    assert client.get(f"/api/v1/hardware/{asset.pk}").status_code == 200
    group.users.remove(member)
    assert client.get(f"/api/v1/hardware/{asset.pk}").status_code == 403


def test_the_token_brings_groups_and_settings_in_its_own_query(make_client):
    """A bearer request reads its token, user, group permissions and site settings in one query, and nothing of
    them again (issue 13's fixed cost per request)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import AssetFactory, PermissionGroupFactory

    asset = AssetFactory()
    member = UserFactory()
    PermissionGroupFactory(permissions={"assets.view": 1}).users.add(member)
    client = make_client(member)
    client.get(f"/api/v1/hardware/{asset.pk}")
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(f"/api/v1/hardware/{asset.pk}").json()["id"] == asset.pk
    first, *rest = [query["sql"] for query in ctx.captured_queries]
    assert "accounts_permissiongroup" in first and "assetsvc_sitesettings" in first
    assert not [sql for sql in rest if "accounts_permissiongroup" in sql or "assetsvc_sitesettings" in sql
                or "oauth2_provider_accesstoken" in sql]
    assert len(rest) <= 2  # the visibility check and the record's row


def test_a_user_deactivated_between_requests_is_refused_with_groups_intact(make_client):
    member = UserFactory()
    client = make_client(member)
    assert client.get(ME).status_code == 200
    member.is_active = False
    member.save()
    assert client.get(ME).json() == INVALID


def test_the_settings_read_with_the_token_are_the_stored_row(make_client, site_settings):
    """The settings row that rides in the token's query is the row the ORM reads: same values, aware timestamps."""
    from django.test import RequestFactory

    from accounts.authentication import resolve_bearer
    from assetsvc.site import close_request_scope, get_site_settings, open_request_scope

    site_settings.audit_interval = 7
    site_settings.unique_serial = True
    site_settings.save()
    client = make_client(UserFactory())
    request = RequestFactory().get(ME, HTTP_AUTHORIZATION=f"Bearer {client.token}")
    token = open_request_scope()
    try:
        assert resolve_bearer(request).user is not None
        read = get_site_settings()
    finally:
        close_request_scope(token)
    stored = type(site_settings).objects.get(pk=1)
    for field in stored._meta.concrete_fields:
        assert getattr(read, field.attname) == getattr(stored, field.attname), field.name
    assert read.updated_at.tzinfo is not None
