"""A real OpenID provider for the single sign-on tests: ``tests/oidc_provider`` (django-oauth-toolkit with OpenID
Connect on) in its own process on a free loopback port, its own SQLite database in a temporary folder, a fresh RSA
key, one confidential client whose redirect URI is the live server's ``/oidc/callback/``, and the people of
:data:`PEOPLE`. One per test session (package fixtures import it: ``from tests.oidc_provider.fixtures import
oidc_provider``); ``sso_on`` points the service at it for one test.

It needs nothing but the project's virtual environment, so it never skips: a provider that does not start fails
the test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID = "asset-service"
CLIENT_SECRET = "provider-test-secret"  # noqa: S105 - the throw-away test provider's client
PASSWORD = "provider password 1"  # noqa: S105

#: The provider's people: username → claims (every one signs in with :data:`PASSWORD`).
PEOPLE: dict[str, dict] = {
    "alice": {"email": "alice@example.com", "email_verified": True, "preferred_username": "alice.sso",
              "given_name": "Alice", "family_name": "Smith"},
    "newbie": {"email": "newbie@example.com", "email_verified": True, "preferred_username": "newbie",
               "given_name": "Nora", "family_name": "Newbie"},
    "unverified": {"email": "carol@example.com", "email_verified": False, "preferred_username": "carol.sso"},
    "byname": {"preferred_username": "dan"},
    "root": {"email": "root@example.com", "email_verified": True, "preferred_username": "root.sso",
             "given_name": "Changed", "family_name": "ByClaims"},
}


@dataclass(frozen=True)
class Provider:
    issuer: str
    client_id: str
    client_secret: str
    process: subprocess.Popen


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rsa_private_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@pytest.fixture(scope="session")
def oidc_provider(live_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("oidc-provider")
    port = free_port()
    config = {
        "port": port, "dir": str(folder), "rsa_private_key": rsa_private_key_pem(),
        "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
        "redirect_uris": [f"{live_server.url}/oidc/callback/"],
        "post_logout_redirect_uris": [f"{live_server.url}/admin/login/"],
        "users": [{"username": name, "password": PASSWORD, "claims": claims} for name, claims in PEOPLE.items()],
    }
    config_path = folder / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    log = (folder / "provider.log").open("w")
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    process = subprocess.Popen([sys.executable, "-m", "tests.oidc_provider.serve", str(config_path)], cwd=ROOT,
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    issuer = f"http://127.0.0.1:{port}/o"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"the test OpenID provider exited: {(folder / 'provider.log').read_text()[-2000:]}")
            try:
                if requests.get(f"{issuer}/.well-known/openid-configuration", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the test OpenID provider did not start: {(folder / 'provider.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield Provider(issuer=issuer, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def sso_on(oidc_provider, settings):
    """Single sign-on against the test provider for one test (the settings a deployment sets by environment)."""
    from accounts.sso.discovery import forget_provider_config

    settings.OIDC_ISSUER = oidc_provider.issuer
    settings.OIDC_CLIENT_ID = settings.OIDC_RP_CLIENT_ID = oidc_provider.client_id
    settings.OIDC_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET = oidc_provider.client_secret
    settings.OIDC_CREATE_USERS = False
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, "accounts.sso.backend.SSOBackend"]
    forget_provider_config()
    yield oidc_provider
    forget_provider_config()
