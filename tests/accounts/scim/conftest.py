"""SCIM tests run against the live server (pytest-django's ``live_server``: the WSGI application in a thread, on a
free port) over real HTTP, as Entra ID and Okta call it: ``https://<host>/scim/v2/`` as the tenant URL and a personal
access token as the secret."""

from __future__ import annotations

import json

import pytest
import requests

from accounts.services import personal_token_issue
from tests.factories.accounts import UserFactory


class ScimClient:
    """``requests`` against ``<live server>/scim/v2/`` with ``Authorization: Bearer <token>`` and SCIM's content
    type, as the providers send them."""

    def __init__(self, base: str, token: str | None) -> None:
        self.base = base
        self.session = requests.Session()
        self.session.headers["Accept"] = "application/scim+json"
        if token is not None:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, body=None, **kwargs) -> requests.Response:
        headers = kwargs.pop("headers", {})
        data = None
        if body is not None:
            data = json.dumps(body)
            headers.setdefault("Content-Type", "application/scim+json; charset=utf-8")
        return self.session.request(method, self.base + path, data=data, headers=headers, timeout=10, **kwargs)

    def get(self, path: str, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body=None, **kwargs):
        return self.request("POST", path, body, **kwargs)

    def put(self, path: str, body=None, **kwargs):
        return self.request("PUT", path, body, **kwargs)

    def patch(self, path: str, body=None, **kwargs):
        return self.request("PATCH", path, body, **kwargs)

    def delete(self, path: str, **kwargs):
        return self.request("DELETE", path, **kwargs)


@pytest.fixture
def scim_on(settings):
    settings.SCIM_ENABLED = True


@pytest.fixture
def scim_base(live_server) -> str:
    return f"{live_server.url}/scim/v2/"


@pytest.fixture
def scim_client(scim_base):
    made: list[ScimClient] = []

    def make(user=None, token: str | None = None) -> ScimClient:
        if user is not None:
            _record, token = personal_token_issue(user=user, name="SCIM")
        made.append(ScimClient(scim_base, token))
        return made[-1]

    yield make
    for client in made:  # no kept-alive connection holds a server thread (and its database session) open
        client.session.close()


@pytest.fixture
def provisioner(db):
    """The super user whose token the provider holds."""
    return UserFactory(username="scim-admin", superuser=True)


@pytest.fixture
def scim(scim_on, scim_client, provisioner) -> ScimClient:
    return scim_client(provisioner)
