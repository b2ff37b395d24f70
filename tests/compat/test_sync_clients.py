"""The request sequences of two real sync clients, replayed through the API (API-CONTRACT.md §3, §11.1, §11.2;
docs/jamf2snipe.md). Written from reading the clients, not copied from them:

- jamf2snipe v1.0.7 probes ``GET /``, lists ``/models``, creates a model with ``fieldset_id`` (from
  ``computer_custom_fieldset_id``, sent as text), looks a serial up with ``/hardware/byserial/{serial}`` and reads
  ``rows[0].updated_at.datetime`` (``API_DATE_FORMAT=snipeit``), creates the asset, then on a later run decides per
  mapped key whether to send it (a ``rows[0][key]`` KeyError means "custom field": it compares the ``custom_fields``
  entry whose ``field`` is the key with ``str(jamf value)``), PATCHes the keys that differ and checks
  ``payload[key] == sent`` for each (``""`` sent must come back ``null``). The scripts
  ``scripts/drills/jamf2snipe_drill.py`` and ``cairn_drill.py`` run the real clients.
- cairn-sync 1.3.1 (``cairn/sinks/snipeit.py``) finds the model with ``/models?search=<name>`` and the asset with
  ``/hardware?search=<serial>`` (exact serial among the rows), creates with ``POST /hardware`` and updates with
  ``PUT /hardware/{id}`` carrying nested ``custom_fields`` keyed by labels ("Operating System", "OS Version", "OS
  Build", "MAC Address", "Logged In Users", "Last Seen", "Source"); it treats any ``"status": "error"`` as a failure.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest

from inventory.models import Asset, AssetFieldValue, AssetModel
from tests.api_mixins import error_of
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
    ManufacturerFactory,
    StatusLabelFactory,
)

pytestmark = pytest.mark.django_db
DATETIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
NOT_A_FIELD = "not a field of this asset's model"
CAIRN_LABELS = ("Operating System", "OS Version", "OS Build", "MAC Address", "Logged In Users", "Last Seen", "Source")


@pytest.fixture
def snipeit_dates(settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_DATE_FORMAT": "snipeit"}
    settings.TIME_ZONE = "UTC"


@pytest.fixture
def jamf_setup(db) -> dict[str, Any]:
    """What an administrator prepares for jamf2snipe: manufacturer, category, deployable status, and a computers'
    fieldset with a MAC field, an OS version text field, a NUMERIC RAM field and a department text field."""
    fieldset = CustomFieldsetFactory(name="Jamf computers")
    fields = {
        "mac": CustomFieldFactory(name="MAC Address", format="MAC"),
        "os": CustomFieldFactory(name="OS Version"),
        "ram": CustomFieldFactory(name="RAM (MB)", format="NUMERIC"),
        "department": CustomFieldFactory(name="Department"),
    }
    for order, field in enumerate(fields.values(), start=1):
        CustomFieldsetFieldFactory(fieldset=fieldset, field=field, order=order)
    return {"fieldset": fieldset, "columns": {key: field.db_column_name for key, field in fields.items()},
            "manufacturer": ManufacturerFactory(name="Apple"), "category": CategoryFactory(name="Laptops"),
            "status": StatusLabelFactory(name="Ready to Deploy")}


def stored(asset_id: int) -> dict[str, str]:
    """The asset's non-empty stored values, by column (database state)."""
    return {value.field.db_column_name: value.value
            for value in AssetFieldValue.objects.filter(asset_id=asset_id).select_related("field") if value.value}


def jamf2snipe_needs_update(row: dict, key: str, latest: Any) -> bool:
    """jamf2snipe's per-key decision on a ``byserial`` row: a standard key compares directly; a missing key (its
    KeyError) means a custom field, compared as text with the ``custom_fields`` entry whose ``field`` is the key."""
    try:
        return row[key] != latest
    except KeyError:
        return any(entry["field"] == key and entry["value"] != str(latest) for entry in row["custom_fields"].values())


def jamf2snipe_failed_keys(sent: dict, answer: dict) -> list[str]:
    """jamf2snipe's check of a PATCH answer: every sent key (``""`` turned into ``None``) equals ``payload[key]``."""
    assert answer["status"] == "success", answer
    failed = []
    for key, value in sent.items():
        expected = None if value == "" else value
        if answer["payload"][key] != expected:
            failed.append(key)
    return failed


def ignored_entries(message: str) -> dict[str, str]:
    """``{key: reason}`` from the " Ignored custom_fields entries: k (reason); k (reason)." sentence."""
    head, sep, tail = message.partition(" Ignored custom_fields entries: ")
    if not sep:
        return {}
    assert tail.endswith("."), message
    return dict(re.findall(r"(.+?) \((.+?)\)(?:; |\.$)", tail))


