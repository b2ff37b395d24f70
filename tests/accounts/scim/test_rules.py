"""The rules around SCIM: the ``SCIM_ENABLED`` gate, bearer authentication and SCIM's error shape, the right to manage
users, company separation, nobody raising their own rights through groups, the filters and the discovery
documents. Through HTTP with the Django test client (the provider sequences run on the live server: test_entra.py,
test_okta.py)."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from accounts.models import PermissionGroup, User
from accounts.services import personal_token_issue, personal_token_revoke
from activity.models import ActionLog
from tests.factories.accounts import UserFactory
from tests.factories.companies import CompanyFactory

ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
MANAGER = {"users.view": 1, "users.create": 1, "users.edit": 1, "users.delete": 1}


class Scim(APIClient):
    def __init__(self, user=None, token=None):
        super().__init__()
        self.user = user
        if user is not None:
            self.record, token = personal_token_issue(user=user, name="SCIM")
        if token is not None:
            self.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    def send(self, method: str, path: str, body=None, **extra):
        kwargs = {}
        if method == "get":
            kwargs = {"data": body}
        elif body is not None:
            kwargs = {"data": json.dumps(body), "content_type": "application/scim+json"}
        return getattr(self, method)(f"/scim/v2/{path}", **kwargs, **extra)


def new_user(name: str) -> dict:
    return {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": name,
            "name": {"givenName": "New", "familyName": "Person"},
            "emails": [{"value": f"{name}@example.com", "type": "work", "primary": True}], "active": True}


@pytest.fixture
def scim_on(settings):
    settings.SCIM_ENABLED = True


@pytest.fixture
def admin(db):
    return UserFactory(username="provisioner", superuser=True)


def test_off_by_default_answers_the_ordinary_404_and_writes_nothing(db, admin):
    client = Scim(admin)
    for path in ("Users", "Groups", "ServiceProviderConfig", ""):
        answer = client.send("get", path)
        assert answer.status_code == 404
        assert answer.content == client.get("/nothing-here/").content  # the same page as any unknown path
    assert client.send("post", "Users", new_user("ghost")).status_code == 404
    assert not User.objects.filter(username="ghost").exists()


def test_authentication_errors_in_scim_shape(scim_on, admin):
    answer = Scim().send("get", "Users")
    assert answer.status_code == 401
    assert answer.json()["schemas"] == [ERROR] and answer.json()["status"] == "401"
    assert answer["WWW-Authenticate"] == 'Bearer realm="scim"'
    assert Scim(token="not-a-token").send("get", "Users").json() == {
        "schemas": [ERROR], "status": "401", "detail": "The token is invalid or has expired."}
    client = Scim(admin)
    assert client.send("get", "Users").status_code == 200
    personal_token_revoke(user=admin, token_id=client.record.pk)
    assert client.send("get", "Users").status_code == 401


def test_only_user_managers(scim_on, db):
    viewer = UserFactory(permissions={"users.view": 1, "users.create": 1, "users.edit": 1})
    answer = Scim(viewer).send("get", "Users")
    assert answer.status_code == 403
    assert answer.json() == {"schemas": [ERROR], "status": "403", "detail": "Insufficient permissions."}
    assert Scim(viewer).send("post", "Users", new_user("x")).status_code == 403
    manager = UserFactory(permissions=MANAGER)
    assert Scim(manager).send("get", "Users").status_code == 200
    # groups are permission groups: a super user's business, as /api/v1/groups
    assert Scim(manager).send("get", "Groups").status_code == 403
    assert Scim(manager).send("post", "Groups", {"displayName": "g"}).status_code == 403
    assert not PermissionGroup.objects.exists()


def test_company_separation(scim_on, fmcs_on):
    mine, theirs = CompanyFactory(name="Mine"), CompanyFactory(name="Theirs")
    manager = UserFactory(username="boss", company=mine, permissions=MANAGER)
    colleague = UserFactory(username="colleague", company=mine)
    stranger = UserFactory(username="stranger", company=theirs)
    client = Scim(manager)

    answer = client.send("post", "Users", new_user("hired"))
    assert answer.status_code == 201, answer.content
    assert User.objects.get(username="hired").company_id == mine.pk

    listed = client.send("get", "Users").json()
    assert {item["userName"] for item in listed["Resources"]} == {"boss", "colleague", "hired"}
    assert client.send("get", "Users", {"filter": 'userName eq "stranger"'}).json()["totalResults"] == 0
    assert client.send("get", f"Users/{stranger.pk}").status_code == 404
    patch = {"schemas": [PATCH], "Operations": [{"op": "replace", "path": "active", "value": False}]}
    assert client.send("patch", f"Users/{stranger.pk}", patch).status_code == 404
    assert client.send("delete", f"Users/{stranger.pk}").status_code == 404
    stranger.refresh_from_db()
    assert stranger.is_active
    assert client.send("patch", f"Users/{colleague.pk}", patch).status_code == 200
    # a department the directory names is found or created in the user's company
    department = {"schemas": [PATCH], "Operations": [{"op": "add", "value": {
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department": "Ops"}}]}
    assert client.send("patch", f"Users/{colleague.pk}", department).status_code == 200
    colleague.refresh_from_db()
    assert (colleague.department.name, colleague.department.company_id) == ("Ops", mine.pk)


def test_no_takeover_and_no_self_deactivation(scim_on, db):
    manager = UserFactory(permissions=MANAGER)
    boss = UserFactory(username="root", superuser=True)
    client = Scim(manager)
    patch = {"schemas": [PATCH], "Operations": [{"op": "replace", "path": "active", "value": False}]}
    assert client.send("patch", f"Users/{boss.pk}", patch).status_code == 403
    boss.refresh_from_db()
    assert boss.is_active
    answer = client.send("patch", f"Users/{manager.pk}", patch)
    assert answer.status_code == 400 and answer.json()["status"] == "400"
    manager.refresh_from_db()
    assert manager.is_active


def test_a_token_cannot_raise_its_own_rights(scim_on, admin):
    powerful = PermissionGroup.objects.create(name="Everything", permissions={"superuser": 1})
    limited = UserFactory(permissions=MANAGER)
    add_self = {"schemas": [PATCH], "Operations": [{"op": "add", "path": "members",
                                                    "value": [{"value": str(admin.pk)}]}]}
    answer = Scim(admin).send("patch", f"Groups/{powerful.pk}", add_self)
    assert answer.status_code == 403 and answer.json()["schemas"] == [ERROR]
    assert not powerful.users.exists()
    # a manager who is not a super user changes no group at all, not even to add themselves
    add_limited = {"schemas": [PATCH], "Operations": [{"op": "add", "path": "members",
                                                       "value": [{"value": str(limited.pk)}]}]}
    assert Scim(limited).send("patch", f"Groups/{powerful.pk}", add_limited).status_code == 403
    assert not powerful.users.exists()
    # a group that grants something is not deleted by the directory
    answer = Scim(admin).send("delete", f"Groups/{powerful.pk}")
    assert answer.status_code == 409 and answer.json()["scimType"] == "mutability"
    assert PermissionGroup.objects.filter(pk=powerful.pk).exists()
    # a super user may put someone else in an existing group (the explicit mapping)
    assert Scim(admin).send("patch", f"Groups/{powerful.pk}", add_limited).status_code == 204
    assert list(powerful.users.all()) == [limited]


def test_writes_are_in_the_action_log(scim_on, admin):
    answer = Scim(admin).send("post", "Users", new_user("logged"))
    user = User.objects.get(username="logged")
    assert answer.status_code == 201
    assert ActionLog.objects.filter(item_type="user", item_id=user.pk, action_type="create").exists()
    Scim(admin).send("delete", f"Users/{user.pk}")
    assert ActionLog.objects.filter(item_type="user", item_id=user.pk, action_type="update").exists()


@pytest.mark.parametrize("text", [
    'userName eq "a" or userName eq "b"', 'userName co "a"', 'title eq "x"', 'userName eq', "not (active eq true)",
    'active eq "yes"',
])
def test_unsupported_filters_are_refused(scim_on, admin, text):
    answer = Scim(admin).send("get", "Users", {"filter": text})
    assert answer.status_code == 400
    assert answer.json()["scimType"] == "invalidFilter"


def test_supported_filters(scim_on, admin):
    UserFactory(username="Jane.Doe", email="jane@example.com", external_id="ext-1", is_active=False)
    client = Scim(admin)

    def total(text):
        return client.send("get", "Users", {"filter": text}).json()["totalResults"]

    assert total('userName eq "jane.doe"') == 1
    assert total('externalId eq "ext-1"') == 1 and total('externalId eq "EXT-1"') == 0
    assert total('emails[type eq "work"].value eq "jane@example.com"') == 1
    assert total('userName eq "jane.doe" and active eq false') == 1
    assert total('userName eq "jane.doe" and active eq true') == 0
    assert total('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "Jane.Doe"') == 1


def test_bad_bodies(scim_on, admin):
    client = Scim(admin)
    unknown = {"schemas": [PATCH], "Operations": [{"op": "replace", "path": "shoeSize", "value": "44"}]}
    answer = client.send("patch", f"Users/{admin.pk}", unknown)
    assert answer.status_code == 400 and answer.json()["scimType"] == "invalidPath"
    answer = client.send("patch", f"Users/{admin.pk}", {"schemas": [PATCH], "Operations": [{"op": "move"}]})
    assert answer.status_code == 400 and answer.json()["scimType"] == "invalidSyntax"
    answer = client.post("/scim/v2/Users", data="{not json", content_type="application/scim+json")
    assert answer.status_code == 400 and answer.json()["scimType"] == "invalidSyntax"
    answer = client.send("post", "Users", {"schemas": [], "name": {}})
    assert answer.status_code == 400 and answer.json()["scimType"] == "invalidValue"
    answer = client.send("post", "Users", new_user("mailless") | {"emails": [{"value": "not-an-address"}]})
    assert answer.status_code == 400 and answer.json()["scimType"] == "invalidValue"
    assert not User.objects.filter(username="mailless").exists()
    big = new_user("big") | {"title": "x" * (1024 * 1024)}
    answer = client.send("post", "Users", big)
    assert answer.status_code == 413 and answer.json()["status"] == "413"
    assert not User.objects.filter(username="big").exists()
    answer = client.send("get", "Nope")
    assert answer.status_code == 404 and answer.json()["schemas"] == [ERROR]


def test_discovery(scim_on, admin):
    client = Scim(admin)
    config = client.send("get", "ServiceProviderConfig")
    assert config.status_code == 200 and config["Content-Type"] == "application/scim+json"
    body = config.json()
    assert body["patch"] == {"supported": True} and body["filter"]["supported"] is True
    assert body["bulk"]["supported"] is False and body["authenticationSchemes"][0]["type"] == "oauthbearertoken"
    types = client.send("get", "ResourceTypes").json()
    assert [item["id"] for item in types["Resources"]] == ["User", "Group"]
    assert client.send("get", "ResourceTypes/User").json()["endpoint"] == "/Users"
    schemas = client.send("get", "Schemas").json()
    assert {item["id"] for item in schemas["Resources"]} == {
        "urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
        "urn:ietf:params:scim:schemas:core:2.0:Group"}
    user_schema = client.send("get", "Schemas/urn:ietf:params:scim:schemas:core:2.0:User").json()
    assert "userName" in [attribute["name"] for attribute in user_schema["attributes"]]
    # with or without the trailing slash (Entra appends "Users" to the tenant URL, Okta "/Users" to the base)
    assert client.send("get", "Users/").status_code == 200
