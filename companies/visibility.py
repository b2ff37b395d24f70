"""Nested references under company separation.

Lists and details are scoped by ``restrict``; this covers what a visible record *points at*: the user who created a
global catalogue entry, a location's manager or company. With separation on, a caller limited to company A must not
learn the names or addresses of company B's people or of company B itself through such a reference, so it is
answered as ``null``. References without a company (super users, company-less users) stay visible.
"""

from __future__ import annotations

from typing import Any

from companies.querysets import limiting_company_id

__all__ = ["hidden_from", "limiting_company_id"]


def hidden_from(limit_company_id: int | None, obj: Any) -> bool:
    """True when ``obj`` (a Company, or a row with ``company_id``) belongs to another company than the limit."""
    if obj is None or limit_company_id is None:
        return False
    from companies.models import Company

    company_id = obj.pk if isinstance(obj, Company) else getattr(obj, "company_id", None)
    return company_id is not None and company_id != limit_company_id
