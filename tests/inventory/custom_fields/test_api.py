"""Custom field and fieldset definitions (API-CONTRACT.md §11, issue 15 parts 1, 2 and 8): the shared checks of
``tests/api_mixins.py`` per resource, then the rules and texts of §11, the column-name rule, associate, disassociate
and order, the models' ``fieldset_id``, and the permissions."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from accounts.permissions import has_access
from activity.models import ActionLog
from inventory.api.custom_fields import views
from inventory.models import AssetFieldValue, AssetModel, CustomField, CustomFieldset, CustomFieldsetField
from tests.api_mixins import (
    CreateTests,
    DeleteGuardTests,
    DeleteTests,
    NameRulesTests,
    PermissionTests,
    QueryBudgetTests,
    RetrieveTests,
    error_of,
    http_errors,
)
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

FIELD_KEYS = ["id", "name", "db_column_name", "db_column", "format", "field_values", "field_values_array", "type",
              "element", "field_encrypted", "is_unique", "required", "display_in_user_view", "auto_add_to_fieldsets",
              "show_in_listview", "display_checkin", "display_checkout", "display_audit", "help_text", "created_at",
              "updated_at", "available_actions"]
_names = itertools.count(1)


class SharedChecks(RetrieveTests, CreateTests, DeleteTests, DeleteGuardTests, NameRulesTests, PermissionTests,
                   QueryBudgetTests):
    """The mixins that fit: the list is ordered by id (tested below), and updates are tested per resource."""

    section = "customfields"


class TestFieldsAPI(SharedChecks):
    url = "/api/v1/fields"
    viewset = views.CustomFieldViewSet
    model = CustomField
    factory = CustomFieldFactory
    item_type = "customfield"
    not_found_message = "That field does not exist."
    created_message = "Field created successfully."
    updated_message = "Field updated successfully."
    delete_message = "The field was deleted successfully."
    guard_message = "Field is in use."

    def create_payload(self) -> dict[str, Any]:
        return {"name": "MAC Address", "element": "text", "format": "MAC"}

    def update_payload(self) -> dict[str, Any]:
        return {"help_text": "edited"}

    def make_in_use(self, obj) -> None:
        CustomFieldsetFieldFactory(field=obj)


class TestFieldsetsAPI(SharedChecks):
    url = "/api/v1/fieldsets"
    viewset = views.CustomFieldsetViewSet
    model = CustomFieldset
    factory = CustomFieldsetFactory
    item_type = "customfieldset"
    not_found_message = "Fieldset does not exist"
    created_message = "Fieldset created successfully."
    updated_message = "Fieldset updated successfully."
    delete_message = "The fieldset was deleted successfully."
    guard_message = "Fieldset is in use."

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Laptops"}

    def update_payload(self) -> dict[str, Any]:
        return {"name": f"Renamed {next(_names)}"}

    def make_in_use(self, obj) -> None:
        AssetModelFactory(fieldset=obj)

    def make_listed(self) -> None:
        fieldset = CustomFieldsetFactory()
        CustomFieldsetFieldFactory(fieldset=fieldset)
        AssetModelFactory(fieldset=fieldset)


# --- lists --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "factory"), [("/api/v1/fields", CustomFieldFactory),
                                              ("/api/v1/fieldsets", CustomFieldsetFactory)])
def test_lists_are_ordered_by_id_and_take_limit_offset_and_search(token_client, url, factory):
    rows = [factory(name="Bravo"), factory(name="alpha"), factory(name="Charlie")]
    body = token_client.get(url).json()
    assert list(body) == ["total", "rows"] and body["total"] == 3
    assert [row["id"] for row in body["rows"]] == [row.pk for row in rows]
    page = token_client.get(url, {"limit": 1, "offset": 1}).json()
    assert page["total"] == 3 and [row["id"] for row in page["rows"]] == [rows[1].pk]
    assert [r["name"] for r in token_client.get(url, {"search": "ALPH"}).json()["rows"]] == ["alpha"]


def test_field_record_has_the_contract_keys(token_client):
    field = CustomFieldFactory(name="OS", field_values="a\nb|Bee\n\n", help_text=None)
    record = token_client.get(f"/api/v1/fields/{field.pk}").json()
    assert list(record) == FIELD_KEYS
    assert record["db_column_name"] == record["db_column"] == f"_snipeit_os_{field.pk}"
    assert record["type"] == record["element"] == "text" and record["format"] == "ANY"
    assert record["field_values_array"] == ["a", "b|Bee"] and record["required"] is False
    assert record["help_text"] is None and record["created_at"].endswith("Z")


def test_fieldset_record_lists_fields_in_order_with_required_and_models(token_client):
    fieldset = CustomFieldsetFactory(name="Phones")
    second, first = CustomFieldFactory(name="IMEI"), CustomFieldFactory(name="OS")
    CustomFieldsetFieldFactory(fieldset=fieldset, field=second, order=2, required=True)
    CustomFieldsetFieldFactory(fieldset=fieldset, field=first, order=1)
    model = AssetModelFactory(name="Pixel", fieldset=fieldset)
    AssetModelFactory(name="Gone", fieldset=fieldset, deleted_at="2026-01-01T00:00:00Z")
    record = token_client.get(f"/api/v1/fieldsets/{fieldset.pk}").json()
    assert list(record) == ["id", "name", "fields", "models", "created_at", "updated_at", "available_actions"]
    assert record["fields"]["total"] == 2
    assert [(r["name"], r["required"]) for r in record["fields"]["rows"]] == [("OS", False), ("IMEI", True)]
    assert record["models"] == {"total": 1, "rows": [{"id": model.pk, "name": "Pixel"}]}
    assert record["available_actions"] == {"update": True, "delete": False}
    for method in ("get", "post"):
        rows = getattr(token_client, method)(f"/api/v1/fieldsets/{fieldset.pk}/fields").json()
        assert rows["total"] == 2 and [r["name"] for r in rows["rows"]] == ["OS", "IMEI"]
        assert rows["rows"][1]["required"] is True
        rows = getattr(token_client, method)(f"/api/v1/fieldsets/{fieldset.pk}/fields/{model.pk}").json()
        assert rows == {"total": 2, "rows": [
            {"id": first.pk, "name": "OS", "type": "text", "field_values_array": None, "default_value": None},
            {"id": second.pk, "name": "IMEI", "type": "text", "field_values_array": None, "default_value": None}]}
    missing = token_client.get("/api/v1/fieldsets/999999/fields").json()
    assert missing["status"] == "error" and missing["message"] == "Fieldset does not exist"


# --- writing a field ----------------------------------------------------------------------------------------------


def test_create_field_answers_the_record_with_its_fixed_column(token_client):
    body = token_client.post("/api/v1/fields", {"name": "MAC Address", "element": "TEXT", "format": "mac",
                                                "is_unique": "on", "display_audit": "1", "help_text": " Hi "},
                             format="json").json()
    assert body["status"] == "success", body
    record = body["payload"]
    assert record["db_column_name"] == f"_snipeit_mac_address_{record['id']}"
    assert record["format"] == "MAC" and record["is_unique"] is True and record["display_audit"] is True
    assert record["help_text"] == "Hi"


@pytest.mark.parametrize(("name", "column"), [
    ("Établissement Numéro", "_snipeit_etablissement_numero"),
    ("  --Wi-Fi  MAC!!", "_snipeit_wi_fi_mac"),
    ("x" * 80, "_snipeit_" + "x" * 41),
    ("Adresse IP (v4) / Réseau", "_snipeit_adresse_ip_v4_reseau"),
])
def test_column_name_rule_and_a_rename_keeps_it(token_client, name, column):
    record = token_client.post("/api/v1/fields", {"name": name, "element": "text"}, format="json").json()["payload"]
    assert record["db_column_name"] == f"{column}_{record['id']}"
    renamed = token_client.patch(f"/api/v1/fields/{record['id']}", {"name": "Something else"}, format="json").json()
    assert renamed["status"] == "success"
    assert renamed["payload"]["db_column_name"] == record["db_column_name"]
    assert CustomField.objects.get(pk=record["id"]).db_column_name == record["db_column_name"]


@pytest.mark.parametrize(("payload", "field", "message"), [
    ({"name": "A"}, "element", "The element field is required."),
    ({"name": "A", "element": "dropdown"}, "element", "The selected element is invalid."),
    ({"name": "A", "element": ["text"]}, "element", "The selected element is invalid."),
    ({"name": "A", "element": "text", "format": "FOO"}, "format", "The selected format is invalid."),
    ({"name": "A", "element": "text", "format": "regex:/[a-/"}, "format", "The selected format is invalid."),
    ({"name": "A", "element": "text", "format": "regex:/abc/q"}, "format", "The selected format is invalid."),
    ({"name": "A", "element": "text", "format": "regex:abc"}, "format", "The selected format is invalid."),
    ({"name": "A", "element": "text", "format": ["ANY"]}, "format", "The format must be a string."),
    ({"name": "A", "element": "text", "format": "x" * 300}, "format",
     "The format may not be greater than 255 characters."),
    ({"name": "A", "element": "text", "field_values": "a\x00b"}, "field_values", "Null characters are not allowed."),
    ({"name": "A", "element": "text", "help_text": "x" * 65536}, "help_text",
     "The help text may not be greater than 65535 characters."),
    ({"name": "A", "element": "text", "is_unique": "maybe"}, "is_unique", "The is unique field must be true or false."),
])
def test_bad_field_input_is_a_field_error_and_writes_nothing(token_client, settings, payload, field, message):
    assert error_of(token_client.post("/api/v1/fields", payload, format="json"), field) == [message]
    assert not CustomField.objects.exists() and not ActionLog.objects.exists()
    http_errors(settings)
    assert token_client.post("/api/v1/fields", payload, format="json").status_code == 422


@pytest.mark.parametrize(("sent", "stored"), [
    ("ANY", "ANY"), ("", "ANY"), (None, "ANY"), ("alpha_dash", "ALPHA-DASH"), ("numeric", "NUMERIC"),
    ("ipv6", "IPV6"), ("boolean", "BOOLEAN"), ("regex:/^[0-9]{4}$/", "regex:/^[0-9]{4}$/"),
    ("regex:/^a/i/im", "regex:/^a/i/im"),
])
def test_formats_are_stored_by_name_or_as_the_regex(token_client, sent, stored):
    body = token_client.post("/api/v1/fields", {"name": "F", "element": "text", "format": sent}, format="json").json()
    assert body["payload"]["format"] == stored, body


def test_field_name_taken_in_another_case(token_client):
    CustomFieldFactory(name="Serial Two")
    response = token_client.post("/api/v1/fields", {"name": "serial two", "element": "text"}, format="json")
    assert error_of(response, "name") == ["The name has already been taken."]


def test_encryption_is_fixed_at_creation(token_client, settings):
    field = CustomFieldFactory(field_encrypted=True)
    response = token_client.patch(f"/api/v1/fields/{field.pk}", {"field_encrypted": False, "name": "New"},
                                  format="json")
    assert error_of(response, "field_encrypted") == ["Encryption cannot be changed after the field is created."]
    field.refresh_from_db()
    assert field.field_encrypted is True and field.name != "New"
    same = token_client.patch(f"/api/v1/fields/{field.pk}", {"field_encrypted": "1", "help_text": "x"},
                              format="json").json()
    assert same["status"] == "success" and same["payload"]["field_encrypted"] is True


@pytest.mark.parametrize("method", ["put", "patch"])
def test_field_update_is_partial_and_logged(token_client, method):
    field = CustomFieldFactory(name="Before", help_text="keep", format="NUMERIC")
    body = getattr(token_client, method)(f"/api/v1/fields/{field.pk}", {"name": "After"}, format="json").json()
    assert body["status"] == "success" and body["messages"] == "Field updated successfully."
    field.refresh_from_db()
    assert (field.name, field.help_text, field.format) == ("After", "keep", "NUMERIC")
    log = ActionLog.objects.get(item_type="customfield", item_id=field.pk, action_type="update")
    assert log.log_meta == {"name": {"old": "Before", "new": "After"}}


def test_deleting_a_field_deletes_its_values(token_client):
    field = CustomFieldFactory()
    AssetFieldValue.objects.create(asset=AssetFactory(), field=field, value="x")
    assert token_client.delete(f"/api/v1/fields/{field.pk}").json()["status"] == "success"
    assert not AssetFieldValue.objects.exists()


# --- fieldsets ----------------------------------------------------------------------------------------------------


def test_new_fieldset_receives_the_auto_add_fields(token_client):
    auto = CustomFieldFactory(auto_add_to_fieldsets=True)
    CustomFieldFactory()
    body = token_client.post("/api/v1/fieldsets", {"name": "Auto"}, format="json").json()
    assert body["status"] == "success"
    assert [row["id"] for row in body["payload"]["fields"]["rows"]] == [auto.pk]
    assert body["payload"]["fields"]["total"] == 1


def test_fieldset_with_fields_is_in_use(token_client, settings):
    membership = CustomFieldsetFieldFactory()
    response = token_client.delete(f"/api/v1/fieldsets/{membership.fieldset_id}").json()
    assert response["message"] == "Fieldset is in use."
    assert CustomFieldset.objects.filter(pk=membership.fieldset_id).exists()


def test_associate_disassociate_and_order(token_client, settings):
    fieldset = CustomFieldsetFactory()
    a, b, c = CustomFieldFactory(name="A"), CustomFieldFactory(name="B"), CustomFieldFactory(name="C")
    for field, extra in ((a, {}), (b, {"required": True}), (c, {"order": 0})):
        body = token_client.post(f"/api/v1/fields/{field.pk}/associate", {"fieldset_id": fieldset.pk, **extra},
                                 format="json").json()
        assert body["status"] == "success" and body["messages"] == "Fieldset updated successfully.", body
    rows = body["payload"]["fields"]["rows"]
    assert [(r["name"], r["required"]) for r in rows] == [("C", False), ("A", False), ("B", True)]
    again = token_client.post(f"/api/v1/fields/{a.pk}/associate", {"fieldset_id": fieldset.pk, "required": True},
                              format="json").json()
    assert again["status"] == "success" and CustomFieldsetField.objects.filter(fieldset=fieldset).count() == 3
    assert CustomFieldsetField.objects.get(fieldset=fieldset, field=a).required is False
    # order: every field exactly once
    for bad in ([a.pk, b.pk], [a.pk, b.pk, c.pk, c.pk], [a.pk, b.pk, 999999], ["x"], "abc"):
        response = token_client.post(f"/api/v1/fields/fieldsets/{fieldset.pk}/order", {"item": bad}, format="json")
        assert error_of(response, "item"), (bad, response.json())
    body = token_client.post(f"/api/v1/fields/fieldsets/{fieldset.pk}/order", {"item": [b.pk, c.pk, a.pk]},
                             format="json").json()
    assert body["status"] == "success" and body["messages"] == "Fieldset updated successfully."
    assert [r["id"] for r in body["payload"]["fields"]["rows"]] == [b.pk, c.pk, a.pk]
    assert token_client.post("/api/v1/fields/fieldsets/999999/order", {"item": []},
                             format="json").json()["message"] == "Fieldset does not exist"
    # disassociate, twice
    for _ in range(2):
        body = token_client.post(f"/api/v1/fields/{c.pk}/disassociate", {"fieldset_id": fieldset.pk},
                                 format="json").json()
        assert body["status"] == "success" and [r["id"] for r in body["payload"]["fields"]["rows"]] == [b.pk, a.pk]
    response = token_client.post(f"/api/v1/fields/{c.pk}/associate", {"fieldset_id": 999999999}, format="json")
    assert error_of(response, "fieldset_id") == ["The selected fieldset id is invalid."]
    response = token_client.post(f"/api/v1/fields/{c.pk}/associate", {}, format="json")
    assert error_of(response, "fieldset_id") == ["The fieldset id field is required."]
    assert token_client.post("/api/v1/fields/999999/associate", {"fieldset_id": fieldset.pk},
                             format="json").json()["message"] == "That field does not exist."


def test_associate_and_order_need_customfields_edit(make_client):
    fieldset, field = CustomFieldsetFactory(), CustomFieldFactory()
    calls = [("post", f"/api/v1/fields/{field.pk}/associate", {"fieldset_id": fieldset.pk}),
             ("post", f"/api/v1/fields/{field.pk}/disassociate", {"fieldset_id": fieldset.pk}),
             ("post", f"/api/v1/fields/fieldsets/{fieldset.pk}/order", {"item": []})]
    viewer = make_client(UserFactory(permissions={"customfields.view": 1, "customfields.create": 1}))
    for method, path, data in calls:
        assert getattr(viewer, method)(path, data, format="json").status_code == 403, path
    assert not CustomFieldsetField.objects.exists()
    editor = make_client(UserFactory(permissions={"customfields.edit": 1}))
    for method, path, data in calls:
        assert getattr(editor, method)(path, data, format="json").json()["status"] == "success", path
    reader = make_client(UserFactory(permissions={"customfields.edit": 1}))
    assert reader.post(f"/api/v1/fieldsets/{fieldset.pk}/fields").status_code == 403
    assert make_client(UserFactory(permissions={"customfields.view": 1})).post(
        f"/api/v1/fieldsets/{fieldset.pk}/fields").status_code == 200


# --- models' fieldset ---------------------------------------------------------------------------------------------


def test_models_take_fieldset_id_and_its_alias(token_client, settings):
    fieldset = CustomFieldsetFactory(name="Laptops")
    field = CustomFieldFactory(name="MAC Address", format="MAC")
    CustomFieldsetFieldFactory(fieldset=fieldset, field=field, required=True)
    category = CategoryFactory()
    body = token_client.post("/api/v1/models", {"name": "X1", "category_id": category.pk,
                                                "custom_fieldset_id": str(fieldset.pk)}, format="json").json()
    assert body["status"] == "success", body
    record = body["payload"]
    assert record["fieldset"] == {"id": fieldset.pk, "name": "Laptops"} and record["fieldset_id"] == fieldset.pk
    assert record["default_fieldset_values"] == [{"name": "MAC Address", "db_column_name": field.db_column_name,
                                                  "default_value": None, "format": "MAC", "required": True}]
    model = AssetModel.objects.get(pk=record["id"])
    assert model.fieldset == fieldset
    response = token_client.patch(f"/api/v1/models/{model.pk}", {"fieldset_id": 999999999}, format="json")
    assert error_of(response, "fieldset_id") == ["The selected fieldset id is invalid."]
    for bad in ("abc", [1], {"a": 1}, 1.5, True):
        assert error_of(token_client.patch(f"/api/v1/models/{model.pk}", {"fieldset_id": bad}, format="json"),
                        "fieldset_id"), bad
    model.refresh_from_db()
    assert model.fieldset == fieldset
    detached = token_client.put(f"/api/v1/models/{model.pk}", {"fieldset_id": None}, format="json").json()
    assert detached["payload"]["fieldset"] is None and detached["payload"]["default_fieldset_values"] == []
    model.refresh_from_db()
    assert model.fieldset is None
    listed = token_client.get("/api/v1/models").json()["rows"][0]
    assert listed["fieldset"] is None


# --- permissions and escalation -----------------------------------------------------------------------------------


def test_admin_does_not_pass_the_encrypted_fields_key():
    admin = UserFactory(permissions={"admin": 1})
    assert has_access(admin, "customfields.edit") and has_access(admin, "assets.view")
    assert not has_access(admin, "assets.view.encrypted_custom_fields")
    assert has_access(UserFactory(permissions={"admin": 1, "assets.view.encrypted_custom_fields": 1}),
                      "assets.view.encrypted_custom_fields")
    assert has_access(UserFactory(permissions={"superuser": 1}), "assets.view.encrypted_custom_fields")


def test_users_cannot_grant_customfields_keys_they_lack(make_client):
    manager = UserFactory(permissions={"users.view": 1, "users.create": 1, "users.edit": 1,
                                       "customfields.view": 1})
    client = make_client(manager)
    target = UserFactory()
    for key in ("customfields.edit", "customfields.create", "customfields.delete"):
        response = client.patch(f"/api/v1/users/{target.pk}", {"permissions": {key: 1}}, format="json")
        assert response.status_code == 403, key
    assert client.patch(f"/api/v1/users/{target.pk}", {"permissions": {"customfields.view": 1}},
                        format="json").json()["status"] == "success"
    admin = make_client(UserFactory(permissions={"admin": 1}))
    response = admin.patch(f"/api/v1/users/{target.pk}",
                           {"permissions": {"assets.view.encrypted_custom_fields": 1}}, format="json")
    assert response.status_code == 403
    target.refresh_from_db()
    assert target.permissions == {"customfields.view": 1}


# --- value storage (the values API comes next; the constraints are in place now) ------------------------------------


def test_value_storage_enforces_one_value_per_asset_and_unique_keys_in_the_database():
    field = CustomFieldFactory(is_unique=True)
    first, second = AssetFactory(), AssetFactory()
    AssetFieldValue.objects.create(asset=first, field=field, value="AA:BB", unique_key="k1")
    with pytest.raises(IntegrityError), transaction.atomic():
        AssetFieldValue.objects.create(asset=first, field=field, value="other")
    with pytest.raises(IntegrityError), transaction.atomic():
        AssetFieldValue.objects.create(asset=second, field=field, value="aa:bb", unique_key="k1")
    AssetFieldValue.objects.create(asset=second, field=field, value="aa:bb", unique_key=None)  # e.g. a deleted asset
    assert AssetFieldValue.objects.filter(field=field).count() == 2


def test_activity_report_names_fields_and_fieldsets(token_client):
    field = token_client.post("/api/v1/fields", {"name": "IMEI", "element": "text"}, format="json").json()["payload"]
    token_client.post("/api/v1/fieldsets", {"name": "Phones"}, format="json")
    rows = token_client.get("/api/v1/reports/activity").json()["rows"]
    assert {(row["item"]["type"], row["item"]["name"]) for row in rows} == {("customfield", "IMEI"),
                                                                            ("customfieldset", "Phones")}
    assert field["id"] in {row["item"]["id"] for row in rows}
