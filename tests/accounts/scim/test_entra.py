"""Entra ID's provisioning sequence, replayed with the request bodies Microsoft documents ("Tutorial: Develop and plan
provisioning for a SCIM endpoint in Microsoft Entra ID", learn.microsoft.com, section "User operations" and "Group
operations"; and "Known issues and resolutions with SCIM 2.0 protocol compliance", which records the
``"value": "False"`` string and the path-less ``replace`` Entra sends). Ids in paths and members are ours."""

from __future__ import annotations

import pytest

from accounts.models import PermissionGroup, User
from tests.factories.accounts import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

CREATE_USER = {
    "schemas": [
        "urn:ietf:params:scim:schemas:core:2.0:User",
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
    "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
    "userName": "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
    "active": True,
    "emails": [{
        "primary": True,
        "type": "work",
        "value": "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com",
    }],
    "meta": {"resourceType": "User"},
    "name": {
        "formatted": "givenName familyName",
        "familyName": "familyName",
        "givenName": "givenName",
    },
    "roles": [],
}
PATCH_MULTI_VALUED = {
    "schemas": [PATCH],
    "Operations": [
        {"op": "Replace", "path": "emails[type eq \"work\"].value", "value": "updatedEmail@microsoft.com"},
        {"op": "Replace", "path": "name.familyName", "value": "updatedFamilyName"},
    ],
}
PATCH_SINGLE_VALUED = {
    "schemas": [PATCH],
    "Operations": [{"op": "Replace", "path": "userName", "value": "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"}],
}
#: What Entra sends with its default attribute mapping (aadOptscim062020: one path-less replace of many attributes).
PATCH_MANY_ATTRIBUTES = {
    "schemas": [PATCH],
    "Operations": [{"op": "replace", "value": {
        "displayName": "Pvlo",
        "emails[type eq \"work\"].value": "TestBcwqnm@test.microsoft.com",
        "name.givenName": "Gtfd",
        "name.familyName": "Pkqf",
        "externalId": "Eqpj",
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber": "Eqpj",
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department": "Sales",
        "title": "Seller",
        "phoneNumbers[type eq \"work\"].value": "+1 555 0100",
        "preferredLanguage": "en-US",
    }}],
}
#: Entra's non-compliant disable (a string "False", a capital "Replace"), still sent without the feature flag.
DISABLE_STRING = {"schemas": [PATCH], "Operations": [{"op": "Replace", "path": "active", "value": "False"}]}
ENABLE_STRING = {"schemas": [PATCH], "Operations": [{"op": "Replace", "path": "active", "value": "True"}]}
DISABLE_BOOLEAN = {"Operations": [{"op": "Replace", "path": "active", "value": False}], "schemas": [PATCH]}
DISABLE_PATHLESS = {"schemas": [PATCH], "Operations": [{"op": "replace", "value": {"active": False}}]}

CREATE_GROUP = {
    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group",
                "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"],
    "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
    "displayName": "displayName",
    "meta": {"resourceType": "Group"},
}


def add_members(*ids) -> dict:
    return {"schemas": [PATCH], "Operations": [{
        "op": "Add", "path": "members", "value": [{"$ref": None, "value": str(i)} for i in ids]}]}


def remove_members(*ids) -> dict:
    return {"schemas": [PATCH], "Operations": [{
        "op": "Remove", "path": "members", "value": [{"$ref": None, "value": str(i)} for i in ids]}]}


