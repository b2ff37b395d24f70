"""The caller's address, for the anonymous rate-limit bucket and the action log's ``remote_ip``.

Behind a proxy ``REMOTE_ADDR`` is the proxy, so every caller would share one bucket and one logged address; but
``X-Forwarded-For`` is written by whoever sends the request, so it can only be believed as far as it was appended
by proxies the operator trusts. ``TRUSTED_PROXIES`` says which (README.md, docs/operations.md "Behind a proxy"):

- empty (the default): ``X-Forwarded-For`` is ignored; the address is ``REMOTE_ADDR``.
- a count ``N``: every request passes through exactly ``N`` proxies (the service is not reachable directly); the
  client is the address the outermost of them saw, the ``N``-th entry from the right of the chain
  ``X-Forwarded-For + REMOTE_ADDR``. A chain shorter than that did not come through them: ``REMOTE_ADDR``.
- addresses or networks (``10.0.0.5, 10.1.0.0/16``): the chain is walked from ``REMOTE_ADDR`` leftwards while the
  address is trusted; the first untrusted one is the client. A direct caller (``REMOTE_ADDR`` untrusted) is always
  its own address, whatever it sends.

An entry that is not an IP address stops the walk at the trusted proxy that passed it on, so a caller can never
put an arbitrary string into the log or pick an arbitrary bucket name. Only the standard library is imported:
the settings module validates the variable with :func:`parse_trusted_proxies` at start-up.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
TrustedProxies = int | tuple[Network, ...]


@lru_cache(maxsize=16)
def parse_trusted_proxies(value: str) -> TrustedProxies:
    """``""`` → ``0`` (none); ``"2"`` → ``2``; ``"10.0.0.5, 10.1.0.0/16"`` → those networks. Raises ``ValueError``
    naming the entry that is neither, so a typo fails at start-up instead of silently trusting nobody."""
    value = (value or "").strip()
    if not value:
        return 0
    if value.isdigit():
        return int(value)
    networks = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as exc:
            raise ValueError(f"TRUSTED_PROXIES must be a number of proxies or a comma-separated list of addresses "
                             f"and networks, got {item!r}") from exc
    return tuple(networks)


def _as_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address as proxies write it: ``192.0.2.1``, ``2001:db8::1``, with a port (``192.0.2.1:4711``,
    ``[2001:db8::1]:4711``) or brackets; ``None`` for anything else (``unknown``, garbage)."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def client_address(meta: dict, trusted: str) -> str:
    """The client's address from a request's ``META`` (``REMOTE_ADDR``, ``HTTP_X_FORWARDED_FOR``) and the raw
    ``TRUSTED_PROXIES`` value (see the module docstring). Several ``X-Forwarded-For`` headers arrive joined by
    commas, which is the same chain."""
    remote = meta.get("REMOTE_ADDR", "") or ""
    proxies = parse_trusted_proxies(trusted)
    forwarded = meta.get("HTTP_X_FORWARDED_FOR", "") or ""
    if not proxies or not forwarded.strip():
        return remote
    chain = [entry.strip() for entry in forwarded.split(",")]
    if isinstance(proxies, int) and len(chain) < proxies:
        return remote  # fewer hops than configured: not through the proxies, the header is the caller's own
    current = remote
    for hop, entry in enumerate(reversed(chain)):
        if not _is_trusted(current, hop, proxies):
            return current
        address = _as_ip(entry)
        if address is None:  # stop at the proxy that passed an unusable entry on
            return current
        current = str(address)
    return current


def _is_trusted(address: str, hop: int, proxies: TrustedProxies) -> bool:
    """Whether ``address``, ``hop`` steps left of ``REMOTE_ADDR``, is one of the operator's proxies."""
    if isinstance(proxies, int):
        return hop < proxies
    ip = _as_ip(address)
    return ip is not None and any(ip in network for network in proxies)


def forwarded_proto_believed(meta: dict, trusted: str) -> bool:
    """Whether ``X-Forwarded-Proto`` may say how the client connected (``APP_FORCE_TLS``). With addresses in
    ``TRUSTED_PROXIES`` only a request from one of them is believed: a direct caller cannot claim HTTPS. With a count,
    the service is reachable only through the proxies; with none, ``APP_FORCE_TLS`` alone trusts the header
    (docs/operations.md, "Behind a proxy")."""
    proxies = parse_trusted_proxies(trusted)
    if isinstance(proxies, int):
        return True
    return _is_trusted(meta.get("REMOTE_ADDR", "") or "", 0, proxies)