# --- jamf2snipe ------------------------------------------------------------------------------------------------------

def test_jamf2snipe_probe_and_model_creation_with_its_fieldset(client, token_client, jamf_setup, snipeit_dates):
    assert client.get("/").status_code == 200  # no token: jamf2snipe's "is Snipe up" probe

    models = token_client.get("/api/v1/models").json()
    assert models["total"] <= len(models["rows"])

    # jamf2snipe sends the ids as the text of its settings.conf.
    answer = token_client.post("/api/v1/models", {
        "category_id": str(jamf_setup["category"].pk), "manufacturer_id": str(jamf_setup["manufacturer"].pk),
        "name": "MacBook Pro (14-inch, 2023)", "model_number": "Mac14,9",
        "fieldset_id": str(jamf_setup["fieldset"].pk)}, format="json").json()

    assert answer["status"] == "success", answer
    assert answer["payload"]["model_number"] == "Mac14,9" and isinstance(answer["payload"]["id"], int)
    model = AssetModel.objects.get(pk=answer["payload"]["id"])
    assert model.fieldset_id == jamf_setup["fieldset"].pk
    listed = token_client.get("/api/v1/models").json()["rows"]
    assert {row["model_number"]: row["id"] for row in listed} == {"Mac14,9": model.pk}


def test_jamf2snipe_first_run_finds_no_match_and_creates(token_client, jamf_setup, snipeit_dates):
    model = AssetModelFactory(model_number="Mac14,9", fieldset=jamf_setup["fieldset"])

    lookup = token_client.get("/api/v1/hardware/byserial/C02JAMF0001")
    assert lookup.status_code == 200 and lookup.json()["total"] == 0

    sent = {"asset_tag": "jamfid-1", "model_id": model.pk, "name": "mac-anna",
            "status_id": str(jamf_setup["status"].pk), "serial": "C02JAMF0001"}
    answer = token_client.post("/api/v1/hardware", sent, format="json").json()

    assert answer["status"] == "success", answer
    asset = Asset.objects.get(serial="C02JAMF0001")
    assert answer["payload"]["id"] == asset.pk and stored(asset.pk) == {}
    # The model's fields appear in the write answer, empty.
    assert all(answer["payload"][column] is None for column in jamf_setup["columns"].values())


def test_jamf2snipe_create_with_custom_keys_echoes_them(token_client, jamf_setup, snipeit_dates):
    """jamf2snipe 1.0.7 maps no keys on create, but the payload it builds elsewhere (and older versions, other
    scripts) carry ``_snipeit_*`` keys on ``POST /hardware``: stored, and echoed as sent."""
    columns = jamf_setup["columns"]
    model = AssetModelFactory(fieldset=jamf_setup["fieldset"])
    sent = {"asset_tag": "jamfid-2", "model_id": model.pk, "name": "mac-ben", "status_id": jamf_setup["status"].pk,
            "serial": "C02JAMF0002", columns["mac"]: "A4:83:E7:10:00:02", columns["os"]: "14.6.1",
            columns["ram"]: 32768}

    answer = token_client.post("/api/v1/hardware", sent, format="json").json()

    assert answer["status"] == "success", answer
    assert jamf2snipe_failed_keys(sent, answer) == []
    assert stored(answer["payload"]["id"]) == {columns["mac"]: "A4:83:E7:10:00:02", columns["os"]: "14.6.1",
                                               columns["ram"]: "32768"}


def test_jamf2snipe_update_run_reads_dates_patches_and_finds_no_difference(token_client, jamf_setup, snipeit_dates):
    columns = jamf_setup["columns"]
    model = AssetModelFactory(model_number="Mac14,9", fieldset=jamf_setup["fieldset"])
    asset = AssetFactory(serial="C02JAMF0003", name="mac-cleo", asset_tag="jamfid-3", model=model,
                         status=jamf_setup["status"])
    jamf = {"name": "mac-cleo", columns["mac"]: "a4:83:e7:10:00:03", columns["os"]: "15.1", columns["ram"]: 16384,
            columns["department"]: "Sales"}

    found = token_client.get("/api/v1/hardware/byserial/C02JAMF0003").json()
    assert found["total"] == 1
    row = found["rows"][0]
    snipe_time = row["updated_at"]["datetime"]
    assert DATETIME.fullmatch(snipe_time)
    assert "9999-01-01 00:00:00" > snipe_time  # jamf2snipe compares report_date with it as text
    assert not any(key.startswith("_snipeit_") for key in row)
    assert {entry["field"]: entry["value"] for entry in row["custom_fields"].values()} == {
        column: "" for column in columns.values()}
    updates = {key: value for key, value in jamf.items() if jamf2snipe_needs_update(row, key, value)}
    assert updates == {key: value for key, value in jamf.items() if key != "name"}

    answer = token_client.patch(f"/api/v1/hardware/{row['id']}", updates, format="json").json()

    assert jamf2snipe_failed_keys(updates, answer) == []
    assert answer["payload"][columns["ram"]] == 16384  # the number sent, not its text
    assert stored(asset.pk) == {columns["mac"]: "a4:83:e7:10:00:03", columns["os"]: "15.1",
                                columns["ram"]: "16384", columns["department"]: "Sales"}

    # The next run with the same Jamf values finds nothing to send.
    row = token_client.get("/api/v1/hardware/byserial/C02JAMF0003").json()["rows"][0]
    assert [key for key, value in jamf.items() if jamf2snipe_needs_update(row, key, value)] == []
    assert row["updated_at"]["datetime"] >= snipe_time


