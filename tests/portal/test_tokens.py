"""The portal's personal access tokens (issue 32): only for those allowed the API (self.api); the list never shows a
value; a new token's value is shown once and not cached; it works on the API; revoking stops it; another person's
token is "not found"."""

from __future__ import annotations

import re
import uuid

import pytest

from accounts.models import PersonalAccessToken
from accounts.services import personal_token_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(db):
    return UserFactory(username="dev", permissions={"self.api": 1})


def created_value(page: str) -> str:
    return re.search(r'<textarea id="token-value"[^>]*>([^<]+)</textarea>', page).group(1)


def test_someone_without_the_api_right_gets_not_found(client):
    emma = UserFactory(username="emma")
    token, _ = personal_token_issue(user=emma, name="old")
    client.force_login(emma)
    for answer in (client.get("/account/tokens/"), client.post("/account/tokens/", {"name": "x"}),
                   client.post(f"/account/tokens/{token.pk}/revoke/")):
        assert answer.status_code == 404 and "may not use the API" in answer.content.decode()
    assert PersonalAccessToken.objects.filter(user=emma).count() == 1
    assert not PersonalAccessToken.objects.get(pk=token.pk).revoked


def test_create_shows_the_value_once_and_it_works_on_the_api(client, dev):
    client.force_login(dev)
    answer = client.post("/account/tokens/", {"name": "backup script"})
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    raw = created_value(answer.content.decode())
    record = PersonalAccessToken.objects.get(user=dev)
    assert record.name == "backup script" and not record.revoked
    listing = client.get("/account/tokens/").content.decode()
    assert "backup script" in listing and raw not in listing
    api = client.get("/api/v1/users/me", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert api.status_code == 200 and api.json()["username"] == "dev"


def test_an_empty_name_is_the_apis_default_and_a_long_one_is_refused(client, dev):
    client.force_login(dev)
    client.post("/account/tokens/", {"name": ""})
    assert PersonalAccessToken.objects.get(user=dev).name == "Auth Token"
    answer = client.post("/account/tokens/", {"name": "x" * 256})
    assert answer.status_code == 400 and "at most 255 characters" in answer.content.decode()
    assert PersonalAccessToken.objects.filter(user=dev).count() == 1


def test_the_list_has_only_the_persons_live_tokens_in_constant_queries(client, dev, django_assert_max_num_queries):
    other = UserFactory(username="other", permissions={"self.api": 1})
    personal_token_issue(user=other, name="not mine")
    for number in range(5):
        personal_token_issue(user=dev, name=f"mine {number}")
    gone, _ = personal_token_issue(user=dev, name="revoked one")
    client.force_login(dev)
    client.post(f"/account/tokens/{gone.pk}/revoke/", follow=True)  # the message shown once
    with django_assert_max_num_queries(10):
        page = client.get("/account/tokens/").content.decode()
    assert page.count('class="card"') == 5 and "not mine" not in page and "revoked one" not in page


def test_revoke_stops_the_token_and_anothers_token_is_not_found(client, dev):
    mine, raw = personal_token_issue(user=dev, name="mine")
    other = UserFactory(username="other", permissions={"self.api": 1})
    theirs, their_raw = personal_token_issue(user=other, name="theirs")
    client.force_login(dev)
    for token_id in (theirs.pk, uuid.uuid4(), "not-a-uuid"):
        answer = client.post(f"/account/tokens/{token_id}/revoke/")
        assert answer.status_code == 404 and "Token not found." in answer.content.decode()
    theirs.refresh_from_db()
    assert not theirs.revoked
    assert client.get("/api/v1/users/me", HTTP_AUTHORIZATION=f"Bearer {their_raw}").status_code == 200
    answer = client.post(f"/account/tokens/{mine.pk}/revoke/")
    assert answer.status_code == 302 and answer["Location"] == "/account/tokens/"
    mine.refresh_from_db()
    assert mine.revoked
    assert client.get("/api/v1/users/me", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    assert "is revoked" in client.get("/account/tokens/").content.decode()
    assert client.get(f"/account/tokens/{mine.pk}/revoke/").status_code == 405  # a POST only
