"""Departments under concurrency (PostgreSQL): a user put in a department while it is deleted, and two creates of the
same name at the same place. Real tokens, released together by a barrier (``tests/inventory/test_concurrency.py``)."""

from __future__ import annotations

import pytest

from accounts.models import Department, User
from tests.factories import CompanyFactory, DepartmentFactory, LocationFactory, UserFactory
from tests.inventory.test_concurrency import clients, run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
THREADS = 6


@pytest.mark.parametrize("round_", range(3))
def test_delete_and_assignment_never_leave_a_user_in_a_deleted_department(round_):
    department = DepartmentFactory()
    people = [UserFactory() for _ in range(THREADS - 1)]
    http = clients(THREADS)
    calls = [lambda c=http[0]: c.delete(f"/api/v1/departments/{department.pk}")]
    calls += [(lambda c=c, p=p: c.patch(f"/api/v1/users/{p.pk}", {"department_id": department.pk}, format="json"))
              for c, p in zip(http[1:], people, strict=True)]
    results = run_together(calls)
    assert all(not isinstance(r, Exception) and r.status_code == 200 for r in results), results
    deleted = results[0].json()["status"] == "success"
    joined = [r.json()["status"] == "success" for r in results[1:]]
    members = User.objects.filter(department_id=department.pk).count()
    if deleted:
        # every join came after the delete: refused as an unknown department
        assert not Department.objects.filter(pk=department.pk).exists() and members == 0 and not any(joined)
        assert all("department_id" in r.json()["messages"] for r in results[1:])
    else:
        assert Department.objects.filter(pk=department.pk).exists() and members == sum(joined) >= 1


def test_concurrent_creates_of_one_name_at_one_place_have_one_winner():
    company, location = CompanyFactory(), LocationFactory()
    body = {"name": "Finance", "company_id": company.pk, "location_id": location.pk}
    results = run_together([lambda c=c: c.post("/api/v1/departments", body, format="json")
                            for c in clients(THREADS)])
    assert sum(r.json()["status"] == "success" for r in results) == 1, [r.json() for r in results]
    assert Department.objects.filter(name="Finance").count() == 1
