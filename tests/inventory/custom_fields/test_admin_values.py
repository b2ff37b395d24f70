"""Custom field values on the asset's admin page (issue 15 part 9): one form field per field of the model's fieldset,
saved by the asset services with the API's rules and messages; encrypted values only with the permission."""

from __future__ import annotations

import pytest
from django.test import Client

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
from tests.ops.test_admin_services import form_data, form_errors, url

pytestmark = pytest.mark.django_db

SECRET = "s3cret-recovery-key"


@pytest.fixture
def fields():
    return {
        "mac": CustomFieldFactory(name="MAC Address", format="MAC", help_text="Wired <b>NIC</b>"),
        "notes": CustomFieldFactory(name="Long notes", element="textarea"),
        "os": CustomFieldFactory(name="OS", element="listbox", field_values="mac|macOS\nwin|Windows"),
        "tier": CustomFieldFactory(name="Tier", element="radio", field_values="gold\nsilver"),
        "tags": CustomFieldFactory(name="Tags", element="checkbox", field_values="a\nb\nc"),
        "key": CustomFieldFactory(name="Recovery Key", field_encrypted=True),
    }


@pytest.fixture
def model(fields):
    return AssetModelFactory(fieldset=fieldset_of(*fields.values()))


@pytest.fixture
def asset(model, fields, superuser, client):
    """An asset with a MAC address and an encrypted key, written through the API."""
    asset = AssetFactory(model=model)
    client.force_login(superuser)
    response = client.post(url(Asset, "change", asset.pk), form_data(
        client, url(Asset, "change", asset.pk),
        **{fields["mac"].db_column_name: "AA:BB:CC:DD:EE:FF", fields["key"].db_column_name: SECRET}))
    assert response.status_code == 302, form_errors(response)
    client.logout()
    return asset


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def stored(asset) -> dict[str, str]:
    return {row.field.name: row.value for row in AssetFieldValue.objects.filter(asset=asset).select_related("field")}


def test_change_page_shows_the_fieldset_in_order_with_its_widgets(superuser, asset, fields):
    page = url(Asset, "change", asset.pk)
    response = login(superuser).get(page)
    form = response.context["adminform"].form
    columns = [field.db_column_name for field in fields.values()]
    assert [name for name in form.fields if name.startswith("_snipeit_")] == columns
    custom = [fieldset for fieldset in response.context["adminform"] if fieldset.name == "Custom fields"]
    assert custom and [line.fields[0] for line in custom[0]] == [*columns, "custom_values_shown"]
    assert form.fields[columns[0]].label == "MAC Address"
    assert form.initial.get(columns[0], form.fields[columns[0]].initial) == "AA:BB:CC:DD:EE:FF"
    content = response.content.decode()
    assert "Wired &lt;b&gt;NIC&lt;/b&gt;" in content  # the field's help text, escaped
    assert f'<textarea name="{columns[1]}"' in content
    assert '<option value="win">Windows</option>' in content and '<option value="" selected>' in content
    assert f'type="radio" name="{columns[3]}" value="gold"' in content
    assert f'type="checkbox" name="{columns[4]}" value="b"' in content


def test_saving_writes_the_values_and_logs_one_update(superuser, asset, fields):
    client = login(superuser)
    page = url(Asset, "change", asset.pk)
    col = {key: field.db_column_name for key, field in fields.items()}
    before = ActionLog.objects.count()
    response = client.post(page, form_data(client, page, **{
        col["mac"]: "11:22:33:44:55:66", col["notes"]: " line one\nline two ", col["os"]: "win", col["tier"]: "gold",
        col["tags"]: ["a", "c"]}))
    assert response.status_code == 302, form_errors(response)
    assert stored(asset) == {"MAC Address": "11:22:33:44:55:66", "Long notes": "line one\nline two", "OS": "win",
                             "Tier": "gold", "Tags": "a,c", "Recovery Key": stored(asset)["Recovery Key"]}
    assert ActionLog.objects.count() == before + 1
    log = ActionLog.objects.latest("id")
    assert log.action_type == "update" and log.item_id == asset.pk
    assert log.log_meta[col["mac"]] == {"old": "AA:BB:CC:DD:EE:FF", "new": "11:22:33:44:55:66"}
    assert log.log_meta[col["tags"]] == {"old": None, "new": "a,c"}
    assert col["key"] not in log.log_meta

    cleared = client.post(page, form_data(client, page, **{col["tags"]: None, col["notes"]: ""}))
    assert cleared.status_code == 302, form_errors(cleared)
    assert "Tags" not in stored(asset) and "Long notes" not in stored(asset)


def test_a_bad_mac_is_the_fields_error_and_changes_nothing(superuser, asset, fields):
    client = login(superuser)
    page = url(Asset, "change", asset.pk)
    mac = fields["mac"].db_column_name
    before = (stored(asset), ActionLog.objects.count())
    response = client.post(page, form_data(client, page, name="Renamed", **{mac: "not-a-mac",
                                                                              fields["tier"].db_column_name: "gold"}))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors[mac] == ["The MAC Address field format is invalid."]
    assert (stored(asset), ActionLog.objects.count()) == before
    asset.refresh_from_db()
    assert asset.name != "Renamed"


