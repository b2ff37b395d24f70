"""``ResourceViewSet`` reads everything through ``get_queryset()``: a company-scoped kind built on it cannot list,
read, select, update, delete or restore another company's rows (issue 9: the old catalogue base read select lists
and restores outside the scoped queryset)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.models import Asset
from tests.factories import AssetFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api.resource_urls")]
RIGHTS = {"assets.view": 1, "assets.edit": 1, "assets.delete": 1, "assets.create": 1}
URL = "/api/v1/things"


@pytest.fixture
def rows(company, other_company):
    mine = AssetFactory(company=company, asset_tag="A-1", name="mine")
    theirs = AssetFactory(company=other_company, asset_tag="B-1", name="theirs")
    theirs_deleted = AssetFactory(company=other_company, asset_tag="B-2", deleted_at=timezone.now())
    mine_deleted = AssetFactory(company=company, asset_tag="A-2", deleted_at=timezone.now())
    return {"mine": mine, "theirs": theirs, "theirs_deleted": theirs_deleted, "mine_deleted": mine_deleted}


@pytest.fixture
def member(make_client, company):
    return make_client(UserFactory(company=company, permissions=RIGHTS))


def test_list_detail_and_selectlist_see_only_the_callers_company(fmcs_on, member, rows):
    body = member.get(URL).json()
    assert body["total"] == 1 and [row["asset_tag"] for row in body["rows"]] == ["A-1"]
    assert member.get(f"{URL}/{rows['mine'].pk}").json()["name"] == "mine"
    assert member.get(f"{URL}/{rows['theirs'].pk}").json()["message"] == "Thing not found."
    select = member.get(f"{URL}/selectlist").json()
    assert [row["text"] for row in select["results"]] == ["A-1"] and select["total_count"] == 1
    assert member.get(f"{URL}/selectlist", {"search": "B-"}).json()["total_count"] == 0


def test_writes_to_another_companys_row_are_not_found_and_change_nothing(fmcs_on, member, rows):
    theirs = rows["theirs"]
    before = ActionLog.objects.count()
    assert member.patch(f"{URL}/{theirs.pk}", {"name": "stolen"}, format="json").json()["message"] == \
        "Thing not found."
    assert member.delete(f"{URL}/{theirs.pk}").json()["message"] == "Thing not found."
    theirs.refresh_from_db()
    assert theirs.name == "theirs" and theirs.deleted_at is None and ActionLog.objects.count() == before


def test_restore_finds_only_the_callers_deleted_rows(fmcs_on, member, rows):
    response = member.post(f"{URL}/{rows['theirs_deleted'].pk}/restore")
    assert response.json()["message"] == "Thing does not exist."
    assert Asset.objects.get(pk=rows["theirs_deleted"].pk).deleted_at is not None
    body = member.post(f"{URL}/{rows['mine_deleted'].pk}/restore").json()
    assert body["status"] == "success"
    assert body["payload"]["asset_tag"] == "A-2" and body["payload"]["deleted_at"] is None


def test_the_re_read_after_a_write_is_the_scoped_record(fmcs_on, member, rows):
    body = member.patch(f"{URL}/{rows['mine'].pk}", {"name": "renamed"}, format="json").json()
    assert body["status"] == "success" and body["payload"]["name"] == "renamed"


def test_separation_off_or_super_user_sees_every_company(make_client, token_client, company, rows, fmcs_on):
    assert token_client.get(URL).json()["total"] == 2
    assert token_client.get(f"{URL}/selectlist").json()["total_count"] == 2
    fmcs_on.full_multiple_companies_support = False
    fmcs_on.save()
    member = make_client(UserFactory(company=company, permissions=RIGHTS))
    assert member.get(f"{URL}/selectlist").json()["total_count"] == 2
