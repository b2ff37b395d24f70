"""Custom field values on assets through /hardware (issue 15 parts 3, 4 and 6; API-CONTRACT.md §11.1)."""

from __future__ import annotations

import pytest
from django.db import connection

from activity.models import ActionLog
from inventory.custom_values.crypto import MASK, decrypt
from inventory.models import Asset, AssetFieldValue
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CustomFieldFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.custom_fields import fieldset_of

URL = "/api/v1/hardware"
pytestmark = pytest.mark.django_db


@pytest.fixture
def fields():
    """MAC, NUMERIC, DATE, IPV4, BOOLEAN, radio, checkbox, a unique IMEI and an encrypted recovery key, in one set."""
    made = {
        "mac": CustomFieldFactory(name="MAC Address", format="MAC"),
        "ram": CustomFieldFactory(name="RAM", format="NUMERIC"),
        "seen": CustomFieldFactory(name="Last Seen", format="DATE"),
        "ip": CustomFieldFactory(name="IP", format="IPV4"),
        "managed": CustomFieldFactory(name="Managed", format="BOOLEAN"),
        "tier": CustomFieldFactory(name="Tier", element="radio", field_values="gold\nsilver"),
        "tags": CustomFieldFactory(name="Tags", element="checkbox", field_values="a\nb\nc"),
        "imei": CustomFieldFactory(name="IMEI", is_unique=True),
        "key": CustomFieldFactory(name="Recovery Key", field_encrypted=True),
    }
    return made


@pytest.fixture
def model(fields):
    return AssetModelFactory(fieldset=fieldset_of(*fields.values()))


def col(field) -> str:
    return field.db_column_name


def create(client, model, **extra):
    body = {"asset_tag": extra.pop("asset_tag", "CF-1"), "model_id": model.pk,
            "status_id": StatusLabelFactory().pk, **extra}
    return client.post(URL, body, format="json").json()


