"""``/groups``: permission groups, super users only (reference §7.3: Snipe-IT authorizes ``superadmin``)."""

from __future__ import annotations

import pytest

from accounts.api.groups import GroupViewSet
from accounts.models import PermissionGroup
from tests.api_mixins import QueryBudgetTests
from tests.factories import PermissionGroupFactory, UserFactory

pytestmark = pytest.mark.django_db


class TestGroupsAPI(QueryBudgetTests):
    """The shared list budget (``tests/api_mixins.py``): groups with a creator and members."""

    url = "/api/v1/groups"
    viewset = GroupViewSet
    section = "groups"  # not a permission key: super users only
    model = PermissionGroup
    factory = PermissionGroupFactory
    item_type = "group"

    def make_listed(self) -> None:
        PermissionGroupFactory(created_by=UserFactory()).users.add(UserFactory(), UserFactory())


@pytest.fixture
def http_mode(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}


def test_crud(token_client, superuser):
    r = token_client.post("/api/v1/groups", {"name": "Helpdesk", "permissions": {"assets.view": "1"},
                                             "notes": "first line"}, format="json")
    data = r.json()
    assert data["status"] == "success" and data["messages"] == "Group was successfully created."
    group_id = data["payload"]["id"]
    assert data["payload"]["permissions"] == {"assets.view": 1}
    assert data["payload"]["created_by"] == {"id": superuser.pk, "name": superuser.full_name}
    UserFactory().groups.add(group_id)
    r = token_client.get("/api/v1/groups")
    assert r.json()["total"] == 1 and r.json()["rows"][0]["users_count"] == 1
    r = token_client.get(f"/api/v1/groups/{group_id}")
    assert r.json()["name"] == "Helpdesk"
    r = token_client.patch(f"/api/v1/groups/{group_id}", {"permissions": {"assets.view": 1, "assets.edit": 1}},
                           format="json")
    assert r.json()["messages"] == "Group was successfully updated."
    assert PermissionGroup.objects.get(pk=group_id).permissions == {"assets.view": 1, "assets.edit": 1}
    r = token_client.delete(f"/api/v1/groups/{group_id}")
    assert r.json() == {"status": "success", "messages": "Group was successfully deleted.", "payload": None}
    assert not PermissionGroup.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": "x"}, "name"),
        ({"name": "y" * 256}, "name"),
        ({"name": "helpdesk"}, "name"),  # duplicate in another case
        ({"name": "Ok", "permissions": {"nope": 1}}, "permissions"),
        ({"name": "Ok", "permissions": {"assets.view": "yes please"}}, "permissions"),
        ({"name": "Ok", "permissions": "not json"}, "permissions"),
    ],
)
def test_invalid_input(token_client, body, field, http_mode):
    PermissionGroupFactory(name="Helpdesk")
    r = token_client.post("/api/v1/groups", body, format="json")
    assert r.status_code == 422 and field in r.json()["messages"]
    assert PermissionGroup.objects.count() == 1


def test_not_found(token_client):
    assert token_client.get("/api/v1/groups/999999").json()["message"] == "Group not found"


@pytest.mark.parametrize("permissions", [
    {"users.view": 1, "users.edit": 1, "users.create": 1, "users.delete": 1},
    {"admin": 1},
    {},
])
def test_everyone_but_super_users_is_refused(make_client, permissions):
    group = PermissionGroupFactory(name="Target", permissions={})
    client = make_client(UserFactory(permissions=permissions))
    for response in (
        client.get("/api/v1/groups"),
        client.get(f"/api/v1/groups/{group.pk}"),
        client.post("/api/v1/groups", {"name": "Mine", "permissions": {"superuser": 1}}, format="json"),
        client.patch(f"/api/v1/groups/{group.pk}", {"permissions": {"superuser": 1}}, format="json"),
        client.delete(f"/api/v1/groups/{group.pk}"),
    ):
        assert response.status_code == 403
        assert response.json()["message"] == "Insufficient permissions."
    group.refresh_from_db()
    assert group.permissions == {} and PermissionGroup.objects.count() == 1


def test_anonymous(api_client):
    assert api_client.get("/api/v1/groups").status_code == 401
