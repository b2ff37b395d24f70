"""What lower layers learn from the apps above them, filled at start-up (NetBox ``netbox/registry.py``).

A module may import only from its own layer or below (``make lint`` checks it with import-linter). When a low layer
must act on something an upper app owns (resolve a bearer token, evaluate a permission key, restrict a queryset to
a company, count what a user or a company holds), the upper app registers it here in ``AppConfig.ready()`` and the
low layer looks it up at call time. Nothing is registered at import time, so the order apps load in does not matter.

Keys (who fills them):

- ``bearer_resolver``: ``accounts`` -- ``(request) -> result`` with ``.user`` (the rate limiter's key).
- ``permission_checker``: ``accounts`` -- ``(user, key) -> bool``.
- ``permission_keys``: ``accounts`` -- every permission key a view may name.
- ``scope_policy``: ``companies`` -- how ``ScopedQuerySet.restrict`` and brief references hide other companies.
- ``company_counts``: ``accounts``, ``inventory`` -- see ``companies.counts``.
- ``user_holdings``: ``inventory`` -- see ``accounts.holdings``.
- ``file_kinds``: ``accounts``, ``inventory`` -- the kinds of record that hold files, see ``activity.files``.
- ``directory_lookups``: ``inventory`` -- ``location``: a location by name for the directory sync
  (``accounts.ldap.services``).
- ``readiness_checks``: ``notifications`` -- see ``assetsvc.health``.
- ``portal_pages``: ``inventory`` -- the employees' pages under ``/account/``, see ``accounts.portal.pages``.
- ``mail_sender``: ``notifications`` -- ``queue_mail``'s keyword arguments (``to``, ``subject``, ``template``,
  ``context``, ``event``, ``user``): a mail through the durable queue, for a lower app (``accounts``' password
  reset, issue 30).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.core.exceptions import ImproperlyConfigured


class Registry(dict):
    """A dict whose stores are created once and never replaced (``registry["x"] = ...`` twice is an error)."""

    def __getitem__(self, key: str) -> Any:
        try:
            return super().__getitem__(key)
        except KeyError as exc:
            raise ImproperlyConfigured(f"nothing registered for {key!r}: is its app in INSTALLED_APPS?") from exc


registry = Registry()
#: Single hooks: one provider each.
HOOKS = ("bearer_resolver", "permission_checker", "permission_keys", "scope_policy", "mail_sender")
#: Ordered stores many apps add to: ``name -> {key: entry}``.
STORES: defaultdict[str, dict[str, Any]] = defaultdict(dict)


def register_hook(name: str, value: Any) -> None:
    if name not in HOOKS:
        raise ImproperlyConfigured(f"unknown hook {name!r}")
    if name in registry and registry[name] is not value:
        raise ImproperlyConfigured(f"{name!r} is already registered")
    registry[name] = value


def hook(name: str) -> Any:
    return registry[name]


def register_entry(store: str, key: str, entry: Any) -> None:
    """Add ``entry`` under ``key`` in ``store`` (re-registering the same key replaces it: ``ready()`` may run twice in
    tests)."""
    STORES[store][key] = entry


def entries(store: str) -> dict[str, Any]:
    return STORES[store]
