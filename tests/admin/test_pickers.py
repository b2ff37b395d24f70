"""Issue 28 item 5: the admin's user pickers find people by first name, last name, username, e-mail or employee
number and show "Jane Doe (jdoe, jane@example.com)"; asset pickers find by tag, serial or name and show
"TAG – name (serial)". A company administrator's pickers answer their company only, as before. Driven through the
admin's autocomplete endpoint and pages with Django's test client."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import PersonalAccessToken, User
from inventory.models import Asset
from tests.factories import AssetFactory, AssetModelFactory, DepartmentFactory, UserFactory

pytestmark = pytest.mark.django_db

AUTOCOMPLETE = reverse("admin:autocomplete")
JANE = "Jane Doe (jdoe, jane@example.com)"



@pytest.fixture
def jane(db) -> User:
    return UserFactory(username="jdoe", first_name="Jane", last_name="Doe", email="jane@example.com",
                       employee_num="E-4711")


def suggestions(client: Client, field_name: str, term: str, model_name: str = "asset") -> list[str]:
    """The texts the picker of ``inventory.<model_name>.<field_name>`` offers for ``term``."""
    response = client.get(AUTOCOMPLETE, {"app_label": "inventory", "model_name": model_name,
                                         "field_name": field_name, "term": term})
    assert response.status_code == 200, response.content
    return [row["text"] for row in response.json()["results"]]


@pytest.mark.parametrize("term", ["Jane", "doe", "Jane Doe", "jdoe", "jane@example.com", "E-4711", "4711"])
def test_the_user_picker_finds_a_person_by_any_name_and_shows_who_it_is(super_client, jane, term):
    UserFactory(username="jsmith", first_name="John", last_name="Smith", email="john@example.com")
    assert suggestions(super_client, "assigned_user", term) == [JANE]


def test_a_user_label_leaves_out_what_is_empty(super_client):
    UserFactory(username="nomail", first_name="Ann", last_name="", email="")
    UserFactory(username="noname", first_name="", last_name="", email="noname@example.com")
    UserFactory(username="bare", first_name="", last_name="", email="")
    assert suggestions(super_client, "assigned_user", "nomail") == ["Ann (nomail)"]
    assert suggestions(super_client, "assigned_user", "noname") == ["noname (noname@example.com)"]
    assert suggestions(super_client, "assigned_user", "bare") == ["bare"]


def test_deleted_people_and_assets_are_not_offered(super_client, jane):
    UserFactory(username="jdoe-old", first_name="Jane", last_name="Doe", email="", deleted_at=timezone.now())
    AssetFactory(asset_tag="GONE-1", deleted_at=timezone.now())
    assert suggestions(super_client, "assigned_user", "Jane") == [JANE]
    assert suggestions(super_client, "assigned_asset", "GONE") == []


@pytest.mark.parametrize("term", ["LAP-0042", "lap-0042", "SN-XYZ-9", "ThinkPad"])
def test_the_asset_picker_finds_by_tag_serial_or_name(super_client, term):
    AssetFactory(asset_tag="LAP-0042", name="ThinkPad of Jane", serial="SN-XYZ-9")
    AssetFactory(asset_tag="MON-0001", name="Monitor", serial="SN-MON-1")
    assert suggestions(super_client, "assigned_asset", term) == ["LAP-0042 – ThinkPad of Jane (SN-XYZ-9)"]


def test_an_asset_label_falls_back_to_its_model_and_leaves_out_an_empty_serial(super_client):
    AssetFactory(asset_tag="DSK-1", name="", serial="", model=AssetModelFactory(name="OptiPlex 7010"))
    assert suggestions(super_client, "assigned_asset", "DSK-1") == ["DSK-1 – OptiPlex 7010"]
    assert suggestions(super_client, "asset", "DSK-1", model_name="maintenance") == ["DSK-1 – OptiPlex 7010"]


def test_a_chosen_user_reads_the_same_on_the_checkout_page(super_client, site_settings, jane):
    site_settings.require_checkinout_notes = True
    site_settings.save()
    asset = AssetFactory()
    page = reverse("admin:inventory_asset_checkout", args=[asset.pk])
    response = super_client.post(page, {"checkout_to_type": "user", "assigned_user": jane.pk, "note": ""})
    assert response.status_code == 200  # the note is missing: the form again, with Jane still chosen
    assert f'<option value="{jane.pk}" selected>{JANE}</option>' in response.content.decode()
    assert Asset.objects.get(pk=asset.pk).assigned_user is None

    response = super_client.post(page, {"checkout_to_type": "user", "assigned_user": jane.pk, "note": "new job"})
    assert response.status_code == 302
    assert Asset.objects.get(pk=asset.pk).assigned_user == jane


def test_the_department_manager_and_location_manager_pickers(super_client, jane):
    department = DepartmentFactory(manager=jane)
    text = super_client.get(reverse("admin:accounts_department_change", args=[department.pk])).content.decode()
    assert f'<option value="{jane.pk}" selected>{JANE}</option>' in text
    assert suggestions(super_client, "manager", "E-4711", model_name="location") == [JANE]
    response = super_client.get(AUTOCOMPLETE, {"app_label": "accounts", "model_name": "department",
                                               "field_name": "manager", "term": "jane@"})
    assert [row["text"] for row in response.json()["results"]] == [JANE]


def test_the_token_user_picker_searches(super_client, jane):
    text = super_client.get(reverse("admin:accounts_personalaccesstoken_add")).content.decode()
    assert "admin/autocomplete/" in text and 'data-field-name="user"' in text
    response = super_client.get(AUTOCOMPLETE, {"app_label": "accounts", "model_name": "personalaccesstoken",
                                               "field_name": "user", "term": "Doe"})
    assert [row["text"] for row in response.json()["results"]] == [JANE]
    response = super_client.post(reverse("admin:accounts_personalaccesstoken_add"), {"user": jane.pk, "name": "ci"})
    assert response.status_code == 200 and PersonalAccessToken.objects.filter(user=jane, name="ci").count() == 1


def test_a_company_administrators_pickers_answer_their_company_only(company, other_company, fmcs_on, jane):
    """Scoped as the autocomplete always was (the related admin's ``get_queryset``): even an exact e-mail, employee
    number, tag or serial of another company finds nothing."""
    cadmin = UserFactory(username="cadmin", company=company, permissions={"admin": 1})
    client = Client()
    client.force_login(cadmin)
    UserFactory(username="jdoe2", first_name="Jane", last_name="Dole", email="jane.dole@example.com",
                employee_num="E-1000", company=company)
    jane.company = other_company
    jane.save()
    AssetFactory(asset_tag="OURS-1", name="Our laptop", serial="SN-OURS", company=company)
    AssetFactory(asset_tag="THEIRS-1", name="Their laptop", serial="SN-THEIRS", company=other_company)

    assert suggestions(client, "assigned_user", "Jane") == ["Jane Dole (jdoe2, jane.dole@example.com)"]
    for term in ("jane@example.com", "E-4711"):
        assert suggestions(client, "assigned_user", term) == [], term
    assert suggestions(client, "assigned_asset", "laptop") == ["OURS-1 – Our laptop (SN-OURS)"]
    for term in ("THEIRS-1", "SN-THEIRS"):
        assert suggestions(client, "assigned_asset", term) == [], term
    assert suggestions(client, "asset", "THEIRS", model_name="maintenance") == []
    response = client.get(AUTOCOMPLETE, {"app_label": "accounts", "model_name": "department",
                                         "field_name": "manager", "term": "jane@example.com"})
    assert response.status_code == 200 and response.json()["results"] == []


def test_the_api_select_list_is_unchanged(token_client, jane):
    """The labels are the admin's: the API's user select list keeps Snipe-IT's text."""
    response = token_client.get("/api/v1/users/selectlist", {"search": "jdoe"})
    assert response.status_code == 200
    texts = [row["text"] for row in response.json()["results"]]
    assert texts and JANE not in texts