def test_jamf2snipe_sends_an_emptied_value_as_empty_text_and_reads_null(token_client, jamf_setup, snipeit_dates):
    columns = jamf_setup["columns"]
    asset = AssetFactory(serial="C02JAMF0004", model=AssetModelFactory(fieldset=jamf_setup["fieldset"]))
    token_client.patch(f"/api/v1/hardware/{asset.pk}", {columns["department"]: "Sales", columns["os"]: "15.1"},
                       format="json")
    row = token_client.get("/api/v1/hardware/byserial/C02JAMF0004").json()["rows"][0]
    jamf = {columns["department"]: "", columns["os"]: "15.1.1"}
    updates = {key: value for key, value in jamf.items() if jamf2snipe_needs_update(row, key, value)}
    assert updates == jamf

    answer = token_client.patch(f"/api/v1/hardware/{asset.pk}", updates, format="json").json()

    assert jamf2snipe_failed_keys(updates, answer) == []
    assert answer["payload"][columns["department"]] is None
    assert stored(asset.pk) == {columns["os"]: "15.1.1"}
    row = token_client.get("/api/v1/hardware/byserial/C02JAMF0004").json()["rows"][0]
    assert [key for key, value in jamf.items() if jamf2snipe_needs_update(row, key, value)] == []


def test_jamf2snipe_mapping_a_field_outside_the_fieldset_is_refused_not_dropped(token_client, jamf_setup):
    """A mapped column the model's fieldset lacks: jamf2snipe logs the error (``status: error``); nothing changes."""
    asset = AssetFactory(model=AssetModelFactory(fieldset=jamf_setup["fieldset"]), name="before")
    imei = CustomFieldFactory(name="IMEI")

    response = token_client.patch(f"/api/v1/hardware/{asset.pk}", {"name": "after", imei.db_column_name: "35 2099"},
                                  format="json")

    assert error_of(response) == {imei.db_column_name: [
        "This field seems to exist, but is not available on this Asset Model's fieldset."]}
    asset.refresh_from_db()
    assert asset.name == "before" and stored(asset.pk) == {}


def test_a_sync_finds_a_device_by_a_custom_column(token_client, jamf_setup):
    columns = jamf_setup["columns"]
    model = AssetModelFactory(fieldset=jamf_setup["fieldset"])
    wanted, other = AssetFactory(model=model), AssetFactory(model=model)
    token_client.patch(f"/api/v1/hardware/{wanted.pk}", {columns["mac"]: "A4:83:E7:10:00:09"}, format="json")
    token_client.patch(f"/api/v1/hardware/{other.pk}", {columns["mac"]: "A4:83:E7:10:00:10"}, format="json")

    rows = token_client.get(f"/api/v1/hardware?{columns['mac']}=a4:83:e7:10:00:09").json()["rows"]

    assert [row["id"] for row in rows] == [wanted.pk]


# --- cairn-sync ------------------------------------------------------------------------------------------------------

def cairn_custom_fields(os_version: str = "15.1", mac: str = "A4:83:E7:10:00:01") -> dict[str, str]:
    """What cairn's default field map sends (every value sanitised to text; lists joined with ", ")."""
    return {"Operating System": "macOS", "OS Version": os_version, "OS Build": "24B83", "MAC Address": mac,
            "Logged In Users": "", "Last Seen": "2026-11-24T09:30:00Z", "Source": "merged"}


def cairn_find_model(client, name: str) -> int:
    rows = client.get(f"/api/v1/models?search={quote(name, safe='')}").json()["rows"]
    return next((row["id"] for row in rows if row.get("id")), 1)


def cairn_find_asset(client, serial: str) -> dict | None:
    rows = client.get(f"/api/v1/hardware?search={quote(serial, safe='')}").json()["rows"]
    return next((row for row in rows if str(row.get("serial", "")).strip().upper() == serial.upper()), None)


