"""A visible record must not reveal another company's people or the company itself through what it points at
(created_by of a global catalogue entry, a location's manager or company, an asset's creator)."""

from __future__ import annotations

import pytest

from tests.factories import AssetFactory, LocationFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db
FULL = {"superuser": 0, "admin": 1, "locations.view": 1, "statuslabels.view": 1, "assets.view": 1}


@pytest.fixture
def world(company, other_company):
    stranger = UserFactory(company=other_company, first_name="Bea", last_name="Other", email="bea@b.example")
    label = StatusLabelFactory(name="Ready", created_by=stranger)
    location = LocationFactory(name="B office", company=other_company, manager=stranger, created_by=stranger)
    asset = AssetFactory(company=company, status=label, created_by=stranger)
    return {"stranger": stranger, "label": label, "location": location, "asset": asset}


def test_separation_on_hides_other_companys_people_and_company(fmcs_on, make_client, company, world):
    client = make_client(UserFactory(company=company, permissions=FULL))
    label = client.get(f"/api/v1/statuslabels/{world['label'].pk}").json()
    assert label["name"] == "Ready" and label["created_by"] is None
    location = client.get(f"/api/v1/locations/{world['location'].pk}").json()
    assert location["name"] == "B office"  # locations are not scoped (docs/catalogue.md) ...
    assert location["company"] is None and location["manager"] is None  # ... but B's people and name stay hidden
    asset = client.get(f"/api/v1/hardware/{world['asset'].pk}").json()
    assert asset["created_by"] is None
    for body in (label, location, asset):
        assert "Bea" not in str(body) and "bea@b.example" not in str(body) and "Company B" not in str(body)


def test_separation_off_shows_them(make_client, company, world):
    client = make_client(UserFactory(company=company, permissions=FULL))
    assert client.get(f"/api/v1/statuslabels/{world['label'].pk}").json()["created_by"]["name"] == "Bea Other"
    location = client.get(f"/api/v1/locations/{world['location'].pk}").json()
    assert location["company"]["name"] == "Company B" and location["manager"]["email"] == "bea@b.example"


def test_super_user_sees_them_with_separation_on(fmcs_on, token_client, world):
    location = token_client.get(f"/api/v1/locations/{world['location'].pk}").json()
    assert location["company"]["name"] == "Company B" and location["manager"]["name"] == "Bea Other"


# Issue 9: every record builder hides the same way (assetsvc.api.fields.visible_reference) -------------------------


@pytest.fixture
def boss_of_b(other_company):
    """A super user who belongs to company B and acts for the whole site."""
    return UserFactory(company=other_company, first_name="Bruno", last_name="Boss", email="bruno@b.example",
                       permissions={"superuser": 1})


def test_users_list_hides_another_companys_creator(fmcs_on, make_client, company, boss_of_b):
    created = UserFactory(company=company, created_by=boss_of_b, username="made-by-bruno")
    client = make_client(UserFactory(company=company, permissions={"users.view": 1}))
    rows = client.get("/api/v1/users", {"search": "made-by-bruno"}).json()["rows"]
    assert [row["id"] for row in rows] == [created.pk]
    assert rows[0]["created_by"] is None
    single = client.get(f"/api/v1/users/{created.pk}").json()
    assert single["created_by"] is None and "Bruno" not in str(single)


def test_users_list_shows_creator_of_the_same_company_or_without_one(fmcs_on, make_client, company):
    colleague = UserFactory(company=company, first_name="Cara", last_name="Same")
    companyless = UserFactory(company=None, first_name="Nico", last_name="None")
    first = UserFactory(company=company, created_by=colleague)
    second = UserFactory(company=company, created_by=companyless)
    client = make_client(UserFactory(company=company, permissions={"users.view": 1}))
    assert client.get(f"/api/v1/users/{first.pk}").json()["created_by"]["name"] == "Cara Same"
    assert client.get(f"/api/v1/users/{second.pk}").json()["created_by"]["name"] == "Nico None"


def test_activity_report_hides_another_companys_actor(fmcs_on, make_client, company, boss_of_b):
    from activity.services import log_action

    asset = AssetFactory(company=company)
    log_action(action_type="update", item_type="asset", item_id=asset.pk, actor=boss_of_b, company_id=company.pk,
               note="edited by the site admin")
    client = make_client(UserFactory(company=company, permissions={"reports.view": 1, "assets.view": 1}))
    for url in ("/api/v1/reports/activity", f"/api/v1/hardware/{asset.pk}/history"):
        rows = [row for row in client.get(url).json()["rows"] if row["note"] == "edited by the site admin"]
        assert len(rows) == 1, url
        assert rows[0]["admin"] is None and rows[0]["created_by"] is None, url
        assert "Bruno" not in str(rows), url


def test_activity_report_hides_another_companys_target_user(fmcs_on, make_client, company, other_company):
    from activity.services import log_action

    stranger = UserFactory(company=other_company, first_name="Tina", last_name="Target")
    asset = AssetFactory(company=company)
    log_action(action_type="checkout", item_type="asset", item_id=asset.pk, actor=None, company_id=company.pk,
               target_type="user", target_id=stranger.pk, note="odd row")
    client = make_client(UserFactory(company=company, permissions={"reports.view": 1}))
    rows = [row for row in client.get("/api/v1/reports/activity").json()["rows"] if row["note"] == "odd row"]
    assert rows[0]["target"]["name"] is None and "Tina" not in str(rows)


def test_companies_record_hides_another_companys_creator(fmcs_on, make_client, company, boss_of_b):
    company.created_by = boss_of_b
    company.save(update_fields=["created_by"])
    client = make_client(UserFactory(company=company, permissions={"companies.view": 1}))
    rows = client.get("/api/v1/companies").json()["rows"]
    assert [row["id"] for row in rows] == [company.pk]
    assert rows[0]["created_by"] is None
    assert client.get(f"/api/v1/companies/{company.pk}").json()["created_by"] is None


def test_super_user_sees_every_creator_and_actor(fmcs_on, token_client, company, boss_of_b):
    created = UserFactory(company=company, created_by=boss_of_b)
    assert token_client.get(f"/api/v1/users/{created.pk}").json()["created_by"]["name"] == "Bruno Boss"
