"""Okta's provisioning sequence, replayed with the request bodies of Okta's "SCIM 2.0 protocol reference"
(developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20): look up by ``userName`` with ``startIndex=1&count=100``,
create, read, PUT the whole user, PATCH ``active: false``, push a group and change its members. Ids are ours."""

from __future__ import annotations

import pytest

from accounts.models import PermissionGroup, User
from tests.factories.accounts import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

CREATE_USER = {
    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
    "userName": "test.user@okta.local",
    "name": {"givenName": "Test", "familyName": "User"},
    "emails": [{"primary": True, "value": "test.user@okta.local", "type": "work"}],
    "displayName": "Test User",
    "locale": "en-US",
    "externalId": "00ujl29u0le5T6Aj10h7",
    "groups": [],
    "password": "1mz050nq",
    "active": True,
}


def put_user(user_id: int) -> dict:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "id": str(user_id),
        "userName": "test.user@okta.local",
        "name": {"givenName": "Another", "familyName": "User"},
        "emails": [{"primary": True, "value": "test.user@okta.local", "type": "work"}],
        "displayName": "Another User",
        "locale": "en-US",
        "groups": [],
        "active": True,
        "meta": {"resourceType": "User"},
    }


DEACTIVATE = {"schemas": [PATCH], "Operations": [{"op": "replace", "value": {"active": False}}]}
CREATE_GROUP = {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "Test SCIMv2",
                "members": []}


def test_okta_user_lifecycle(scim):
    lookup = {"filter": 'userName eq "test.user@okta.local"', "startIndex": 1, "count": 100}
    answer = scim.get("Users", params=lookup)
    assert answer.status_code == 200
    assert answer.json() == {"schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], "totalResults": 0,
                             "startIndex": 1, "itemsPerPage": 0, "Resources": []}

    answer = scim.post("Users", CREATE_USER)
    assert answer.status_code == 201, answer.text
    user = User.objects.get(username="test.user@okta.local")
    assert (user.first_name, user.last_name, user.email, user.external_id) == (
        "Test", "User", "test.user@okta.local", "00ujl29u0le5T6Aj10h7")
    assert not user.has_usable_password()  # Okta's password is not taken: people sign in through Okta

    answer = scim.get("Users", params=lookup)
    assert answer.json()["totalResults"] == 1 and answer.json()["itemsPerPage"] == 1
    assert scim.get(f"Users/{user.pk}").json()["name"]["givenName"] == "Test"

    # PUT replaces the whole user: what the body leaves out (externalId here) is cleared
    answer = scim.put(f"Users/{user.pk}", put_user(user.pk))
    assert answer.status_code == 200, answer.text
    user.refresh_from_db()
    assert (user.first_name, user.last_name, user.external_id, user.is_active) == ("Another", "User", "", True)
    assert answer.json()["displayName"] == "Another User"

    answer = scim.patch(f"Users/{user.pk}", DEACTIVATE)
    assert answer.status_code == 200 and answer.json()["active"] is False
    user.refresh_from_db()
    assert user.is_active is False


def test_okta_paging(scim):
    for n in range(5):
        UserFactory(username=f"paged{n}")
    everyone = scim.get("Users", params={"startIndex": 1, "count": 100}).json()
    assert everyone["totalResults"] == 6  # and the provisioner
    page = scim.get("Users", params={"startIndex": 3, "count": 2}).json()
    assert (page["startIndex"], page["itemsPerPage"]) == (3, 2)
    assert [item["id"] for item in page["Resources"]] == [item["id"] for item in everyone["Resources"][2:4]]
    assert scim.get("Users", params={"count": 0}).json()["Resources"] == []


def test_okta_group_push(scim):
    member = UserFactory(username="member")
    other = UserFactory(username="other")
    answer = scim.post("Groups", CREATE_GROUP)
    assert answer.status_code == 201, answer.text
    group = PermissionGroup.objects.get(name="Test SCIMv2")
    assert group.permissions == {}
    listed = scim.get("Groups", params={"startIndex": 1, "count": 100}).json()
    assert [item["displayName"] for item in listed["Resources"]] == ["Test SCIMv2"]

    rename = {"schemas": [PATCH], "Operations": [{"op": "replace", "value": {"id": str(group.pk),
                                                                             "displayName": "Test SCIMv2 renamed"}}]}
    assert scim.patch(f"Groups/{group.pk}", rename).status_code == 204
    add = {"schemas": [PATCH], "Operations": [{"op": "add", "path": "members", "value": [
        {"value": str(member.pk), "display": "member"}, {"value": str(other.pk), "display": "other"}]}]}
    assert scim.patch(f"Groups/{group.pk}", add).status_code == 204
    change = {"schemas": [PATCH], "Operations": [
        {"op": "remove", "path": f'members[value eq "{other.pk}"]'},
    ]}
    assert scim.patch(f"Groups/{group.pk}", change).status_code == 204
    group.refresh_from_db()
    assert group.name == "Test SCIMv2 renamed"
    assert list(group.users.values_list("username", flat=True)) == ["member"]

    # PUT replaces the members
    answer = scim.put(f"Groups/{group.pk}", {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                                             "displayName": "Test SCIMv2 renamed",
                                             "members": [{"value": str(other.pk)}]})
    assert answer.status_code == 200
    assert [item["value"] for item in answer.json()["members"]] == [str(other.pk)]
