"""``/departments`` on the shared API test mixins (``tests/api_mixins.py``): CRUD, select list, name rules, the
delete guard, permissions and the query budget; company separation through ``SCOPED_RESOURCES``. Then what the mixins
do not cover: Snipe-IT's record shape checked against the schema, filters and sorts, the scoped users count, bad input
writing nothing, and ``department_id`` on users."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.api.departments import DepartmentViewSet
from accounts.departments import DEPARTMENT_EXISTS, DEPARTMENT_HAS_USERS, DEPARTMENT_OTHER_COMPANY
from accounts.models import Department, User
from activity.models import ActionLog
from tests.api.test_record_schemas import assert_described, openapi, record_properties  # noqa: F401 (fixture)
from tests.api_mixins import (
    CrudAPITests,
    DeleteGuardTests,
    NameRulesTests,
    PermissionTests,
    QueryBudgetTests,
    SelectListTests,
    error_of,
    http_errors,
)
from tests.factories import CompanyFactory, DepartmentFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/departments"
ALL_KEYS = {"departments.view": 1, "departments.create": 1, "departments.edit": 1, "departments.delete": 1}


class TestDepartmentsAPI(CrudAPITests, PermissionTests, SelectListTests, NameRulesTests, DeleteGuardTests,
                         QueryBudgetTests):
    url = URL
    viewset = DepartmentViewSet
    section = "departments"
    model = Department
    factory = DepartmentFactory
    item_type = "department"
    scoped = True
    record_keys = {"phone", "fax", "image", "company", "manager", "location", "users_count", "notes", "created_by"}
    selectlist_key = "users.create"

    not_found_message = "Department does not exist."
    created_message = "Department created successfully."
    updated_message = "Department updated successfully."
    delete_message = "The department was deleted successfully."
    guard_message = DEPARTMENT_HAS_USERS

    def create_payload(self) -> dict[str, Any]:
        # Snipe-IT's name rule applies within one company and location: the payload names both, and
        # ``clash_kwargs`` makes rows at the same place.
        self._place = {"company": CompanyFactory(), "location": LocationFactory()}
        return {"name": "Finance", "company_id": self._place["company"].pk,
                "location_id": self._place["location"].pk, "phone": "555-0100"}

    @property
    def clash_kwargs(self) -> dict[str, Any]:  # type: ignore[override]
        return dict(self._place)

    def make_in_use(self, obj) -> None:
        UserFactory(department=obj, company=obj.company)

    def make_listed(self) -> None:
        company = CompanyFactory()
        department = DepartmentFactory(company=company, location=LocationFactory(),
                                       manager=UserFactory(company=company), created_by=UserFactory())
        UserFactory(department=department, company=company)


# --- the record -------------------------------------------------------------------------------------------------


@pytest.fixture
def place(db):
    company = CompanyFactory(name="Acme")
    return {"company": company, "location": LocationFactory(name="HQ"),
            "manager": UserFactory(first_name="Grace", last_name="Hopper", company=company)}


def test_record_is_snipe_its_shape_and_matches_the_schema(openapi, token_client, superuser, place):  # noqa: F811
    department = DepartmentFactory(name="Finance", phone="555-0100", fax="555-0101", notes="n", created_by=superuser,
                                   **place)
    UserFactory(department=department, company=place["company"])
    UserFactory(department=department, company=place["company"], deleted_at="2026-01-01T00:00:00Z")
    DepartmentFactory(name="Empty")
    body = assert_described(openapi, token_client.get(URL), "GET", URL)
    assert set(body["rows"][0]) == record_properties(openapi, "GET", URL, "rows")
    row = next(r for r in body["rows"] if r["id"] == department.pk)
    manager = place["manager"]
    assert row == {
        "id": department.pk, "name": "Finance", "phone": "555-0100", "fax": "555-0101", "image": None,
        "company": {"id": place["company"].pk, "name": "Acme"},
        "manager": {"id": manager.pk, "name": "Grace Hopper", "first_name": "Grace", "last_name": "Hopper"},
        "location": {"id": place["location"].pk, "name": "HQ"},
        "users_count": 1, "notes": "n",
        "created_by": {"id": superuser.pk, "name": superuser.full_name},
        "created_at": row["created_at"], "updated_at": row["updated_at"],
        "available_actions": {"update": True, "delete": False},
    }
    empty = next(r for r in body["rows"] if r["name"] == "Empty")
    assert empty["company"] is None and empty["manager"] is None and empty["location"] is None
    assert empty["phone"] is None and empty["notes"] is None and empty["available_actions"]["delete"] is True
    record = assert_described(openapi, token_client.get(f"{URL}/{department.pk}"), "GET", f"{URL}/{{id}}")
    assert record == row
    created = assert_described(openapi, token_client.post(URL, {"name": "Ops", "manager_id": manager.pk},
                                                          format="json"), "POST", URL)
    assert set(created["payload"]) == record_properties(openapi, "POST", URL, "payload")
    assert created["payload"]["manager_id"] == manager.pk and created["payload"]["company_id"] is None
    new_id = created["payload"]["id"]
    for method in ("PATCH", "PUT"):
        response = getattr(token_client, method.lower())(f"{URL}/{new_id}", {"notes": method}, format="json")
        assert_described(openapi, response, method, f"{URL}/{{id}}")
    assert_described(openapi, token_client.delete(f"{URL}/{new_id}"), "DELETE", f"{URL}/{{id}}")
    assert_described(openapi, token_client.get(f"{URL}/selectlist"), "GET", f"{URL}/selectlist")


def test_filters_and_sorts(token_client, place):
    a = DepartmentFactory(name="Alpha", **place)
    b = DepartmentFactory(name="Bravo", location=LocationFactory(name="Annex"))
    c = DepartmentFactory(name="Charlie", company=CompanyFactory(name="Zeta"), notes="finance team")
    d = DepartmentFactory(name="Delta", manager=UserFactory(first_name="Alan", last_name="Turing"))
    UserFactory(department=b), UserFactory(department=b)

    def ids(**params):
        return [row["id"] for row in token_client.get(URL, {"limit": 50, **params}).json()["rows"]]

    assert ids(company_id=place["company"].pk) == [a.pk]
    assert ids(location_id=place["location"].pk) == [a.pk]
    assert ids(manager_id=place["manager"].pk) == [a.pk]
    assert ids(name="bravo") == [b.pk]
    assert ids(search="FINANCE") == [c.pk]
    assert ids(company_id="abc") == []
    assert ids(sort="users_count", order="desc")[0] == b.pk

    def before(first, second, **params):  # where rows without the value sort is the database's
        order = ids(**params)
        return order.index(first.pk) < order.index(second.pk)

    assert before(b, a, sort="location", order="asc")  # Annex, HQ
    assert before(c, a, sort="company", order="desc")  # Zeta, Acme
    assert before(a, c, sort="company", order="asc")
    assert before(d, a, sort="manager", order="asc")  # Alan, Grace
    assert ids(sort="name", order="asc") == [a.pk, b.pk, c.pk, d.pk]


def test_name_is_unique_only_per_company_and_location_as_snipe_it(token_client, place):
    DepartmentFactory(name="Finance", company=place["company"], location=place["location"])
    # Another location, no location, no company: allowed (Snipe-IT's is_unique_department).
    for extra in ({"company_id": place["company"].pk, "location_id": LocationFactory().pk},
                  {"company_id": place["company"].pk}, {"location_id": place["location"].pk}, {}):
        body = token_client.post(URL, {"name": "FINANCE", **extra}, format="json").json()
        assert body["status"] == "success", (extra, body)
    before = Department.objects.count(), ActionLog.objects.count()
    response = token_client.post(URL, {"name": "finance", "company_id": place["company"].pk,
                                       "location_id": place["location"].pk}, format="json")
    assert error_of(response, "name") == [DEPARTMENT_EXISTS]
    # moving a department to the taken place is the same error
    other = Department.objects.get(name="FINANCE", location__isnull=True, company=place["company"])
    response = token_client.patch(f"{URL}/{other.pk}", {"location_id": place["location"].pk}, format="json")
    assert error_of(response, "name") == [DEPARTMENT_EXISTS]
    assert (Department.objects.count(), ActionLog.objects.count()) == before


@pytest.mark.parametrize(("body", "field"), [
    ({"name": "X", "company_id": 999999}, "company_id"),
    ({"name": "X", "location_id": 999999}, "location_id"),
    ({"name": "X", "manager_id": 999999}, "manager_id"),
    ({"name": "X", "manager_id": "abc"}, "manager_id"),
    ({"name": "X", "company_id": [1]}, "company_id"),
    ({"name": "X", "phone": ["555"]}, "phone"),
    ({"name": "X", "notes": {"a": 1}}, "notes"),
    ({"name": "X", "fax": "9" * 256}, "fax"),
])
def test_bad_input_writes_nothing(token_client, settings, body, field):
    department = DepartmentFactory(name="Kept")
    before = list(Department.objects.values()), ActionLog.objects.count()
    assert field in error_of(token_client.post(URL, body, format="json"))
    assert field in error_of(token_client.patch(f"{URL}/{department.pk}", body, format="json"))
    http_errors(settings)
    assert token_client.post(URL, body, format="json").status_code == 422
    assert (list(Department.objects.values()), ActionLog.objects.count()) == before


def test_a_deleted_manager_is_refused(token_client):
    gone = UserFactory(deleted_at="2026-01-01T00:00:00Z")
    assert "manager_id" in error_of(token_client.post(URL, {"name": "X", "manager_id": gone.pk}, format="json"))


def test_update_and_delete_are_logged_with_changes(token_client, superuser, place):
    department = DepartmentFactory(name="Finance")
    token_client.patch(f"{URL}/{department.pk}", {"company_id": place["company"].pk, "phone": "555"}, format="json")
    log = ActionLog.objects.get(item_type="department", item_id=department.pk, action_type="update")
    assert log.log_meta == {"company_id": {"old": None, "new": place["company"].pk},
                            "phone": {"old": "", "new": "555"}}
    assert log.company_id == place["company"].pk and log.created_by == superuser
    assert token_client.delete(f"{URL}/{department.pk}").json()["status"] == "success"
    log = ActionLog.objects.get(item_type="department", item_id=department.pk, action_type="delete")
    assert log.log_meta == {"name": {"old": "Finance", "new": None}}


def test_deleted_users_do_not_block_a_delete_and_are_detached(token_client):
    department = DepartmentFactory()
    gone = UserFactory(department=department, deleted_at="2026-01-01T00:00:00Z")
    assert token_client.delete(f"{URL}/{department.pk}").json()["status"] == "success"
    gone.refresh_from_db()
    assert gone.department_id is None


def test_company_with_departments_cannot_be_deleted(token_client, company):
    DepartmentFactory(company=company)
    body = token_client.delete(f"/api/v1/companies/{company.pk}").json()
    assert body["status"] == "error" and "department" in body["message"]


# --- separation -------------------------------------------------------------------------------------------------


def test_users_count_and_guard_under_separation(make_client, fmcs_on, company, other_company):
    """The count is of the users the caller may see; the delete guard counts every live user."""
    department = DepartmentFactory(company=company)
    UserFactory(department=department, company=company)
    UserFactory(department=department, company=other_company)  # only a super user could have put them there
    caller = make_client(UserFactory(company=company, permissions=dict(ALL_KEYS)))
    row = caller.get(f"{URL}/{department.pk}").json()
    assert row["users_count"] == 1 and row["available_actions"]["delete"] is False
    assert caller.delete(f"{URL}/{department.pk}").json()["message"] == DEPARTMENT_HAS_USERS


def test_a_limited_caller_creates_in_their_own_company(make_client, fmcs_on, company, other_company):
    caller = make_client(UserFactory(company=company, permissions=dict(ALL_KEYS)))
    assert "company_id" in error_of(caller.post(URL, {"name": "X", "company_id": other_company.pk}, format="json"))
    body = caller.post(URL, {"name": "Mine"}, format="json").json()
    assert body["status"] == "success" and body["payload"]["company"]["id"] == company.pk
    listed = caller.get(f"{URL}/selectlist").json()
    assert [r["id"] for r in listed["results"]] == [body["payload"]["id"]]


def test_selectlist_hides_another_companys_departments(make_client, fmcs_on, company, other_company):
    mine = DepartmentFactory(name="Mine", company=company)
    DepartmentFactory(name="Theirs", company=other_company)
    DepartmentFactory(name="Shared")  # no company: only unrestricted callers see it, as for users
    caller = make_client(UserFactory(company=company, permissions={"departments.view": 1}))
    body = caller.get(f"{URL}/selectlist").json()
    assert body["total_count"] == 1 and body["results"][0]["id"] == mine.pk


# --- department_id on users -------------------------------------------------------------------------------------


USERS = "/api/v1/users"


def new_user(**extra):
    return {"first_name": "Ada", "username": "ada", "password": "analytical-engine", **extra}


def test_user_create_and_update_with_a_department(token_client, company):
    finance = DepartmentFactory(name="Finance", company=company)
    shared = DepartmentFactory(name="Shared")
    body = token_client.post(USERS, new_user(company_id=company.pk, department_id=finance.pk), format="json").json()
    assert body["status"] == "success", body
    assert body["payload"]["department"] == {"id": finance.pk, "name": "Finance"}
    user = User.objects.get(pk=body["payload"]["id"])
    assert user.department == finance
    body = token_client.patch(f"{USERS}/{user.pk}", {"department_id": shared.pk}, format="json").json()
    assert body["payload"]["department"] == {"id": shared.pk, "name": "Shared"}
    log = ActionLog.objects.get(item_type="user", item_id=user.pk, action_type="update")
    assert log.log_meta == {"department_id": {"old": finance.pk, "new": shared.pk}}
    body = token_client.put(f"{USERS}/{user.pk}", {"department_id": None}, format="json").json()
    assert body["payload"]["department"] is None
    assert token_client.get(f"{USERS}/{user.pk}").json()["department"] is None


def test_user_department_filter_and_sort(token_client):
    finance, ops = DepartmentFactory(name="Finance"), DepartmentFactory(name="Ops")
    a, b = UserFactory(department=ops), UserFactory(department=finance)
    UserFactory()
    rows = token_client.get(USERS, {"department_id": finance.pk}).json()["rows"]
    assert [r["id"] for r in rows] == [b.pk]
    order = [r["id"] for r in token_client.get(USERS, {"sort": "department", "order": "desc"}).json()["rows"]]
    assert order.index(a.pk) < order.index(b.pk)  # Ops, Finance (users without one: where the database puts null)
    assert {r["id"] for r in token_client.get(USERS, {"search": "ops"}).json()["rows"]} >= {a.pk}


@pytest.mark.parametrize("value", [999999, "abc", [1], True])
def test_user_unknown_department_is_a_field_error(token_client, value):
    user = UserFactory(username="kept")
    before = User.objects.count(), ActionLog.objects.count()
    assert "department_id" in error_of(token_client.post(USERS, new_user(department_id=value), format="json"))
    assert "department_id" in error_of(token_client.patch(f"{USERS}/{user.pk}", {"department_id": value},
                                                          format="json"))
    user.refresh_from_db()
    assert user.department_id is None and (User.objects.count(), ActionLog.objects.count()) == before


def test_another_companys_department_is_unknown_to_a_limited_caller(make_client, fmcs_on, company, other_company):
    """The separation matrix's reference check needs a caller with the department keys only, who may not write
    users: this is that check, on the user write that names a department."""
    theirs = DepartmentFactory(company=other_company)
    caller = make_client(UserFactory(company=company, permissions={"users.create": 1, "users.edit": 1,
                                                                   "users.view": 1}))
    target = UserFactory(company=company)
    unknown = error_of(caller.patch(f"{USERS}/{target.pk}", {"department_id": 999999}, format="json"))
    assert error_of(caller.patch(f"{USERS}/{target.pk}", {"department_id": theirs.pk}, format="json")) == unknown
    target.refresh_from_db()
    assert target.department_id is None


def test_a_department_of_another_company_is_refused_for_the_user(token_client, company, other_company):
    """Snipe-IT does not check; here a department with a company takes that company's users only."""
    theirs = DepartmentFactory(company=other_company)
    before = User.objects.count(), ActionLog.objects.count()
    response = token_client.post(USERS, new_user(company_id=company.pk, department_id=theirs.pk), format="json")
    assert error_of(response, "department_id") == [DEPARTMENT_OTHER_COMPANY]
    assert (User.objects.count(), ActionLog.objects.count()) == before
    mine = DepartmentFactory(company=company)
    user = UserFactory(company=company, department=mine)
    # moving the user to another company while in a department of theirs
    response = token_client.patch(f"{USERS}/{user.pk}", {"company_id": other_company.pk}, format="json")
    assert error_of(response, "company_id") == [DEPARTMENT_OTHER_COMPANY]
    # both at once is fine
    body = token_client.patch(f"{USERS}/{user.pk}", {"company_id": other_company.pk, "department_id": theirs.pk},
                              format="json").json()
    assert body["status"] == "success", body
    # and the department cannot move to a company its users are not in
    response = token_client.patch(f"{URL}/{theirs.pk}", {"company_id": company.pk}, format="json")
    assert "company_id" in error_of(response)
    theirs.refresh_from_db()
    assert theirs.company_id == other_company.pk
