"""The department admin (``accounts.admin.DepartmentAdmin``) and the department field of the user admin, through the
real admin with the test client: saves and deletes go through ``accounts.departments`` (logged, the delete guard and
the name rule as in the API), and the pages are company-scoped as the API is."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from accounts.departments import DEPARTMENT_EXISTS, DEPARTMENT_HAS_USERS
from accounts.models import Department
from activity.models import ActionLog
from tests.factories import CompanyFactory, DepartmentFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/accounts/department/"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def admin_client(superuser) -> Client:
    return logged_in(superuser)


def test_changelist_shows_the_users_count_and_searches(admin_client):
    finance = DepartmentFactory(name="Finance")
    DepartmentFactory(name="Ops")
    UserFactory(department=finance), UserFactory(department=finance)
    UserFactory(department=finance, deleted_at="2026-01-01T00:00:00Z")
    response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    rows = {d.name: d.users_count for d in response.context["cl"].result_list}
    assert rows == {"Finance": 2, "Ops": 0}
    found = admin_client.get(CHANGELIST, {"q": "fin"}).context["cl"].result_list
    assert [d.name for d in found] == ["Finance"]


def test_add_and_change_go_through_the_services(admin_client, superuser):
    company, location = CompanyFactory(), LocationFactory()
    response = admin_client.post(f"{CHANGELIST}add/", {"name": "Finance", "company": company.pk,
                                                       "location": location.pk, "phone": "", "fax": "",
                                                       "notes": ""})
    assert response.status_code == 302, response.context["adminform"].form.errors
    department = Department.objects.get(name="Finance")
    assert department.created_by == superuser and department.company == company
    assert ActionLog.objects.filter(item_type="department", item_id=department.pk, action_type="create").exists()
    # the name rule is the API's
    response = admin_client.post(f"{CHANGELIST}add/", {"name": "FINANCE", "company": company.pk,
                                                       "location": location.pk})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["name"] == [DEPARTMENT_EXISTS]
    assert Department.objects.count() == 1
    response = admin_client.post(f"{CHANGELIST}{department.pk}/change/", {
        "name": "Finance", "company": company.pk, "location": location.pk, "phone": "555", "fax": "", "notes": ""})
    assert response.status_code == 302
    log = ActionLog.objects.get(item_type="department", item_id=department.pk, action_type="update")
    assert log.log_meta == {"phone": {"old": "", "new": "555"}}


def test_delete_is_refused_while_users_remain(admin_client):
    department = DepartmentFactory()
    UserFactory(department=department)
    response = admin_client.post(f"{CHANGELIST}{department.pk}/delete/", {"post": "yes"}, follow=True)
    assert DEPARTMENT_HAS_USERS in [str(m).split(": ", 1)[1] for m in get_messages(response.wsgi_request)]
    assert Department.objects.filter(pk=department.pk).exists()
    department.users.update(department=None)
    admin_client.post(f"{CHANGELIST}{department.pk}/delete/", {"post": "yes"})
    assert not Department.objects.filter(pk=department.pk).exists()
    assert ActionLog.objects.filter(item_type="department", item_id=department.pk, action_type="delete").exists()


def test_a_company_administrator_sees_their_company_only(fmcs_on, company, other_company):
    mine = DepartmentFactory(name="Mine", company=company)
    theirs = DepartmentFactory(name="Theirs", company=other_company)
    client = logged_in(UserFactory(company=company, permissions={"admin": 1}))
    listed = client.get(CHANGELIST).context["cl"].result_list
    assert [d.name for d in listed] == ["Mine"]
    assert client.get(f"{CHANGELIST}{theirs.pk}/change/").status_code == 302  # "doesn't exist", back to the list
    assert client.get(f"{CHANGELIST}{mine.pk}/change/").status_code == 200
    choices = client.get(f"{CHANGELIST}add/").context["adminform"].form.fields["company"].queryset
    assert list(choices) == [company]


def test_the_user_admin_sets_a_department(admin_client, company):
    department = DepartmentFactory(name="Finance", company=company)
    person = UserFactory(company=company)
    page = admin_client.get(f"/admin/accounts/user/{person.pk}/change/")
    form = page.context["adminform"].form
    assert "department" in form.fields
    data = {name: value for name, value in form.initial.items()
            if value is not None and name not in {"password", "permissions"}}
    data.update({"department": department.pk, "groups": [], "company": company.pk})
    data.pop("last_login", None)
    data.pop("created_at", None)
    data.pop("deleted_at", None)
    response = admin_client.post(f"/admin/accounts/user/{person.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    person.refresh_from_db()
    assert person.department == department
    log = ActionLog.objects.get(item_type="user", item_id=person.pk, action_type="update")
    assert log.log_meta == {"department_id": {"old": None, "new": department.pk}}
