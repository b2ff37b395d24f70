"""Company separation, enforced once, in the queryset layer (specification rules 1 to 6).

Every model that belongs to a company uses :class:`CompanyScopedQuerySet` (``objects = ...as_manager()``); every API
view reaches its rows through ``restrict(user)``, which :class:`assetsvc.api.viewsets.ScopedViewSetMixin` calls for
it, so no view can forget the scoping.
"""

from __future__ import annotations

from django.db import models

from assetsvc.scoping import ScopedQuerySet
from assetsvc.typing import Actor


def separation_applies_to(user: Actor | None) -> bool:
    """True when ``user`` must be limited to their own company's rows (rules 1 to 5).

    Anonymous callers are treated as limited to nothing by :meth:`CompanyScopedQuerySet.restrict`.
    """
    from assetsvc.site import get_site_settings

    if not get_site_settings().full_multiple_companies_support:
        return False  # rule 1
    if user is None or not getattr(user, "is_authenticated", False):
        return True  # rule 5
    if user.is_superuser:
        return False  # rule 2
    return user.company_id is not None  # rules 3 and 4


def may_manage_user_companies(user: Actor | None) -> bool:
    """Rule 8: changing which company a user belongs to is allowed when separation is off, for super users, and for
    callers without a company; everyone else is refused (403, nothing changes)."""
    from assetsvc.site import get_site_settings

    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if not get_site_settings().full_multiple_companies_support:
        return True
    return user.is_superuser or user.company_id is None


def may_change_catalogue_record(user: Actor | None, record_company_id: int | None) -> bool:
    """Issue 25: a shared catalogue record (no company) or another company's is changed only by a caller whom
    separation does not limit (separation off, super users, users without a company); a limited caller changes only
    their own company's records. Code acting for nobody (``user`` None: commands, migrations) is not limited."""
    if user is None:
        return True
    limit = limiting_company_id(user)
    return limit is None or record_company_id == limit


def caller_chooses_company(user: Actor | None) -> bool:
    """Rule 7: whether ``user`` may choose the company of an item they create or change (separation off, or a super
    user). Anyone else's items get their own company (or none), whatever ``company_id`` says."""
    from assetsvc.site import get_site_settings

    if not get_site_settings().full_multiple_companies_support:
        return True
    return user is not None and getattr(user, "is_authenticated", False) and user.is_superuser


def company_id_for_new_item(user: Actor | None, requested_company_id: int | None) -> int | None:
    """Rule 7: the company of an item ``user`` creates (API-CONTRACT.md §7)."""
    return requested_company_id if caller_chooses_company(user) else getattr(user, "company_id", None)


def restrict_to_company(queryset: models.QuerySet, user: Actor | None, action: str = "view") -> models.QuerySet:
    """Rows ``user`` may see and manage: all (separation off, super user, no company), their company's (a user with a
    company), or none (nobody authenticated). ``queryset.company_field`` names the path to the company."""
    if user is None or not getattr(user, "is_authenticated", False):
        return queryset.none()
    if not separation_applies_to(user):
        return queryset
    field = getattr(queryset, "company_field", "company")
    return queryset.filter(**{f"{field}_id": user.company_id})


def limiting_company_id(user: Actor | None) -> int | None:
    """The company a caller is limited to, or None when separation does not limit them."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user.company_id if separation_applies_to(user) else None


class CompanySeparationPolicy:
    """The ``scope_policy`` hook (``assetsvc.registry``): company separation for every ``ScopedQuerySet``."""

    restrict = staticmethod(restrict_to_company)
    limiting_company_id = staticmethod(limiting_company_id)


class CompanyScopedQuerySet(ScopedQuerySet):
    """A queryset whose rows carry a ``company`` and can be limited to what a user may see.

    ``company_field`` names the path to the company id (``"company"`` for most items).
    """

    company_field = "company"

    def restrict(self, user: Actor | None, action: str = "view") -> CompanyScopedQuerySet:
        """Rows ``user`` may see and manage (:func:`restrict_to_company`)."""
        return restrict_to_company(self, user, action)
