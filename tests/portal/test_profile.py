"""The portal's profile page (issue 32): what it shows, what the person may change (names and phone; the location
with self.edit_location; never the e-mail), a profile the directory keeps is read-only whatever is posted, one
action-log row per change."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from accounts.models import User
from accounts.services import user_profile_update
from activity.models import ActionLog
from tests.factories import CompanyFactory, DepartmentFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db


def updates_of(user) -> list[ActionLog]:
    return list(ActionLog.objects.filter(action_type="update", item_type="user", item_id=user.pk))


@pytest.fixture
def emma(db):
    company = CompanyFactory(name="Acme")
    return UserFactory(username="emma", first_name="Emma", last_name="Stone", email="emma@example.com",
                       phone="555-0100", company=company, location=LocationFactory(name="Berlin"),
                       department=DepartmentFactory(name="Finance", company=company))


def test_the_page_shows_who_the_person_is_and_links_two_factor(client, emma, django_assert_max_num_queries):
    client.force_login(emma)
    with django_assert_max_num_queries(10):
        page = client.get("/account/profile/")
    text = page.content.decode()
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    for shown in ("Emma Stone", "emma@example.com", "555-0100", "Berlin", "Finance", "Acme", ">emma<"):
        assert shown in text, shown
    assert 'href="/account/two-factor/"' in text and "Set up two-factor sign-in" in text
    assert 'name="first_name"' in text and 'name="phone"' in text
    assert 'name="email"' not in text and 'name="location"' not in text  # no self.edit_location
    assert "Managed by your directory" not in text


def test_names_and_phone_are_changed_with_one_log_row_and_the_email_never(client, emma):
    client.force_login(emma)
    answer = client.post("/account/profile/", {"first_name": "Emmy", "last_name": "Stone", "phone": "555-0199",
                                               "email": "evil@example.com", "username": "root"})
    assert answer.status_code == 302 and answer["Location"] == "/account/profile/"
    emma.refresh_from_db()
    assert (emma.first_name, emma.phone, emma.email, emma.username) == ("Emmy", "555-0199", "emma@example.com", "emma")
    [row] = updates_of(emma)
    assert row.created_by_id == emma.pk and set(row.log_meta) == {"first_name", "phone"}
    assert "Your profile is saved." in client.get("/account/profile/").content.decode()


def test_the_location_needs_self_edit_location(client, emma):
    madrid = LocationFactory(name="Madrid")
    client.force_login(emma)
    client.post("/account/profile/", {"first_name": "Emma", "last_name": "Stone", "phone": "555-0100",
                                      "location": madrid.pk})  # crafted: the field is not on this person's form
    emma.refresh_from_db()
    assert emma.location.name == "Berlin" and updates_of(emma) == []
    User.objects.filter(pk=emma.pk).update(permissions={"self.edit_location": 1})
    page = client.get("/account/profile/").content.decode()
    assert 'name="location"' in page and "Madrid" in page
    answer = client.post("/account/profile/", {"first_name": "Emma", "last_name": "Stone", "phone": "555-0100",
                                               "location": madrid.pk})
    assert answer.status_code == 302
    emma.refresh_from_db()
    assert emma.location == madrid and set(updates_of(emma)[0].log_meta) == {"location_id"}


def test_bad_input_is_refused_on_the_page_and_nothing_written(client, emma):
    client.force_login(emma)
    answer = client.post("/account/profile/", {"first_name": "Emma", "last_name": "Stone", "phone": "5" * 51})
    assert answer.status_code == 400 and "at most 50 characters" in answer.content.decode()
    emma.refresh_from_db()
    assert emma.phone == "555-0100" and updates_of(emma) == []


@pytest.mark.parametrize("synced", [{"ldap_import": True}, {"external_id": "scim-42"}])
def test_a_profile_the_directory_keeps_cannot_be_changed_even_by_a_crafted_post(client, emma, synced):
    User.objects.filter(pk=emma.pk).update(permissions={"self.edit_location": 1}, **synced)
    client.force_login(emma)
    page = client.get("/account/profile/").content.decode()
    assert "Managed by your directory" in page and 'name="first_name"' not in page and 'id="profile-form"' not in page
    answer = client.post("/account/profile/", {"first_name": "Hacked", "last_name": "X", "phone": "1",
                                               "location": LocationFactory().pk})
    assert answer.status_code == 302
    emma.refresh_from_db()
    assert (emma.first_name, emma.phone, emma.location.name) == ("Emma", "555-0100", "Berlin")
    assert updates_of(emma) == []
    assert "managed by your directory" in client.get("/account/profile/").content.decode()


def test_the_service_changes_only_the_callers_own_profile(emma):
    other = UserFactory(username="other", first_name="Otto")
    with pytest.raises(PermissionDenied):
        user_profile_update(user=other, actor=emma, first_name="X", last_name="", phone="", location=None)
    other.refresh_from_db()
    assert other.first_name == "Otto" and updates_of(other) == []


def test_an_anonymous_visitor_is_sent_to_sign_in(client):
    answer = client.get("/account/profile/")
    assert answer.status_code == 302 and answer["Location"] == "/account/login/?next=%2Faccount%2Fprofile%2F"