def test_encrypted_value_is_hidden_and_kept_for_an_administrator(asset, fields):
    client = login(UserFactory(permissions={"admin": 1}))
    page = url(Asset, "change", asset.pk)
    response = client.get(page)
    assert response.status_code == 200
    content = response.content.decode()
    key = fields["key"].db_column_name
    assert SECRET not in content and f'name="{key}" value="ENCRYPTED"' in content
    field = response.context["adminform"].form.fields[key]
    assert field.disabled and field.initial == MASK
    data = form_data(client, page, **{fields["tier"].db_column_name: "silver"})
    data[key] = "overwritten"  # a disabled field's posted value is ignored
    saved = client.post(page, data)
    assert saved.status_code == 302, form_errors(saved)
    assert decrypt(stored(asset)["Recovery Key"]) == SECRET and stored(asset)["Tier"] == "silver"


def test_encrypted_value_is_editable_for_a_super_user(superuser, asset, fields):
    client = login(superuser)
    page = url(Asset, "change", asset.pk)
    key = fields["key"].db_column_name
    assert SECRET in client.get(page).content.decode()
    response = client.post(page, form_data(client, page, **{key: "new-secret"}))
    assert response.status_code == 302, form_errors(response)
    value = stored(asset)["Recovery Key"]
    assert value != "new-secret" and decrypt(value) == "new-secret"
    assert ActionLog.objects.latest("id").log_meta[key] == {"old": MASK, "new": MASK}


def test_required_field_is_enforced_on_add_and_when_cleared(superuser):
    imei = CustomFieldFactory(name="IMEI")
    model = AssetModelFactory(fieldset=fieldset_of(imei, required=[imei]))
    client = login(superuser)
    add = url(Asset, "add")
    assert "?model=" in client.get(add).content.decode()  # the help text on the model field
    shown = client.get(f"{add}?model={model.pk}")
    assert imei.db_column_name in shown.context["adminform"].form.fields
    body = {"asset_tag": "ADM-CF-1", "model": model.pk, "status": StatusLabelFactory().pk}
    refused = client.post(add, body)
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors[imei.db_column_name] == ["The IMEI field is required."]
    assert not Asset.objects.exists()

    created = client.post(add, {**body, imei.db_column_name: "356938035643809", "custom_values_shown": ""})
    assert created.status_code == 200  # the field was not shown: its (empty) value stands
    created = client.post(add, {**body, imei.db_column_name: "356938035643809",
                                "custom_values_shown": imei.db_column_name})
    assert created.status_code == 302, form_errors(created)
    asset = Asset.objects.get()
    assert stored(asset) == {"IMEI": "356938035643809"}

    page = url(Asset, "change", asset.pk)
    cleared = client.post(page, form_data(client, page, **{imei.db_column_name: ""}))
    assert cleared.context["adminform"].form.errors[imei.db_column_name] == ["The IMEI field is required."]
    assert stored(asset) == {"IMEI": "356938035643809"}


def test_a_model_change_validates_against_the_new_fieldset_and_keeps_hidden_values(superuser, asset, fields):
    serial = CustomFieldFactory(name="Board serial")
    other = AssetModelFactory(fieldset=fieldset_of(serial, required=[serial]))
    client = login(superuser)
    page = url(Asset, "change", asset.pk)
    refused = client.post(page, form_data(client, page, model=other.pk))
    assert refused.status_code == 200
    form = refused.context["adminform"].form
    assert form.errors[serial.db_column_name] == ["The Board serial field is required."]
    assert fields["mac"].db_column_name not in form.fields  # the page now shows the new model's fields
    asset.refresh_from_db()
    assert asset.model_id != other.pk

    again = {**form_data(client, page, model=other.pk), serial.db_column_name: "BS-1",
             "custom_values_shown": serial.db_column_name}
    response = client.post(page, again)
    assert response.status_code == 302, form_errors(response)
    asset.refresh_from_db()
    assert asset.model_id == other.pk
    assert stored(asset)["Board serial"] == "BS-1" and stored(asset)["MAC Address"] == "AA:BB:CC:DD:EE:FF"
    log = ActionLog.objects.latest("id")
    assert log.log_meta[serial.db_column_name] == {"old": None, "new": "BS-1"}
    assert fields["mac"].db_column_name not in log.log_meta


def test_a_value_another_asset_holds_is_refused_on_a_unique_field(superuser):
    imei = CustomFieldFactory(name="IMEI", is_unique=True)
    model = AssetModelFactory(fieldset=fieldset_of(imei))
    first, second = AssetFactory(model=model), AssetFactory(model=model)
    client = login(superuser)
    for asset, value, status in ((first, "35693803", 302), (second, " 35693803 ", 200)):
        page = url(Asset, "change", asset.pk)
        response = client.post(page, form_data(client, page, **{imei.db_column_name: value}))
        assert response.status_code == status
    assert response.context["adminform"].form.errors[imei.db_column_name] == ["The IMEI must be unique."]
    assert stored(first) == {"IMEI": "35693803"} and stored(second) == {}