@pytest.fixture
def cairn_setup(jamf_setup) -> dict[str, Any]:
    model = AssetModelFactory(name="MacBook Pro (14-inch, 2023)", fieldset=jamf_setup["fieldset"],
                              category=jamf_setup["category"], manufacturer=jamf_setup["manufacturer"])
    return {**jamf_setup, "model": model}


def test_cairn_create_writes_the_named_fields_and_says_which_entries_it_ignored(token_client, cairn_setup):
    columns = cairn_setup["columns"]
    assert cairn_find_asset(token_client, "C02CAIRN001") is None
    model_id = cairn_find_model(token_client, "MacBook Pro (14-inch, 2023)")
    assert model_id == cairn_setup["model"].pk

    answer = token_client.post("/api/v1/hardware", {
        "name": "mac-anna", "serial": "C02CAIRN001", "asset_tag": "CASID-AIRN001", "model_id": model_id,
        "status_id": cairn_setup["status"].pk, "custom_fields": cairn_custom_fields()}, format="json").json()

    assert answer["status"] == "success", answer
    assert answer["messages"].startswith("Asset created successfully.")
    assert ignored_entries(answer["messages"]) == {label: NOT_A_FIELD for label in CAIRN_LABELS
                                                   if label not in ("OS Version", "MAC Address")}
    asset = Asset.objects.get(serial="C02CAIRN001")
    assert stored(asset.pk) == {columns["os"]: "15.1", columns["mac"]: "A4:83:E7:10:00:01"}
    assert answer["payload"][columns["os"]] == "15.1"


def test_cairn_update_writes_the_new_values_once(token_client, cairn_setup):
    columns = cairn_setup["columns"]
    token_client.post("/api/v1/hardware", {
        "name": "mac-anna", "serial": "C02CAIRN002", "asset_tag": "CASID-AIRN002",
        "model_id": cairn_setup["model"].pk, "status_id": cairn_setup["status"].pk,
        "custom_fields": cairn_custom_fields("14.6.1")}, format="json")

    existing = cairn_find_asset(token_client, "C02CAIRN002")
    assert existing is not None
    answer = token_client.put(f"/api/v1/hardware/{int(existing['id'])}", {
        "name": "mac-anna-2", "asset_tag": existing["asset_tag"], "custom_fields": cairn_custom_fields("15.1")},
        format="json").json()

    assert answer["status"] == "success", answer
    assert answer["messages"].startswith("Asset updated successfully.")
    assert set(ignored_entries(answer["messages"])) == set(CAIRN_LABELS) - {"OS Version", "MAC Address"}
    assert Asset.objects.filter(serial="C02CAIRN002").count() == 1
    asset = Asset.objects.get(serial="C02CAIRN002")
    assert asset.name == "mac-anna-2"
    assert stored(asset.pk) == {columns["os"]: "15.1", columns["mac"]: "A4:83:E7:10:00:01"}
    read = token_client.get(f"/api/v1/hardware/{asset.pk}").json()
    assert read["custom_fields"]["OS Version"]["value"] == "15.1"


def test_cairn_invalid_nested_value_is_skipped_with_its_reason_and_the_rest_saved(token_client, cairn_setup):
    """A device with two MAC addresses: cairn joins them with ", ", which the MAC format refuses."""
    columns = cairn_setup["columns"]
    answer = token_client.post("/api/v1/hardware", {
        "name": "mac-ben", "serial": "C02CAIRN003", "asset_tag": "CASID-AIRN003",
        "model_id": cairn_setup["model"].pk, "status_id": cairn_setup["status"].pk,
        "custom_fields": cairn_custom_fields(mac="A4:83:E7:10:00:03, A4:83:E7:10:00:04")}, format="json").json()

    assert answer["status"] == "success", answer
    assert ignored_entries(answer["messages"])["MAC Address"] == "The MAC Address field format is invalid."
    assert stored(Asset.objects.get(serial="C02CAIRN003").pk) == {columns["os"]: "15.1"}


def test_cairn_model_without_fieldset_ignores_every_entry(token_client, cairn_setup):
    """cairn falls back to ``default_model_id`` when no model matches: its model may have no fieldset at all."""
    bare = AssetModelFactory(fieldset=None)
    answer = token_client.post("/api/v1/hardware", {
        "name": "mac-cleo", "serial": "C02CAIRN004", "asset_tag": "CASID-AIRN004", "model_id": bare.pk,
        "status_id": cairn_setup["status"].pk, "custom_fields": cairn_custom_fields()}, format="json").json()

    assert answer["status"] == "success", answer
    assert ignored_entries(answer["messages"]) == {label: NOT_A_FIELD for label in CAIRN_LABELS}
    assert stored(Asset.objects.get(serial="C02CAIRN004").pk) == {}
