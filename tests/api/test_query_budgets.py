"""Query budgets of the lists not covered by their own modules: groups, personal access tokens, kits and CSV
uploads (``make bench`` times the last two at 10,000 rows)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services import personal_token_issue
from inventory.models import ImportFile
from tests.factories import KitFactory, PermissionGroupFactory, UserFactory

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


def test_kit_list_is_constant(token_client, superuser):
    for _ in range(3):
        KitFactory(created_by=superuser)
    token_client.get("/api/v1/kits")
    small, body = count(token_client, "/api/v1/kits")
    assert body["total"] == 3
    for _ in range(40):
        KitFactory(created_by=UserFactory())
    large, body = count(token_client, "/api/v1/kits")
    assert body["total"] == 43 and len(body["rows"]) == 43 and large == small


def upload_row(owner, index: int) -> ImportFile:
    return ImportFile.objects.create(name=f"import-{index}.csv", file_path=f"{index:016x}.csv", filesize=1024,
                                     header_row=["Asset Tag", "Name"], first_row=[f"A{index}", "Laptop"],
                                     created_by=owner)


def test_imports_list_is_constant(token_client):
    """Unpaged, as Snipe-IT's: every upload in one answer, whoever uploaded it (a super user sees all)."""
    for index in range(3):
        upload_row(UserFactory(), index)
    token_client.get("/api/v1/imports")
    small, body = count(token_client, "/api/v1/imports")
    assert len(body) == 3
    for index in range(3, 43):
        upload_row(UserFactory(), index)
    large, body = count(token_client, "/api/v1/imports")
    assert len(body) == 43 and large == small