class TestWritesAndReads:
    def test_create_read_patch_roundtrip(self, token_client, fields, model):
        sent = {col(fields["mac"]): "AA:BB:CC:DD:EE:FF", col(fields["ram"]): 16384, col(fields["key"]): "s3cret",
                col(fields["managed"]): True}
        body = create(token_client, model, **sent)
        assert body["status"] == "success", body
        assert body["messages"] == "Asset created successfully. :)"
        for key, value in sent.items():
            assert body["payload"][key] == value  # echoed exactly as sent (a number stays a number)
        assert body["payload"][col(fields["ip"])] is None
        asset_id = body["payload"]["id"]

        record = token_client.get(f"{URL}/{asset_id}").json()
        custom = record["custom_fields"]
        assert list(custom) == [f.name for f in fields.values()]  # the set's order
        assert custom["MAC Address"] == {"field": col(fields["mac"]), "value": "AA:BB:CC:DD:EE:FF",
                                         "field_format": "MAC", "element": "text"}
        assert custom["RAM"]["value"] == "16384"
        assert custom["Managed"]["value"] == "1"
        assert custom["Recovery Key"]["value"] == "s3cret"  # superuser
        assert custom["IP"]["value"] == ""
        assert not any(key.startswith("_snipeit_") for key in record)  # reads have no top-level columns

        patch = {col(fields["ram"]): "32768", col(fields["ip"]): "", col(fields["seen"]): "2024-02-29"}
        answer = token_client.patch(f"{URL}/{asset_id}", patch, format="json").json()
        assert answer["status"] == "success", answer
        assert answer["payload"][col(fields["ram"])] == "32768"
        assert answer["payload"][col(fields["ip"])] is None
        assert answer["payload"][col(fields["seen"])] == "2024-02-29"
        assert answer["payload"][col(fields["mac"])] == "AA:BB:CC:DD:EE:FF"  # not sent: the stored text
        assert answer["payload"]["custom_fields"]["RAM"]["value"] == "32768"
        log = ActionLog.objects.filter(item_type="asset", item_id=asset_id, action_type="update").get()
        assert log.log_meta == {col(fields["ram"]): {"old": "16384", "new": "32768"},
                                col(fields["seen"]): {"old": None, "new": "2024-02-29"}}

    def test_encrypted_values_are_stored_encrypted_and_logged_masked(self, token_client, fields, model):
        body = create(token_client, model, **{col(fields["key"]): "s3cret"})
        row = AssetFieldValue.objects.get(asset_id=body["payload"]["id"], field=fields["key"])
        assert "s3cret" not in row.value and decrypt(row.value) == "s3cret"
        token_client.patch(f"{URL}/{body['payload']['id']}", {col(fields["key"]): "other"}, format="json")
        log = ActionLog.objects.filter(item_id=body["payload"]["id"], action_type="update").get()
        assert log.log_meta == {col(fields["key"]): {"old": MASK, "new": MASK}}
        assert "s3cret" not in str(ActionLog.objects.values_list("log_meta", "note"))

    def test_caller_without_the_permission_sees_encrypted_and_cannot_write(self, token_client, make_client, fields,
                                                                         model):
        asset_id = create(token_client, model, **{col(fields["key"]): "s3cret"})["payload"]["id"]
        admin = make_client(UserFactory(permissions={"admin": 1}))
        record = admin.get(f"{URL}/{asset_id}").json()
        assert record["custom_fields"]["Recovery Key"]["value"] == MASK
        listed = admin.get(URL).json()["rows"][0]
        assert listed["custom_fields"]["Recovery Key"]["value"] == MASK
        answer = admin.patch(f"{URL}/{asset_id}", {col(fields["key"]): "mine", col(fields["ram"]): 8},
                             format="json").json()
        assert answer["status"] == "success"
        assert answer["messages"] == "Asset updated successfully, but encrypted custom fields were not due to " \
                                     "permissions"
        assert answer["payload"][col(fields["key"])] == MASK
        assert answer["payload"][col(fields["ram"])] == 8
        assert decrypt(AssetFieldValue.objects.get(asset_id=asset_id, field=fields["key"]).value) == "s3cret"
        granted = make_client(UserFactory(permissions={"admin": 1, "assets.view.encrypted_custom_fields": 1}))
        assert granted.get(f"{URL}/{asset_id}").json()["custom_fields"]["Recovery Key"]["value"] == "s3cret"

    def test_model_change_hides_values_and_changing_back_shows_them(self, token_client, fields, model):
        asset_id = create(token_client, model, **{col(fields["mac"]): "AA:BB:CC:DD:EE:FF"})["payload"]["id"]
        other = AssetModelFactory(fieldset=fieldset_of(fields["ram"]))
        answer = token_client.patch(f"{URL}/{asset_id}", {"model_id": other.pk}, format="json").json()
        assert list(answer["payload"]["custom_fields"]) == ["RAM"]
        assert col(fields["mac"]) not in answer["payload"]
        assert AssetFieldValue.objects.filter(asset_id=asset_id, field=fields["mac"]).exists()
        refused = token_client.patch(f"{URL}/{asset_id}", {col(fields["mac"]): "AA:BB:CC:DD:EE:00"},
                                     format="json").json()
        assert refused["messages"] == {col(fields["mac"]): [
            "This field seems to exist, but is not available on this Asset Model's fieldset."]}
        back = token_client.patch(f"{URL}/{asset_id}", {"model_id": model.pk}, format="json").json()
        assert back["payload"]["custom_fields"]["MAC Address"]["value"] == "AA:BB:CC:DD:EE:FF"

    def test_model_without_fieldset_reads_empty_object(self, token_client):
        asset = AssetFactory()
        assert token_client.get(f"{URL}/{asset.pk}").json()["custom_fields"] == {}

    def test_list_queries_do_not_grow_with_rows_or_fields(self, token_client, fields, model,
                                                          django_assert_max_num_queries):
        for n in range(3):
            create(token_client, model, asset_tag=f"Q-{n}", **{col(fields["mac"]): f"AA:BB:CC:DD:EE:0{n}"})
        with django_assert_max_num_queries(12) as few:
            token_client.get(URL, {"limit": 2})
        for _ in range(3, 30):
            AssetFactory(model=model)
        with django_assert_max_num_queries(len(few.captured_queries)):
            rows = token_client.get(URL, {"limit": 30}).json()["rows"]
        assert len(rows) == 30 and all(len(row["custom_fields"]) == len(fields) for row in rows)