def test_entra_user_lifecycle(scim, scim_client):
    # 1. Entra looks the user up first: nobody, an empty ListResponse
    answer = scim.get("Users", params={"filter": 'userName eq "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1"'})
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("application/scim+json")
    assert answer.json() == {"schemas": [LIST], "totalResults": 0, "startIndex": 1, "itemsPerPage": 0,
                             "Resources": []}

    # 2. create
    answer = scim.post("Users", CREATE_USER)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    user = User.objects.get(username="Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1")
    assert created["id"] == str(user.pk)
    assert answer.headers["Location"] == f"{scim.base}Users/{user.pk}"
    assert created["externalId"] == "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"
    assert created["active"] is True
    assert created["emails"] == [{"value": "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com",
                                  "type": "work", "primary": True}]
    assert created["name"]["givenName"] == "givenName"
    assert (user.first_name, user.last_name, user.external_id, user.is_active) == (
        "givenName", "familyName", "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef", True)
    assert not user.has_usable_password()
    assert user.permissions == {} and not user.groups.exists()

    # 3. the same lookup finds them now; GET by id
    answer = scim.get("Users", params={"filter": 'userName eq "test_user_ab6490ee-1e48-479e-a20b-2d77186b5dd1"'})
    assert answer.json()["totalResults"] == 1
    assert answer.json()["Resources"][0]["id"] == str(user.pk)
    answer = scim.get(f"Users/{user.pk}")
    assert answer.status_code == 200 and answer.json()["userName"] == user.username

    # a second create of the same userName is a uniqueness conflict
    answer = scim.post("Users", CREATE_USER)
    assert answer.status_code == 409
    assert answer.json()["scimType"] == "uniqueness"

    # 4. PATCH replace attributes (the documented shapes)
    answer = scim.patch(f"Users/{user.pk}", PATCH_MULTI_VALUED)
    assert answer.status_code == 200, answer.text
    user.refresh_from_db()
    assert (user.email, user.last_name) == ("updatedEmail@microsoft.com", "updatedFamilyName")
    answer = scim.patch(f"Users/{user.pk}", PATCH_SINGLE_VALUED)
    assert answer.status_code == 200
    assert answer.json()["userName"] == "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"
    answer = scim.patch(f"Users/{user.pk}", PATCH_MANY_ATTRIBUTES)
    assert answer.status_code == 200, answer.text
    user.refresh_from_db()
    assert (user.email, user.first_name, user.last_name, user.external_id, user.employee_num, user.jobtitle,
            user.phone, user.department.name) == ("TestBcwqnm@test.microsoft.com", "Gtfd", "Pkqf", "Eqpj", "Eqpj",
                                                  "Seller", "+1 555 0100", "Sales")
    body = answer.json()
    assert body["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"] == {
        "employeeNumber": "Eqpj", "department": "Sales"}
    assert scim.get("Users", params={"filter": 'externalId eq "Eqpj"'}).json()["totalResults"] == 1
    assert scim.get("Users", params={"filter": 'emails[type eq "work"].value eq "testbcwqnm@test.microsoft.com"'}
                    ).json()["totalResults"] == 1

    # 5. the person signs in with a token of their own; Entra disables them with "False" (a string)
    own = scim_client(user)
    assert own.get("Users").status_code == 403  # their token works (they may not manage users)
    answer = scim.patch(f"Users/{user.pk}", DISABLE_STRING)
    assert answer.status_code == 200, answer.text
    assert answer.json()["active"] is False
    user.refresh_from_db()
    assert user.is_active is False
    # ... and their very next request fails, on SCIM and on the API
    refused = own.get("Users")
    assert refused.status_code == 401
    assert refused.json() == {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "401",
                              "detail": "The token is invalid or has expired."}
    assert own.session.get(f"{scim.base.removesuffix('/scim/v2/')}/api/v1/users/me", timeout=10).status_code == 401

    # enabled again ("True"), disabled with the compliant shapes
    assert scim.patch(f"Users/{user.pk}", ENABLE_STRING).json()["active"] is True
    assert scim.patch(f"Users/{user.pk}", DISABLE_BOOLEAN).json()["active"] is False
    assert scim.patch(f"Users/{user.pk}", ENABLE_STRING).json()["active"] is True
    assert scim.patch(f"Users/{user.pk}", DISABLE_PATHLESS).json()["active"] is False

    # 6. DELETE deactivates, never deletes: the person (and their history) stays
    assert scim.patch(f"Users/{user.pk}", ENABLE_STRING).json()["active"] is True
    answer = scim.delete(f"Users/{user.pk}")
    assert answer.status_code == 204
    user.refresh_from_db()
    assert user.is_active is False and user.deleted_at is None
    assert scim.get(f"Users/{user.pk}").json()["active"] is False


def test_entra_group_sequence(scim):
    alice = UserFactory(username="alice")
    bob = UserFactory(username="bob")
    answer = scim.get("Groups", params={"excludedAttributes": "members", "filter": 'displayName eq "displayName"'})
    assert answer.status_code == 200 and answer.json()["totalResults"] == 0

    answer = scim.post("Groups", CREATE_GROUP)
    assert answer.status_code == 201, answer.text
    group = PermissionGroup.objects.get(name="displayName")
    assert group.permissions == {}  # a pushed group grants nothing until a super user says so
    assert answer.json() == {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "id": str(group.pk),
        "displayName": "displayName", "members": [],
        "meta": {"resourceType": "Group", "created": answer.json()["meta"]["created"],
                 "lastModified": answer.json()["meta"]["lastModified"], "location": f"{scim.base}Groups/{group.pk}"}}

    answer = scim.get("Groups", params={"excludedAttributes": "members", "filter": 'displayName eq "displayName"'})
    found = answer.json()["Resources"]
    assert [item["id"] for item in found] == [str(group.pk)] and "members" not in found[0]

    answer = scim.patch(f"Groups/{group.pk}", add_members(alice.pk, bob.pk))
    assert answer.status_code == 204, answer.text
    assert set(group.users.values_list("username", flat=True)) == {"alice", "bob"}
    members = scim.get(f"Groups/{group.pk}").json()["members"]
    assert [member["value"] for member in members] == [str(alice.pk), str(bob.pk)]
    assert scim.get(f"Users/{alice.pk}").json()["groups"][0]["display"] == "displayName"
    assert scim.get("Groups", params={"filter": f'members.value eq "{bob.pk}"'}).json()["totalResults"] == 1

    answer = scim.patch(f"Groups/{group.pk}", remove_members(alice.pk))
    assert answer.status_code == 204
    assert list(group.users.values_list("username", flat=True)) == ["bob"]

    rename = {"schemas": [PATCH], "Operations": [{"op": "Replace", "path": "displayName",
                                                 "value": "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName"}]}
    assert scim.patch(f"Groups/{group.pk}", rename).status_code == 204
    group.refresh_from_db()
    assert group.name == "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName"

    assert scim.delete(f"Groups/{group.pk}").status_code == 204
    assert not PermissionGroup.objects.filter(pk=group.pk).exists()
    bob.refresh_from_db()
    assert bob.deleted_at is None
