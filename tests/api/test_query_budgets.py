"""Query budgets of the lists not covered by their own modules: groups and personal access tokens."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services import personal_token_issue
from tests.factories import PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db


def count(client, path: str) -> tuple[int, dict]:
    with CaptureQueriesContext(connection) as ctx:
        body = client.get(path, {"limit": 500}).json()
    return len(ctx.captured_queries), body


def test_groups_list_is_constant(token_client, superuser):
    for _ in range(3):
        PermissionGroupFactory(created_by=superuser).users.add(UserFactory())
    token_client.get("/api/v1/groups")
    small, body = count(token_client, "/api/v1/groups")
    assert body["total"] == 3
    for _ in range(40):
        PermissionGroupFactory(created_by=UserFactory()).users.add(UserFactory(), UserFactory())
    large, body = count(token_client, "/api/v1/groups")
    assert body["total"] == 43 and large == small


def test_token_list_is_constant(make_client):
    owner = UserFactory()
    client = make_client(owner)
    client.get("/api/v1/account/personal-access-tokens")
    small, body = count(client, "/api/v1/account/personal-access-tokens")
    assert len(body["payload"]) == 1
    for index in range(40):
        personal_token_issue(user=owner, name=f"t{index}")
    large, body = count(client, "/api/v1/account/personal-access-tokens")
    assert len(body["payload"]) == 41 and large == small
