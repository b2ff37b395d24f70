"""Departments driven the way SnipeitPS drives them (``New-``, ``Get-``, ``Set-``, ``Remove-SnipeitDepartment`` and
``Set-SnipeitUser -department_id``). Written from reading the module, not copied from it:

- ``Invoke-SnipeitMethod`` sends JSON bodies built from the bound parameters (``Get-ParameterValue`` drops ``id``,
  ``url``, ``apiKey`` and ``RequestType``; a ``[switch]`` such as ``image_delete`` may come along as ``false``), reads
  ``payload`` after a write, ``rows`` after a list and the bare object after a read by id, and reports any
  ``"status": "error"`` by writing out ``messages``.
- ``Get-SnipeitDepartment`` lists with ``search``, ``order=desc``, ``sort=created_at``, ``limit=50`` and, with
  ``-all``, pages by ``offset`` until a page is shorter than ``limit``.
- ``Set-SnipeitDepartment`` sends ``PATCH`` by default and ``PUT`` with ``-RequestType Put``, with only the given
  keys (both are partial here, as Snipe-IT's ``fill``).
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.departments import DEPARTMENT_HAS_USERS
from accounts.models import Department
from tests.factories import CompanyFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db
API = "/api/v1"


def invoke(client, method: str, api: str, body: dict[str, Any] | None = None,
           get_parameters: dict[str, Any] | None = None) -> Any:
    """``Invoke-SnipeitMethod``: what the cmdlet returns, or raises on an error envelope (its ``Write-Error``)."""
    path = f"{API}{api}"
    if method == "GET":
        response = client.get(path, get_parameters or {})
    else:
        response = getattr(client, method.lower())(path, body or {}, format="json")
    assert response.status_code == 200, response.content
    answer = response.json()
    if isinstance(answer, dict) and answer.get("status") == "error":
        raise RuntimeError(answer["messages"])
    if isinstance(answer, dict) and answer.get("payload"):
        return answer["payload"]
    if isinstance(answer, dict) and "rows" in answer:
        return answer["rows"]
    if isinstance(answer, dict) and answer.get("status") == "success":
        return answer["payload"]
    return answer


def get_departments(client, *, search: str | None = None, all_pages: bool = False, limit: int = 50) -> list[dict]:
    parameters: dict[str, Any] = {"order": "desc", "sort": "created_at", "limit": limit}
    if search:
        parameters["search"] = search
    if not all_pages:
        return invoke(client, "GET", "/departments", get_parameters=parameters)
    rows, offset = [], 0
    while True:
        page = invoke(client, "GET", "/departments", get_parameters={**parameters, "offset": offset})
        rows.extend(page)
        if len(page) < limit:
            return rows
        offset += limit


def test_snipeitps_department_lifecycle(token_client):
    company = CompanyFactory(name="Contoso")
    location, annex = LocationFactory(name="HQ"), LocationFactory(name="Annex")
    manager = UserFactory(first_name="Grace", last_name="Hopper", company=company)

    # New-SnipeitDepartment -name Finance -company_id .. -location_id .. -manager_id .. -notes ..
    created = invoke(token_client, "POST", "/departments", {
        "name": "Finance", "company_id": company.pk, "location_id": location.pk, "manager_id": manager.pk,
        "notes": "money", "image_delete": False})
    department_id = created["id"]
    assert created["name"] == "Finance" and created["company_id"] == company.pk
    assert created["manager"]["first_name"] == "Grace" and created["location"] == {"id": location.pk, "name": "HQ"}
    invoke(token_client, "POST", "/departments", {"name": "Facilities", "company_id": company.pk})

    # Get-SnipeitDepartment -search fin ; -id ; -all with a small batch
    found = get_departments(token_client, search="fin")
    assert [row["id"] for row in found] == [department_id]
    assert invoke(token_client, "GET", f"/departments/{department_id}")["notes"] == "money"
    assert {row["name"] for row in get_departments(token_client, all_pages=True, limit=1)} == {"Finance",
                                                                                                 "Facilities"}

    # Set-SnipeitDepartment -id .. -location_id .. (PATCH), then -RequestType Put -name ..
    patched = invoke(token_client, "PATCH", f"/departments/{department_id}", {"location_id": annex.pk,
                                                                              "image_delete": False})
    assert patched["location"] == {"id": annex.pk, "name": "Annex"} and patched["name"] == "Finance"
    put = invoke(token_client, "PUT", f"/departments/{department_id}", {"name": "Finance & Accounting"})
    assert put["name"] == "Finance & Accounting" and put["location"]["id"] == annex.pk
    assert put["manager"]["id"] == manager.pk  # PUT is partial: the manager stays

    # Set-SnipeitUser -id .. -department_id ..
    person = UserFactory(company=company)
    user = invoke(token_client, "PATCH", f"/users/{person.pk}", {"department_id": department_id})
    assert user["department"] == {"id": department_id, "name": "Finance & Accounting"}
    assert invoke(token_client, "GET", f"/departments/{department_id}")["users_count"] == 1

    # Remove-SnipeitDepartment: refused while in use (Write-Error with Snipe-IT's text), then done
    with pytest.raises(RuntimeError) as refused:
        invoke(token_client, "DELETE", f"/departments/{department_id}")
    assert str(refused.value) == DEPARTMENT_HAS_USERS
    assert Department.objects.filter(pk=department_id).exists()
    invoke(token_client, "PATCH", f"/users/{person.pk}", {"department_id": None})
    assert invoke(token_client, "DELETE", f"/departments/{department_id}") is None
    assert not Department.objects.filter(pk=department_id).exists()
    assert [row["name"] for row in get_departments(token_client)] == ["Facilities"]
    with pytest.raises(RuntimeError) as missing:
        invoke(token_client, "GET", f"/departments/{department_id}")
    assert str(missing.value) == "Department does not exist."
