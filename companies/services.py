"""Domain verbs of companies: create, update and delete (rule 9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError

from assetsvc.exceptions import ConflictError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update, save_unique
from companies.counts import blocking_counts
from companies.models import Company

if TYPE_CHECKING:
    from accounts.models import User

COMPANY_NOT_FOUND = "Company not found"
#: Snipe-IT's text, trailing space included (admin/companies/message.assoc_users).
COMPANY_NOT_EMPTY = (
    "This company is currently associated with at least one model and cannot be deleted. Please update your models "
    "to no longer reference this company and try again. "
)
DUPLICATE_NAME = "The name has already been taken."
WRITABLE_FIELDS = ("name", "phone", "fax", "email", "notes", "tag_color")


def _log(*, action: str, company: Company | None, company_id: int, actor: User, meta: dict | None = None) -> None:
    from activity.services import log_action

    log_action(action_type=action, item_type="company", item_id=company_id, actor=actor,
               company_id=company.pk if company is not None else None, log_meta=meta)


def _save(company: Company) -> None:
    """Save, turning the case-insensitive unique constraint (a concurrent create won the name) into the same
    validation error the serializer gives."""
    company.full_clean(validate_constraints=False)
    save_unique(company, lambda exc: ValidationError({"name": [DUPLICATE_NAME]}))


@transaction.atomic
def company_create(*, actor: User, data: dict[str, Any]) -> Company:
    """Create a company from validated input; the caller is recorded as its creator."""
    company = Company(created_by=actor, **{k: v for k, v in data.items() if k in WRITABLE_FIELDS})
    company.notes = company.notes or ""
    _save(company)
    _log(action="create", company=company, company_id=company.pk, actor=actor)
    return company


@transaction.atomic
def company_update(*, actor: User, company: Company, data: dict[str, Any]) -> Company:
    """Partial update: only the supplied fields change; the changed ones are logged with old and new values."""
    company = lock_or_not_found(Company, company, lambda: NotFoundError(COMPANY_NOT_FOUND))
    values = {field: ("" if field == "notes" and value is None else value)
              for field, value in data.items() if field in WRITABLE_FIELDS}
    changes = model_update(company, values)
    if changes:
        _save(company)
        _log(action="update", company=company, company_id=company.pk, actor=actor, meta=changes)
    return company


@transaction.atomic
def company_delete(*, actor: User, company: Company) -> None:
    """Rule 9: delete only an empty company (no live assets, accessories, licenses, components, consumables or
    users). Rows that still reference it otherwise (soft-deleted items or users, locations) also block the delete:
    restoring them later would point at a missing company. Either way the answer is Snipe-IT's conflict message."""
    company = lock_or_not_found(Company, company, lambda: NotFoundError(COMPANY_NOT_FOUND))
    counts = blocking_counts(company.pk)
    if any(counts.values()):
        raise ConflictError(COMPANY_NOT_EMPTY, code="company_not_empty")
    company_id = company.pk
    try:
        with transaction.atomic():
            company.delete()
            if connection.vendor == "postgresql":
                connection.check_constraints()  # deferred FKs: a row added concurrently fails here, not at commit
    except (ProtectedError, IntegrityError) as exc:
        raise ConflictError(COMPANY_NOT_EMPTY, code="company_not_empty") from exc
    _log(action="delete", company=None, company_id=company_id, actor=actor, meta={"name": {"old": company.name,
                                                                                           "new": None}})
