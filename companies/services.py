"""Domain verbs of companies: create, update and delete (rule 9)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError

from assetsvc.exceptions import ConflictError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update, save_unique
from assetsvc.typing import Actor
from companies.counts import COUNT_NOUNS, blocking_counts, detach_deleted_rows
from companies.models import Company

COMPANY_NOT_FOUND = "Company not found"
#: Snipe-IT's text (admin/companies/message.assoc_users), naming what blocks instead of "at least one model".
COMPANY_NOT_EMPTY = (
    "This company is currently associated with {what} and cannot be deleted. Please update your {which} to no longer "
    "reference this company and try again."
)


def company_not_empty(parts: list[tuple[int, str, str]]) -> ConflictError:
    """The rule-9 refusal naming what blocks, with the counts in the message: ``parts`` are (count, singular, plural).
    No payload: the specification's error envelope has ``payload: null`` (issue 25)."""
    named = [f"{count} {one if count == 1 else many}" for count, one, many in parts]
    what = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    which = [many for _count, _one, many in parts]
    which_text = which[0] if len(which) == 1 else f"{', '.join(which[:-1])} and {which[-1]}"
    message = COMPANY_NOT_EMPTY.format(what=what, which=which_text)
    return ConflictError(message, code="company_not_empty")
DUPLICATE_NAME = "The name has already been taken."
WRITABLE_FIELDS = ("name", "phone", "fax", "email", "notes", "tag_color")


def _log(*, action: str, company: Company | None, company_id: int, actor: Actor, meta: dict | None = None) -> None:
    from activity.services import log_action

    log_action(action_type=action, item_type="company", item_id=company_id, actor=actor,
               company_id=company.pk if company is not None else None, item=company, log_meta=meta)


def _save(company: Company) -> None:
    """Save, turning the case-insensitive unique constraint (a concurrent create won the name) into the same
    validation error the serializer gives."""
    company.full_clean(validate_constraints=False)
    save_unique(company, lambda exc: ValidationError({"name": [DUPLICATE_NAME]}))


@transaction.atomic
def company_create(*, actor: Actor, data: dict[str, Any], pk: int | None = None, log: bool = True) -> Company:
    """Create a company from validated input; the caller is recorded as its creator (an unsaved caller, such as the
    Snipe-IT import's, as nobody). ``pk`` and ``log=False`` are the Snipe-IT import's (issue 31): the company keeps
    its id, and its history is imported instead of a new ``create`` row."""
    company = Company(created_by=actor if getattr(actor, "pk", None) else None,
                      **{k: v for k, v in data.items() if k in WRITABLE_FIELDS})
    if pk is not None:
        company.pk = pk
    company.notes = company.notes or ""
    _save(company)
    if log:
        _log(action="create", company=company, company_id=company.pk, actor=actor)
    return company


@transaction.atomic
def company_update(*, actor: Actor, company: Company, data: dict[str, Any]) -> Company:
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
def company_delete(*, actor: Actor, company: Company) -> None:
    """Rule 9: delete only a company with no live assets, accessories, licenses, components, consumables or users
    (as Snipe-IT's ``isDeletable``, archived assets included); the refusal names what blocks. Soft-deleted items and
    users do not block: they stop pointing at the company (logged). Anything else that still references it (a
    location) refuses the delete, named the same way."""
    company = lock_or_not_found(Company, company, lambda: NotFoundError(COMPANY_NOT_FOUND))
    counts = blocking_counts(company.pk)
    blocking = [(count, *COUNT_NOUNS[name]) for name, count in counts.items() if count]
    if blocking:
        raise company_not_empty(blocking)
    company_id = company.pk
    detached = detach_deleted_rows(company_id)
    try:
        with transaction.atomic():
            company.delete()
            if connection.vendor == "postgresql":
                connection.check_constraints()  # deferred FKs: a row added concurrently fails here, not at commit
    except ProtectedError as exc:
        raise company_not_empty(_protected_parts(exc.protected_objects)) from exc
    except IntegrityError as exc:  # a row added by a concurrent request, caught by the deferred check
        raise company_not_empty([(1, "record", "records")]) from exc
    meta: dict = {"name": {"old": company.name, "new": None}}
    if detached:
        meta["detached_deleted_rows"] = detached
    _log(action="delete", company=None, company_id=company_id, actor=actor, meta=meta)


def _protected_parts(objects) -> list[tuple[int, str, str]]:
    counts: dict[type, int] = {}
    for obj in objects:
        counts[type(obj)] = counts.get(type(obj), 0) + 1
    return [(count, str(model._meta.verbose_name), str(model._meta.verbose_name_plural))
            for model, count in counts.items()]
