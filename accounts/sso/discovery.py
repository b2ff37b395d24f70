"""The provider's configuration from OpenID Connect Discovery 1.0 (``<issuer>/.well-known/openid-configuration``).

Fetched at the first sign-in (or button click) of each process, not at start-up, so a provider that is down or
unreachable never keeps the service from starting: the sign-in then fails with a message and the next one tries
again. A good answer is kept in the process for :data:`CACHE_SECONDS` (keys rotate through the JWKS endpoint, which
is read at each sign-in; endpoints themselves hardly ever move). The document's ``issuer`` must equal ``OIDC_ISSUER``
(Discovery §4.3), so a misconfigured or spoofed discovery URL is refused.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import requests
from django.conf import settings

CACHE_SECONDS = 3600
_lock = threading.Lock()
_cache: dict[str, tuple[float, ProviderConfig]] = {}


class ProviderUnavailableError(Exception):
    """The discovery document could not be read or is not usable; the message is for the log, not for users."""


@dataclass(frozen=True)
class ProviderConfig:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    userinfo_endpoint: str = ""
    end_session_endpoint: str = ""
    token_auth_methods: tuple[str, ...] = ("client_secret_basic",)


def tls_verify() -> str | bool:
    """``requests``' ``verify``: the CA bundle of ``OIDC_CA_FILE``, else the system's; never off."""
    return getattr(settings, "OIDC_CA_FILE", "") or True


def discovery_url(issuer: str) -> str:
    return f"{issuer.rstrip('/')}/.well-known/openid-configuration"


def provider_config() -> ProviderConfig:
    """The configuration of ``OIDC_ISSUER``, from the cache or fetched now. Raises :class:`ProviderUnavailableError`."""
    issuer = settings.OIDC_ISSUER
    now = time.monotonic()
    with _lock:
        cached = _cache.get(issuer)
        if cached is not None and cached[0] > now:
            return cached[1]
    config = _fetch(issuer)
    with _lock:
        _cache[issuer] = (now + CACHE_SECONDS, config)
    return config


def forget_provider_config() -> None:
    """Drop the cached documents (tests; a changed provider without a restart)."""
    with _lock:
        _cache.clear()


def _fetch(issuer: str) -> ProviderConfig:
    url = discovery_url(issuer)
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT, verify=tls_verify(),
                                headers={"Accept": "application/json"})
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise ProviderUnavailableError(f"discovery document {url} unreadable: {exc}") from exc
    if not isinstance(document, dict):
        raise ProviderUnavailableError(f"discovery document {url} is not a JSON object")
    if str(document.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
        raise ProviderUnavailableError(
            f"discovery document {url} names issuer {document.get('issuer')!r}, not OIDC_ISSUER {issuer!r}")
    missing = [key for key in ("authorization_endpoint", "token_endpoint", "jwks_uri") if not document.get(key)]
    if missing:
        raise ProviderUnavailableError(f"discovery document {url} lacks {', '.join(missing)}")
    methods = document.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    return ProviderConfig(
        issuer=str(document["issuer"]),
        authorization_endpoint=str(document["authorization_endpoint"]),
        token_endpoint=str(document["token_endpoint"]),
        jwks_uri=str(document["jwks_uri"]),
        userinfo_endpoint=str(document.get("userinfo_endpoint") or ""),
        end_session_endpoint=str(document.get("end_session_endpoint") or ""),
        token_auth_methods=tuple(str(method) for method in methods),
    )