class TestBadInput:
    @pytest.mark.parametrize(("key", "value", "message"), [
        ("mac", "AA-BB-CC-DD-EE-FF", "The MAC Address field format is invalid."),
        ("ram", "12a", "The RAM field must be a number."),
        ("ram", "NaN", "The RAM field must be a number."),
        ("seen", "2023-02-30", "The Last Seen field must be a valid date."),
        ("ip", "300.1.1.1", "The IP field must be a valid IPv4 address."),
        ("managed", "maybe", "The Managed field must be true or false."),
        ("tier", "bronze", "Tier is invalid."),
        ("tags", ["a", "z"], "Tags contains invalid options."),
        ("mac", ["AA:BB:CC:DD:EE:FF"], "MAC Address cannot be an array."),
        ("ram", {"value": 1}, "RAM cannot be an array."),
        ("imei", "x" * 65536, "The IMEI field must not be greater than 65535 characters."),
        ("imei", "a\x00b", "The IMEI field cannot contain NUL characters."),
    ])
    @pytest.mark.parametrize("verb", ["create", "patch", "put"])
    def test_bad_values_are_field_errors_that_change_nothing(self, token_client, fields, model, key, value,
                                                             message, verb):
        asset = AssetFactory(model=model)
        before = (Asset.objects.count(), AssetFieldValue.objects.count(), ActionLog.objects.count())
        body = {col(fields[key]): value, "name": "changed", "serial": "not-a-field-error"}
        if verb == "create":
            answer = create(token_client, model, **body)
        else:
            answer = getattr(token_client, verb)(f"{URL}/{asset.pk}", body, format="json").json()
        assert answer["status"] == "error"
        assert answer["messages"] == {col(fields[key]): [message]}
        assert (Asset.objects.count(), AssetFieldValue.objects.count(), ActionLog.objects.count()) == before
        asset.refresh_from_db()
        assert asset.name != "changed"

    def test_unknown_column_and_bad_model_are_reported_with_other_errors(self, token_client, fields, model):
        answer = create(token_client, model, _snipeit_nope_999="x", name=["a list"])
        assert answer["messages"]["_snipeit_nope_999"] == [
            "This field does not seem to exist, please double check your custom field names."]
        assert "name" in answer["messages"]
        only_model = token_client.post(URL, {"asset_tag": "M-1", "model_id": 999999999, "status_id":
                                             StatusLabelFactory().pk, "_snipeit_nope_999": "x"}, format="json").json()
        assert list(only_model["messages"]) == ["model_id"]

    def test_required_on_create_and_when_cleared_but_not_on_other_updates(self, token_client, fields):
        required_model = AssetModelFactory(fieldset=fieldset_of(fields["mac"], fields["ram"], required=[fields["mac"]]))
        legacy = AssetFactory(model=required_model)  # no value: existed before the field became required
        answer = create(token_client, required_model)
        assert answer["messages"] == {col(fields["mac"]): ["The MAC Address field is required."]}
        ok = token_client.patch(f"{URL}/{legacy.pk}", {"notes": "n", col(fields["ram"]): 1}, format="json").json()
        assert ok["status"] == "success"
        cleared = token_client.patch(f"{URL}/{legacy.pk}", {col(fields["mac"]): ""}, format="json").json()
        assert cleared["messages"] == {col(fields["mac"]): ["The MAC Address field is required."]}
        moved = AssetFactory(model=AssetModelFactory())
        refused = token_client.patch(f"{URL}/{moved.pk}", {"model_id": required_model.pk}, format="json").json()
        assert refused["messages"] == {col(fields["mac"]): ["The MAC Address field is required."]}

    def test_unique_values_ignore_case_and_deleted_assets(self, token_client, fields, model):
        first = create(token_client, model, asset_tag="U-1", **{col(fields["imei"]): "ab123"})["payload"]["id"]
        taken = create(token_client, model, asset_tag="U-2", **{col(fields["imei"]): " AB123 "})
        assert taken["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}
        assert token_client.patch(f"{URL}/{first}", {col(fields["imei"]): "AB123"}, format="json").json()[
            "status"] == "success"  # its own value
        token_client.delete(f"{URL}/{first}")
        second = create(token_client, model, asset_tag="U-3", **{col(fields["imei"]): "ab123"})
        assert second["status"] == "success"
        restore = token_client.post(f"{URL}/{first}/restore").json()
        assert restore["status"] == "error"
        assert restore["messages"] == {col(fields["imei"]): ["The IMEI must be unique."]}
        assert Asset.objects.get(pk=first).deleted_at is not None


class TestNested:
    def test_nested_entries_by_name_or_column_are_written_and_strangers_reported(self, token_client, fields, model):
        nested = {"mac address": {"value": "AA:BB:CC:DD:EE:FF"}, col(fields["ram"]): 4, "Serial Number": "x",
                  "IP": "999.1.1.1"}
        answer = create(token_client, model, custom_fields=nested)
        assert answer["status"] == "success", answer
        assert answer["messages"] == (
            "Asset created successfully. :) Ignored custom_fields entries: Serial Number (not a field of this "
            "asset's model); IP (The IP field must be a valid IPv4 address.).")
        custom = token_client.get(f"{URL}/{answer['payload']['id']}").json()["custom_fields"]
        assert custom["MAC Address"]["value"] == "AA:BB:CC:DD:EE:FF" and custom["RAM"]["value"] == "4"
        assert custom["IP"]["value"] == ""

    def test_top_level_wins_and_non_object_is_an_error(self, token_client, fields, model):
        answer = create(token_client, model, custom_fields={"RAM": 1}, **{col(fields["ram"]): 2})
        assert answer["payload"]["custom_fields"]["RAM"]["value"] == "2"
        assert create(token_client, model, asset_tag="N-2", custom_fields="x")["messages"] == {
            "custom_fields": ["The custom fields field must be an object."]}
        for empty in (None, {}, []):
            assert create(token_client, model, asset_tag=f"N-{empty!r}", custom_fields=empty)["status"] == "success"


class TestAudit:
    def test_audit_writes_display_audit_fields_and_names_the_others(self, token_client, fields):
        fields["ram"].display_audit = True
        fields["ram"].save()
        audited = AssetModelFactory(fieldset=fieldset_of(fields["ram"], fields["mac"]))
        asset = AssetFactory(model=audited)
        answer = token_client.post(f"{URL}/{asset.pk}/audit", {col(fields["ram"]): 64, col(fields["mac"]): "x"},
                                   format="json").json()
        assert answer["status"] == "success"
        assert answer["messages"] == f"Asset audit successfully logged. Ignored custom fields: {col(fields['mac'])}."
        assert answer["payload"]["custom_fields"] == {col(fields["ram"]): 64}
        assert AssetFieldValue.objects.get(asset=asset, field=fields["ram"]).value == "64"
        bad = token_client.post(f"{URL}/{asset.pk}/audit", {col(fields["ram"]): "lots"}, format="json").json()
        assert bad["messages"] == {col(fields["ram"]): ["The RAM field must be a number."]}


class TestBulk:
    def test_bulk_update_with_custom_values_and_an_unknown_id(self, token_client, fields, model):
        assets = [AssetFactory(model=model) for _ in range(3)]
        plain = AssetFactory(model=AssetModelFactory())
        ids = [a.pk for a in assets] + [999999, plain.pk]
        answer = token_client.patch(f"{URL}/bulk", {"ids": ids, col(fields["ram"]): 8}, format="json").json()
        assert answer["status"] == "partial", answer
        statuses = [row["status"] for row in answer["results"]]
        assert statuses == ["success"] * 3 + ["error", "error"]
        assert answer["results"][0]["payload"][col(fields["ram"])] == 8
        assert answer["results"][4]["messages"] == {col(fields["ram"]): [
            "This field seems to exist, but is not available on this Asset Model's fieldset."]}
        assert AssetFieldValue.objects.filter(field=fields["ram"], value="8").count() == 3

    def test_bulk_unknown_column_refuses_the_batch(self, token_client, fields, model):
        asset = AssetFactory(model=model)
        answer = token_client.patch(f"{URL}/bulk", {"ids": [asset.pk], "_snipeit_nope_1": 1}, format="json").json()
        assert answer["status"] == "error"
        assert answer["messages"] == {"_snipeit_nope_1": [
            "This field does not seem to exist, please double check your custom field names."]}
        assert not AssetFieldValue.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a real race needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_of_one_unique_value_exactly_one_wins(fields, model, make_client):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    from tests.factories import UserFactory as Users

    superuser = Users(superuser=True)
    assets = [AssetFactory(model=model) for _ in range(8)]
    column = col(fields["imei"])

    def write(asset):
        try:
            client = make_client(superuser)
            return client.patch(f"{URL}/{asset.pk}", {column: "35-209900-176148-1"}, format="json").json()["status"]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(write, assets))
    assert sorted(outcomes) == ["error"] * 7 + ["success"]
    assert AssetFieldValue.objects.filter(field=fields["imei"]).count() == 1


def test_key_rotation_keeps_values_readable(token_client, fields, model, settings):
    from django.core.management import call_command

    settings.FIELD_ENCRYPTION_KEYS = ["old key, long and random enough"]
    asset_id = create(token_client, model, **{col(fields["key"]): "s3cret"})["payload"]["id"]
    settings.FIELD_ENCRYPTION_KEYS = ["new key, long and random enough", "old key, long and random enough"]
    assert token_client.get(f"{URL}/{asset_id}").json()["custom_fields"]["Recovery Key"]["value"] == "s3cret"
    call_command("reencrypt_custom_values", stdout=open("/dev/null", "w"))  # noqa: SIM115
    settings.FIELD_ENCRYPTION_KEYS = ["new key, long and random enough"]
    assert token_client.get(f"{URL}/{asset_id}").json()["custom_fields"]["Recovery Key"]["value"] == "s3cret"
    settings.FIELD_ENCRYPTION_KEYS = ["a key that never wrote it"]
    assert token_client.get(f"{URL}/{asset_id}").json()["custom_fields"]["Recovery Key"]["value"] == MASK
