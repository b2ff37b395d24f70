"""The portal's frame (issue 32): any active user signs in at /account/login/ and lands on "My items"; an anonymous
visitor is sent to the sign-in page and comes back."""

import pytest

from tests.factories import AssetFactory, UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"


def test_an_ordinary_user_signs_in_and_sees_their_asset(client):
    person = UserFactory(username="emma")
    asset = AssetFactory(asset_tag="LAP-1")
    asset.assigned_user = person
    asset.save()
    answer = client.get("/account/")
    assert answer.status_code == 302 and answer["Location"] == "/account/login/?next=%2Faccount%2F"
    answer = client.post("/account/login/?next=/account/", {"username": "emma", "password": PASSWORD,
                                                            "next": "/account/"})
    assert answer.status_code == 302 and answer["Location"] == "/account/"
    page = client.get("/account/")
    assert page.status_code == 200 and b"LAP-1" in page.content
    assert "no-store" in page["Cache-Control"]
    assert client.post("/account/logout/").status_code == 302
    assert client.get("/account/").status_code == 302


def test_a_deactivated_user_is_refused(client):
    UserFactory(username="gone", is_active=False)
    answer = client.post("/account/login/", {"username": "gone", "password": PASSWORD})
    assert answer.status_code == 200 and b"Please enter a correct username and password" in answer.content
