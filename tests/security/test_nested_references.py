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
