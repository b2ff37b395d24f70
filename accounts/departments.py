"""Domain verbs of departments: create, update and delete (Snipe-IT's ``DepartmentsController``), each in one
transaction, with the row locked and one action-log row (``item_type`` "department"). The API and the admin call
them; their input has been validated by ``accounts.api.departments.DepartmentWriteSerializer``.

Company rules (docs/companies-and-users.md "Departments"): departments are company-scoped like users; a caller limited
by separation creates departments of their own company only (rule 7), and a department with a company holds users of
that company only (:func:`ensure_department_fits`, checked from both sides: the user's writes and the department's
company change).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.models import Department, User
from assetsvc.exceptions import ConflictError, NotFoundError
from assetsvc.services import lock_or_not_found, model_update, save_unique
from assetsvc.typing import Actor
from companies.querysets import caller_chooses_company, company_id_for_new_item

DEPARTMENT_NOT_FOUND = "Department does not exist."
#: Snipe-IT's admin/departments/message.department_already_exists (its ``is_unique_department`` rule).
DEPARTMENT_EXISTS = ("A department already exists with that name at this company location. Or choose a more specific "
                     "name for this department.")
#: Snipe-IT's admin/departments/message.assoc_users.
DEPARTMENT_HAS_USERS = ("This department is currently associated with at least one user and cannot be deleted. Please "
                        "update your users to no longer reference this department and try again.")
DEPARTMENT_OTHER_COMPANY = "The department belongs to another company than the user."
DEPARTMENT_USERS_OF_OTHER_COMPANY = ("This department has users of another company. Move them to another department "
                                     "or company first.")
WRITABLE_FIELDS = ("name", "phone", "fax", "notes", "company", "location", "manager")
TEXT_FIELDS = ("phone", "fax", "notes")


def department_name_taken(*, name: str, company_id: int | None, location_id: int | None,
                          exclude_pk: int | None = None) -> bool:
    """Snipe-IT's ``is_unique_department``: the name (ignoring case) is taken at the same company and location; a
    department without a company or a location never clashes."""
    if company_id is None or location_id is None:
        return False
    queryset = Department.objects.filter(name__iexact=name, company_id=company_id, location_id=location_id)
    if exclude_pk is not None:
        queryset = queryset.exclude(pk=exclude_pk)
    return queryset.exists()


def ensure_department_fits(*, department: Department | None, company_id: int | None,
                           field: str = "department_id") -> None:
    """A department with a company takes only users of that company (a department without a company takes anyone).
    Snipe-IT does not check; a user shown in another company's department would leak across separation, so the
    mismatch is a field error (docs/decisions.md)."""
    if department is not None and department.company_id is not None and department.company_id != company_id:
        raise ValidationError({field: [DEPARTMENT_OTHER_COMPANY]})


def _log(*, action: str, department: Department, department_id: int, actor: Actor,
         meta: dict | None = None) -> None:
    from activity.services import log_action

    log_action(action_type=action, item_type="department", item_id=department_id, actor=actor,
               company_id=department.company_id, item=department, log_meta=meta)


def _save(department: Department) -> None:
    """Check the name rule, then save; a concurrent writer that took the name first trips the database constraint,
    which answers the same field error."""
    if department_name_taken(name=department.name, company_id=department.company_id,
                             location_id=department.location_id, exclude_pk=department.pk):
        raise ValidationError({"name": [DEPARTMENT_EXISTS]})
    department.full_clean(validate_constraints=False)
    save_unique(department, lambda exc: ValidationError({"name": [DEPARTMENT_EXISTS]}))


def _values(data: dict[str, Any]) -> dict[str, Any]:
    return {field: ("" if field in TEXT_FIELDS and value is None else value)
            for field, value in data.items() if field in WRITABLE_FIELDS}


@transaction.atomic
def department_create(*, actor: Actor, data: dict[str, Any], pk: int | None = None, log: bool = True) -> Department:
    """Create a department; rule 7 picks its company (a caller limited by separation gets their own). ``pk`` and
    ``log=False``: the Snipe-IT import (issue 31) keeps the id and imports the history instead."""
    values = _values(data)
    company = values.pop("company", None)
    department = Department(created_by=actor if getattr(actor, "pk", None) else None, **values)
    if pk is not None:
        department.pk = pk
    department.company_id = company_id_for_new_item(actor, company.pk if company is not None else None)
    _save(department)
    if log:
        _log(action="create", department=department, department_id=department.pk, actor=actor)
    return department


@transaction.atomic
def department_update(*, actor: Actor, department: Department, data: dict[str, Any]) -> Department:
    """Partial update; changed columns are logged with old and new values. Only a caller who may choose companies
    (rule 7) moves a department to another company, and not while it has users of another company."""
    department = lock_or_not_found(Department, department.pk, lambda: NotFoundError(DEPARTMENT_NOT_FOUND))
    values = _values(data)
    if "company" in values and not caller_chooses_company(actor):
        values.pop("company")
    if "company" in values:
        new_company_id = values["company"].pk if values["company"] is not None else None
        if new_company_id is not None and new_company_id != department.company_id:
            others = User.objects.alive().filter(department=department).exclude(company_id=new_company_id)
            if others.exists():
                raise ValidationError({"company_id": [DEPARTMENT_USERS_OF_OTHER_COMPANY]})
    changes = model_update(department, values)
    if changes:
        _save(department)
        _log(action="update", department=department, department_id=department.pk, actor=actor, meta=changes)
    return department


@transaction.atomic
def department_delete(*, actor: Actor, department: Department) -> None:
    """Delete a department without live users (Snipe-IT counts its users, soft-deleted ones left out; theirs are
    cleared by the foreign key). Every live user counts, also those the caller cannot see."""
    department = lock_or_not_found(Department, department.pk, lambda: NotFoundError(DEPARTMENT_NOT_FOUND))
    if User.objects.alive().filter(department=department).exists():
        raise ConflictError(DEPARTMENT_HAS_USERS, code="department_has_users")
    department_id = department.pk
    meta = {"name": {"old": department.name, "new": None}}
    department.delete()
    _log(action="delete", department=department, department_id=department_id, actor=actor, meta=meta)
