"""Issue 12 item 6: every error of a write at once, dates only as ``YYYY-MM-DD`` with a message that says so, and a
hint when a JSON body is sent without ``Content-Type: application/json``."""

from __future__ import annotations

import json

import pytest

from assetsvc.api.inputs import JSON_WITHOUT_CONTENT_TYPE
from inventory.choices import StatusType
from inventory.models import Asset
from tests.factories import AssetFactory, AssetModelFactory, CategoryFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/hardware"


@pytest.fixture
def base(db):
    model = AssetModelFactory()
    status = StatusLabelFactory(type=StatusType.DEPLOYABLE)
    return {"asset_tag": "NEW-1", "model_id": model.pk, "status_id": status.pk}


def test_an_empty_create_names_the_tag_model_and_status_together(token_client):
    body = token_client.post(URL, {}, format="json").json()
    assert body["status"] == "error"
    assert body["messages"] == {"asset_tag": ["The asset tag field is required."],
                                "model_id": ["The model id field is required."],
                                "status_id": ["The status id field is required."]}
    assert body["message"] == "The asset tag field is required."


def test_a_missing_tag_comes_with_other_field_errors(token_client, base):
    body = token_client.post(URL, {"model_id": base["model_id"], "purchase_date": "soon"}, format="json").json()
    assert set(body["messages"]) == {"asset_tag", "status_id", "purchase_date"}


def test_with_generated_tags_a_missing_tag_is_no_error(token_client, site_settings):
    site_settings.auto_increment_assets = True
    site_settings.save()
    body = token_client.post(URL, {}, format="json").json()
    assert set(body["messages"]) == {"model_id", "status_id"}


def test_an_update_does_not_need_the_tag(token_client):
    asset = AssetFactory()
    body = token_client.patch(f"{URL}/{asset.pk}", {"name": "Renamed"}, format="json").json()
    assert body["status"] == "success", body


@pytest.mark.parametrize("value", ["2023-02-28T10:00:00", "2023-02-28 10:00:00", "2023-02-28T23:30:00-05:00",
                                   "28.02.2023", "2023-2-28", "next year", 20230228])
def test_dates_take_only_yyyy_mm_dd(token_client, base, value):
    body = token_client.post(URL, {**base, "purchase_date": value}, format="json").json()
    assert body["status"] == "error"
    assert body["messages"] == {"purchase_date": ["The purchase date does not match the format YYYY-MM-DD."]}
    assert not Asset.objects.exists()


def test_an_impossible_date_is_not_a_valid_date(token_client, base):
    body = token_client.post(URL, {**base, "purchase_date": "2023-02-30"}, format="json").json()
    assert body["messages"] == {"purchase_date": ["The purchase date is not a valid date."]}


def test_a_date_is_stored(token_client, base):
    body = token_client.post(URL, {**base, "purchase_date": " 2023-02-28 "}, format="json").json()
    assert body["status"] == "success", body
    assert str(Asset.objects.get().purchase_date) == "2023-02-28"


@pytest.mark.parametrize("content_type", ["", "application/x-www-form-urlencoded"])
def test_json_without_its_content_type_gets_a_hint(token_client, base, content_type):
    response = token_client.generic("POST", URL, json.dumps(base), content_type=content_type)
    body = response.json()
    assert body["status"] == "error"
    assert body["message"] == JSON_WITHOUT_CONTENT_TYPE
    assert "Content-Type: application/json" in body["message"]
    assert not Asset.objects.exists()


def test_a_real_form_still_works(token_client, base):
    response = token_client.post(URL, base)  # multipart
    assert response.json()["status"] == "success"
    form = "&".join(f"{key}={value}" for key, value in {**base, "asset_tag": "NEW-2"}.items())
    response = token_client.generic("POST", URL, form, content_type="application/x-www-form-urlencoded")
    assert response.json()["status"] == "success", response.content


def test_a_rule_across_fields_is_reported_with_the_field_errors(token_client):
    """``validate()`` rules used to wait until every field passed."""
    body = token_client.post("/api/v1/users", {"password": "long-enough-1", "password_confirmation": "other-one-2"},
                             format="json").json()
    assert body["messages"] == {"first_name": ["The first name field is required."],
                                "username": ["The username field is required."],
                                "password": ["The password confirmation does not match."]}


def test_a_wrong_kind_of_category_comes_with_the_missing_name(token_client):
    category = CategoryFactory(category_type="consumable")
    body = token_client.post("/api/v1/accessories", {"qty": 1, "category_id": category.pk}, format="json").json()
    assert body["messages"] == {"name": ["The name field is required."],
                                "category_id": ["The category must be an accessory category."]}


def test_a_rule_needing_a_failed_field_adds_nothing(token_client):
    body = token_client.post("/api/v1/accessories", {"qty": "many"}, format="json").json()
    assert set(body["messages"]) == {"name", "qty", "category_id"}


def test_a_taken_tag_and_serial_come_with_the_field_errors(token_client, site_settings):
    site_settings.unique_serial = True
    site_settings.save()
    AssetFactory(asset_tag="DUP-1", serial="SER-1")
    body = token_client.post(URL, {"asset_tag": "dup-1", "serial": "ser-1", "purchase_date": "soon"},
                             format="json").json()
    assert body["messages"]["asset_tag"] == ["The asset tag must be unique."]
    assert body["messages"]["serial"] == ["The serial must be unique."]
    assert set(body["messages"]) == {"asset_tag", "serial", "model_id", "status_id", "purchase_date"}
    assert Asset.objects.count() == 1


def test_an_update_keeps_its_own_tag_and_serial_but_not_another_assets(token_client, site_settings):
    site_settings.unique_serial = True
    site_settings.save()
    asset = AssetFactory(asset_tag="OWN-1", serial="OWN-S")
    AssetFactory(asset_tag="OTHER-1", serial="OTHER-S")
    url = f"{URL}/{asset.pk}"
    assert token_client.patch(url, {"asset_tag": "OWN-1", "serial": "OWN-S"}, format="json").json()["status"] == \
        "success"
    body = token_client.patch(url, {"asset_tag": "other-1", "serial": "OTHER-S", "status_id": 0},
                              format="json").json()
    assert set(body["messages"]) == {"asset_tag", "serial", "status_id"}
    asset.refresh_from_db()
    assert (asset.asset_tag, asset.serial) == ("OWN-1", "OWN-S")


def test_serials_may_repeat_when_the_site_allows_it(token_client, base):
    AssetFactory(serial="SER-1")
    assert token_client.post(URL, {**base, "serial": "SER-1"}, format="json").json()["status"] == "success"


def test_a_taken_username_comes_with_the_field_errors(token_client):
    taken = UserFactory(username="jdoe")
    body = token_client.post("/api/v1/users", {"username": "JDOE", "password": "short"}, format="json").json()
    assert set(body["messages"]) == {"username", "first_name", "password"}
    assert body["messages"]["username"] == ["The username must be unique."]
    own = UserFactory(username="own")
    answer = token_client.patch(f"/api/v1/users/{own.pk}", {"username": "OWN"}, format="json").json()
    assert answer["status"] == "success"
    body = token_client.patch(f"/api/v1/users/{own.pk}", {"username": taken.username, "email": "x"},
                              format="json").json()
    assert set(body["messages"]) == {"username", "email"}
