"""The base of every company-scoped queryset, below the apps that know what a company is.

``ScopedQuerySet.restrict(user, action)`` is the one way the API reads rows that belong to a company. The rules
(specification rules 1 to 6) live in ``companies.querysets``, which registers them as the ``scope_policy`` hook at
start-up; lower layers (the action log) and the framework (base viewsets, brief references) use them through this
module without importing ``companies``. With no policy registered, ``restrict`` fails closed (no rows).
"""

from __future__ import annotations

from typing import Any, Protocol

from django.db import models

from assetsvc.registry import registry


class ScopePolicy(Protocol):
    def restrict(self, queryset: models.QuerySet, user: Any, action: str) -> models.QuerySet: ...

    def limiting_company_id(self, user: Any) -> int | None: ...


def _policy() -> ScopePolicy | None:
    return registry.get("scope_policy")


class ScopedQuerySet(models.QuerySet):
    """A queryset whose rows carry a company (``company_field`` names the path to it) and can be limited to what a
    user may see."""

    company_field = "company"

    def restrict(self, user: Any, action: str = "view") -> ScopedQuerySet:
        policy = _policy()
        if policy is None:
            return self.none()
        return policy.restrict(self, user, action)


def limiting_company_id(user: Any) -> int | None:
    """The company ``user`` is limited to, or None when separation does not limit them (nothing is hidden)."""
    policy = _policy()
    return policy.limiting_company_id(user) if policy is not None else None


def hidden_company(limit_company_id: int | None, company_id: int | None) -> bool:
    """True when a reference to ``company_id`` must be answered as null for a caller limited to ``limit_company_id``
    (references without a company stay visible)."""
    return limit_company_id is not None and company_id is not None and company_id != limit_company_id
