"""``GET /users/list/{status}`` (issue 27): Snipe-IT's older list address, as ``GET /users`` with ``deleted`` or
``all``; the same permission, separation, filters and pages."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def ids(response) -> set[int]:
    assert response.status_code == 200, response.content
    return {row["id"] for row in response.json()["rows"]}


def test_active_deleted_and_all(token_client, superuser, company):
    live = UserFactory(username="live1", company=company)
    gone = UserFactory(username="gone1", deleted_at=timezone.now())
    for url in ("/api/v1/users/list", "/api/v1/users/list/", "/api/v1/users/list/active", "/api/v1/users/list/Active/"):
        assert ids(token_client.get(url)) == {superuser.pk, live.pk}, url
    assert ids(token_client.get("/api/v1/users/list/deleted")) == {gone.pk}
    assert ids(token_client.get("/api/v1/users/list/all")) == {superuser.pk, live.pk, gone.pk}
    # the list's own filters, search and pages still apply
    assert ids(token_client.get("/api/v1/users/list/all", {"company_id": company.pk})) == {live.pk}
    assert ids(token_client.get("/api/v1/users/list/all", {"search": "gone1"})) == {gone.pk}
    page = token_client.get("/api/v1/users/list/all", {"limit": 1}).json()
    assert (page["total"], len(page["rows"])) == (3, 1)


def test_an_unknown_status_is_a_field_error(token_client, settings):
    answer = token_client.get("/api/v1/users/list/retired").json()
    assert answer["status"] == "error"
    assert answer["messages"] == {"status": ["The status must be one of: active, deleted, all."]}
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    assert token_client.get("/api/v1/users/list/retired").status_code == 422


def test_permission_and_company_separation(api_client, make_client, fmcs_on, company, other_company):
    mine = UserFactory(company=company, deleted_at=timezone.now())
    UserFactory(company=other_company, deleted_at=timezone.now())
    assert api_client.get("/api/v1/users/list/deleted").status_code == 401
    assert make_client(UserFactory(company=company)).get("/api/v1/users/list/deleted").status_code == 403
    viewer = make_client(UserFactory(company=company, permissions={"users.view": 1}))
    answer = viewer.get("/api/v1/users/list/deleted").json()
    assert {row["id"] for row in answer["rows"]} == {mine.pk}
    assert answer["total"] == 1  # the other company's deleted user is not even counted
