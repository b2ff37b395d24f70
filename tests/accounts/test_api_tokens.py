"""Personal access tokens and /users/me, exactly as the specification and API-CONTRACT.md §5 say."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import AccessToken

from accounts.models import PersonalAccessToken
from accounts.services import personal_token_issue
from tests.factories import CompanyFactory, PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db
TOKENS = "/api/v1/account/personal-access-tokens"
ISO_MICRO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def test_create_token_returns_it_once_and_stores_only_a_checksum(token_client, superuser):
    response = token_client.post(TOKENS, {"name": "sync script"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["status", "messages", "payload"]
    assert body["status"] == "success"
    assert body["messages"] == "Personal API Key sync script created successfully"
    assert set(body["payload"]) == {"id", "token", "name"}
    assert body["payload"]["name"] == "sync script"
    uuid.UUID(body["payload"]["id"])
    raw = body["payload"]["token"]
    record = PersonalAccessToken.objects.get(pk=body["payload"]["id"])
    assert record.user == superuser
    # No raw token anywhere in the database.
    assert not AccessToken.objects.filter(token=raw).exists()
    assert all(t == "" for t in AccessToken.objects.values_list("token", flat=True))
    # The new token works.
    me = token_client.__class__()
    me.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert me.get("/api/v1/users/me").json()["username"] == superuser.username


def test_create_token_default_name_and_form_body(make_client, user):
    client = make_client(user)  # any authenticated user manages their own tokens
    response = client.post(TOKENS, "", content_type="application/json")
    assert response.json()["payload"]["name"] == "Auth Token"
    response = client.post(TOKENS, "name=from+form", content_type="application/json")
    assert response.json()["payload"]["name"] == "from form"
    response = client.post(f"{TOKENS}?name=from-query")
    assert response.json()["payload"]["name"] == "from-query"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"name": "x" * 256}, "The name may not be greater than 255 characters."),
        ({"name": ["a", "b"]}, "The name must be a string."),
        ({"name": {"a": 1}}, "The name must be a string."),
        ({"name": "bad\x00name"}, "Null characters are not allowed."),
    ],
)
def test_create_token_bad_names_are_refused_and_nothing_is_written(token_client, body, message):
    before = PersonalAccessToken.objects.count()
    response = token_client.post(TOKENS, body, format="json")
    assert response.status_code == 200  # compat mode, as Snipe-IT
    assert response.json()["status"] == "error"
    assert response.json()["payload"] is None
    assert response.json()["messages"]["name"] == [message]
    assert response.json()["message"] == message
    assert PersonalAccessToken.objects.count() == before


def test_create_token_bad_name_is_422_in_http_mode(token_client, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    response = token_client.post(TOKENS, {"name": "x" * 256}, format="json")
    assert response.status_code == 422


def test_invalid_json_body_is_422(token_client):
    before = PersonalAccessToken.objects.count()
    response = token_client.post(TOKENS, '{"name": ', content_type="application/json")
    assert response.status_code == 422
    assert response.json() == {"status": "error", "message": "Invalid JSON", "messages": "Invalid JSON",
                               "payload": None}
    assert PersonalAccessToken.objects.count() == before


def test_list_shows_active_tokens_of_the_caller_only(make_client):
    owner = UserFactory()
    client = make_client(owner)  # issues one token named "test"
    expired, _ = personal_token_issue(user=owner, name="old")
    PersonalAccessToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(days=1))
    revoked, _ = personal_token_issue(user=owner, name="revoked")
    client.delete(f"{TOKENS}/{revoked.pk}")
    personal_token_issue(user=UserFactory(), name="someone else's")

    body = client.get(TOKENS).json()
    assert body["status"] == "success"
    assert [t["name"] for t in body["payload"]] == ["test"]
    record = body["payload"][0]
    assert set(record) == {"id", "user_id", "client_id", "name", "scopes", "revoked", "created_at", "updated_at",
                           "expires_at"}
    assert record["user_id"] == owner.pk
    assert record["scopes"] == [] and record["revoked"] is False
    uuid.UUID(record["id"])
    uuid.UUID(record["client_id"])
    for key in ("created_at", "updated_at", "expires_at"):
        assert ISO_MICRO.match(record[key]), record[key]
    assert "token" not in record


def test_token_expires_after_the_configured_years(token_client, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_TOKEN_EXPIRATION_YEARS": 2}
    payload = token_client.post(TOKENS, {"name": "short"}, format="json").json()["payload"]
    record = PersonalAccessToken.objects.get(pk=payload["id"])
    years = (record.expires_at - record.created_at).days / 365.25
    assert 1.99 < years < 2.01
    assert record.access_token.expires == record.expires_at


def test_default_lifetime_is_fifteen_years(token_client):
    payload = token_client.post(TOKENS, {"name": "long"}, format="json").json()["payload"]
    record = PersonalAccessToken.objects.get(pk=payload["id"])
    assert 14.99 < (record.expires_at - record.created_at).days / 365.25 < 15.01


def test_revoke_is_204_and_the_token_fails_on_the_next_request(make_client, api_client):
    owner = UserFactory()
    client = make_client(owner)
    record, raw = personal_token_issue(user=owner, name="to revoke")
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert api_client.get("/api/v1/users/me").status_code == 200

    response = client.delete(f"{TOKENS}/{record.pk}")
    assert response.status_code == 204
    assert response.content == b""
    record.refresh_from_db()
    assert record.revoked is True

    response = api_client.get("/api/v1/users/me")
    assert response.status_code == 401
    assert response.json()["message"] == "The token is invalid or has expired."


def test_revoking_another_users_or_an_unknown_token_is_404(make_client):
    owner, stranger = UserFactory(), UserFactory()
    theirs, _ = personal_token_issue(user=stranger, name="theirs")
    client = make_client(owner)
    for token_id in (theirs.pk, uuid.uuid4(), "not-a-uuid", "1"):
        response = client.delete(f"{TOKENS}/{token_id}")
        assert response.status_code == 404
        assert response.json()["status"] == "error"
    theirs.refresh_from_db()
    assert theirs.revoked is False


@pytest.mark.parametrize("token_id", ["%00", "%00abc", "a%00", "%20", "%E2%80%8B", "%C3%A9", "%25"])
@pytest.mark.parametrize("mode", ["compat", "http"])
def test_revoking_a_token_id_with_odd_characters_is_404_like_every_unknown_id(make_client, settings, mode, token_id):
    """Issue 25 item 17: ``DELETE /account/personal-access-tokens/%00`` answered 200 with "Token not found."."""
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": mode}
    owner = UserFactory()
    mine, _ = personal_token_issue(user=owner, name="mine")
    response = make_client(owner).delete(f"{TOKENS}/{token_id}")
    assert response.status_code == 404, response.content
    assert response.json() == {"status": "error", "message": "Token not found.", "messages": "Token not found.",
                               "payload": None}
    mine.refresh_from_db()
    assert mine.revoked is False


def test_revoking_twice_is_204(make_client):
    owner = UserFactory()
    client = make_client(owner)
    record, _ = personal_token_issue(user=owner, name="twice")
    assert client.delete(f"{TOKENS}/{record.pk}").status_code == 204
    assert client.delete(f"{TOKENS}/{record.pk}/").status_code == 204


def test_users_me_has_the_specification_shape(make_client):
    company = CompanyFactory(name="Acme")
    group = PermissionGroupFactory(name="IT", permissions={"assets.view": 1})
    person = UserFactory(first_name="Ada", last_name="Lovelace", username="ada", email="ada@example.com",
                         employee_num="E-1", company=company, permissions={"assets.view": 1, "users.view": "1"})
    person.groups.add(group)
    body = make_client(person).get("/api/v1/users/me").json()
    assert "status" not in body  # not enveloped
    assert body["id"] == person.pk
    assert body["name"] == "Ada Lovelace"
    assert (body["first_name"], body["last_name"], body["username"]) == ("Ada", "Lovelace", "ada")
    assert body["employee_num"] == "E-1" and body["email"] == "ada@example.com"
    assert body["permissions"] == {"assets.view": 1, "users.view": 1}
    assert re.match(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$", body["created_at"]["datetime"])
    assert re.match(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2} (AM|PM)$", body["created_at"]["formatted"])
    assert body["company"] == {"id": company.pk, "name": "Acme"}
    assert body["groups"] == {"total": 1, "rows": [{"id": group.pk, "name": "IT"}]}
    assert body["activated"] is True
    assert body["assets_count"] == 0


def test_users_me_of_a_super_user_has_the_superuser_flag(token_client):
    body = token_client.get("/api/v1/users/me").json()
    assert body["permissions"]["superuser"] == 1
    assert body["employee_num"] is None
