"""Custom field values in the asset CSV import and export (issue 15 with issue 14; docs/import-export.md "Custom
fields"): one column per custom field, headed by its name; encrypted values masked for a user without the
permission; values checked by the API's rules row by row; ``--update`` changes and logs them; the round trip."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.management import call_command

from activity.choices import ActionType
from activity.models import ActionLog
from inventory import custom_values
from inventory.custom_values.crypto import MASK, decrypt
from inventory.models import Asset, AssetFieldValue
from inventory.transfer.columns import ASSET_COLUMNS
from inventory.transfer.export import export_queryset, export_rows
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
HEADER = [column.header for column in ASSET_COLUMNS]


@pytest.fixture
def fields():
    return {
        "mac": CustomFieldFactory(name="MAC Address", format="MAC"),
        "imei": CustomFieldFactory(name="IMEI", is_unique=True),
        "key": CustomFieldFactory(name="Recovery Key", field_encrypted=True),
        "floor": CustomFieldFactory(name="Floor"),  # in another set only
    }


@pytest.fixture
def model(fields):
    fieldset = CustomFieldsetFactory()
    for order, name in enumerate(("mac", "imei", "key"), start=1):
        CustomFieldsetFieldFactory(fieldset=fieldset, field=fields[name], order=order)
    CustomFieldsetFieldFactory(fieldset=CustomFieldsetFactory(), field=fields["floor"], order=1)
    return AssetModelFactory(name="ThinkPad", model_number="T14", fieldset=fieldset)


def store(asset, **values):
    """Values stored as the API stores them (field → plaintext)."""
    custom = custom_values.CustomInput(values={field.pk: (field, text) for field, text in values.values()})
    custom_values.write_values(asset, custom)


def command(name, *args):
    out, err = io.StringIO(), io.StringIO()
    call_command(name, *args, "--no-progress", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def exported(*args) -> tuple[list[dict[str, str]], list[str]]:
    out, _ = command("export_assets", *args)
    rows = list(csv.reader(io.StringIO(out)))
    return [dict(zip(rows[0], cells, strict=True)) for cells in rows[1:]], rows[0]


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def new_row(tag, model, **cells):
    values = {"Asset Tag": tag, "Model name": model.name, "Model Number": model.model_number,
              "Status": "Ready to Deploy", **cells}
    return values


def import_rows(tmp_path, rows, *args):
    header = list(dict.fromkeys(key for row in rows for key in row))
    path = write_csv(tmp_path / "in.csv", header, [[row.get(key, "") for key in header] for row in rows])
    return command("import_assets", path, *args)


class TestExport:
    def test_columns_values_and_encrypted_mask(self, superuser, fields, model):
        asset = AssetFactory(model=model, asset_tag="CF-1")
        store(asset, mac=(fields["mac"], "AA:BB:CC:DD:EE:FF"), key=(fields["key"], "s3cret"))
        AssetFactory(asset_tag="CF-2")  # a model without a fieldset: empty cells
        UserFactory(username="viewer", permissions={"admin": 1})
        UserFactory(username="keeper", permissions={"admin": 1, custom_values.ENCRYPTED_PERMISSION: 1})

        rows, header = exported("--user", "viewer")
        assert header == HEADER + ["MAC Address", "IMEI", "Recovery Key", "Floor"]  # field id order
        by_tag = {row["Asset Tag"]: row for row in rows}
        assert by_tag["CF-1"]["MAC Address"] == "AA:BB:CC:DD:EE:FF"
        assert by_tag["CF-1"]["Recovery Key"] == MASK
        assert by_tag["CF-1"]["IMEI"] == "" and by_tag["CF-1"]["Floor"] == ""
        assert {by_tag["CF-2"][name] for name in ("MAC Address", "IMEI", "Recovery Key", "Floor")} == {""}

        rows, _ = exported("--user", "keeper")
        assert {row["Asset Tag"]: row for row in rows}["CF-1"]["Recovery Key"] == "s3cret"
        rows, _ = exported()  # no user: nobody's permission, the mask
        assert {row["Asset Tag"]: row for row in rows}["CF-1"]["Recovery Key"] == MASK

    def test_a_value_outside_the_models_set_is_not_exported(self, superuser, fields, model):
        asset = AssetFactory(model=model, asset_tag="CF-1")
        AssetFieldValue.objects.create(asset=asset, field=fields["floor"], value="3")  # left from an older model
        rows, _ = exported()
        assert rows[0]["Floor"] == ""

    def test_values_are_read_once_per_chunk(self, superuser, fields, model, django_assert_max_num_queries):
        for number in range(30):
            store(AssetFactory(model=model, asset_tag=f"CF-{number}"),
                  mac=(fields["mac"], f"AA:BB:CC:DD:EE:{number:02d}"))
        with django_assert_max_num_queries(8):
            rows = list(export_rows("asset", export_queryset("asset"), chunk_size=10))
        assert len(rows) == 31


class TestImport:
    def test_create_with_values(self, superuser, token_client, fields, model, tmp_path):
        out, err = import_rows(tmp_path, [
            new_row("CF-1", model, **{"MAC Address": "aa:bb:cc:dd:ee:ff", " imei ": "356938035643809",
                                      fields["key"].db_column_name: "s3cret"}),
            new_row("CF-2", model),
        ])
        assert "2 rows: 2 created, 0 updated, 0 skipped, 0 failed." in out, err
        assert "Ignored columns" not in out
        asset = Asset.objects.get(asset_tag="CF-1")
        stored = {row.field_id: row for row in AssetFieldValue.objects.filter(asset=asset)}
        assert stored[fields["mac"].pk].value == "aa:bb:cc:dd:ee:ff"
        assert stored[fields["imei"].pk].unique_key
        assert stored[fields["key"].pk].value != "s3cret" and decrypt(stored[fields["key"].pk].value) == "s3cret"
        assert not AssetFieldValue.objects.filter(asset__asset_tag="CF-2").exists()

        custom = token_client.get(f"/api/v1/hardware/{asset.pk}").json()["custom_fields"]
        assert custom["MAC Address"]["value"] == "aa:bb:cc:dd:ee:ff"
        assert custom["IMEI"]["value"] == "356938035643809"
        assert custom["Recovery Key"]["value"] == "s3cret"
        assert ActionLog.objects.filter(item_type="asset", item_id=asset.pk, action_type=ActionType.CREATE).count() == 1

    def test_bad_mac_fails_only_its_row_naming_the_column(self, superuser, fields, model, tmp_path):
        out, err = import_rows(tmp_path, [
            new_row("CF-1", model, **{"mac address": "not-a-mac", "Purchase Date": "2024-13-01"}),
            new_row("CF-2", model, **{"mac address": "AA:BB:CC:DD:EE:01"}),
        ])
        assert "2 rows: 1 created, 0 updated, 0 skipped, 1 failed." in out
        assert "line 2, column mac address: The MAC Address field format is invalid." in err
        assert "line 2, column Purchase Date:" in err  # every error of the row at once
        assert not Asset.objects.filter(asset_tag="CF-1").exists()

    def test_unique_value_taken_fails_the_row(self, superuser, fields, model, tmp_path):
        store(AssetFactory(model=model, asset_tag="OLD"), imei=(fields["imei"], "111"))
        out, err = import_rows(tmp_path, [
            new_row("CF-1", model, IMEI="111"),
            new_row("CF-2", model, IMEI="222"),
            new_row("CF-3", model, IMEI="222"),  # the same file: the second row loses
        ])
        assert "3 rows: 1 created, 0 updated, 0 skipped, 2 failed." in out, err
        assert "line 2, column IMEI: The IMEI must be unique." in err
        assert "line 4, column IMEI: The IMEI must be unique." in err
        assert set(Asset.objects.values_list("asset_tag", flat=True)) == {"OLD", "CF-2"}

    def test_column_outside_the_set_is_ignored_with_a_note(self, superuser, fields, model, tmp_path):
        other = AssetModelFactory(name="Other", model_number="O1")
        out, err = import_rows(tmp_path, [
            new_row("CF-1", model, Floor="3"), new_row("CF-2", other, Floor="4", **{"MAC Address": "x"}),
        ])
        assert "2 rows: 2 created, 0 updated, 0 skipped, 0 failed." in out, err
        assert "column Floor is not a field of model ThinkPad's fieldset; ignored for 1 rows." in out
        assert "column Floor is not a field of model Other's fieldset; ignored for 1 rows." in out
        assert not AssetFieldValue.objects.exists()

    def test_dry_run_writes_nothing(self, superuser, fields, model, tmp_path):
        out, err = import_rows(tmp_path, [new_row("CF-1", model, IMEI="1"), new_row("CF-2", model, IMEI="1")],
                               "--dry-run")
        assert "2 rows: 1 would be created, 0 would be updated, 0 skipped, 1 failed." in out, err
        assert not Asset.objects.exists() and not AssetFieldValue.objects.exists()

    def test_encrypted_needs_the_permission(self, fields, model, tmp_path):
        UserFactory(username="clerk", permissions={"admin": 1})
        out, err = import_rows(tmp_path, [new_row("CF-1", model, **{"Recovery Key": "s3cret", "IMEI": "9"})],
                               "--user", "clerk")
        assert "1 rows: 1 created" in out, err
        assert "column Recovery Key: needs permission to write encrypted custom fields; ignored for 1 rows." in out
        assert list(AssetFieldValue.objects.values_list("field_id", flat=True)) == [fields["imei"].pk]

    def test_required_field_on_create(self, superuser, fields, tmp_path):
        fieldset = CustomFieldsetFactory()
        CustomFieldsetFieldFactory(fieldset=fieldset, field=fields["mac"], order=1, required=True)
        strict = AssetModelFactory(name="Strict", model_number="S1", fieldset=fieldset)
        out, err = import_rows(tmp_path, [new_row("CF-1", strict)])
        assert "1 failed" in out
        assert "line 2, column MAC Address: The MAC Address field is required." in err


class TestUpdate:
    def test_update_changes_a_value_and_logs_it(self, superuser, fields, model, tmp_path):
        asset = AssetFactory(model=model, asset_tag="CF-1")
        store(asset, mac=(fields["mac"], "AA:BB:CC:DD:EE:FF"), imei=(fields["imei"], "1"))
        out, err = import_rows(tmp_path, [{"Asset Tag": "CF-1", "MAC Address": "AA:BB:CC:DD:EE:00", "IMEI": ""}],
                               "--update")
        assert "1 rows: 0 created, 1 updated, 0 skipped, 0 failed." in out, err
        values = dict(AssetFieldValue.objects.filter(asset=asset).values_list("field_id", "value"))
        assert values == {fields["mac"].pk: "AA:BB:CC:DD:EE:00", fields["imei"].pk: "1"}  # empty cell: kept
        log = ActionLog.objects.get(item_id=asset.pk, action_type=ActionType.UPDATE)
        assert log.log_meta == {fields["mac"].db_column_name: {"old": "AA:BB:CC:DD:EE:FF",
                                                               "new": "AA:BB:CC:DD:EE:00"}}

        out, err = import_rows(tmp_path, [{"Asset Tag": "CF-1", "MAC Address": "AA:BB:CC:DD:EE:00"}], "--update")
        assert "1 rows: 0 created, 0 updated, 1 skipped, 0 failed." in out, err

    def test_update_with_bad_value_fails_and_keeps_the_value(self, superuser, fields, model, tmp_path):
        asset = AssetFactory(model=model, asset_tag="CF-1")
        store(asset, imei=(fields["imei"], "1"))
        store(AssetFactory(model=model, asset_tag="CF-2"), imei=(fields["imei"], "2"))
        out, err = import_rows(tmp_path, [{"Asset Tag": "CF-1", "IMEI": "2"}], "--update")
        assert "1 failed" in out and "line 2, column IMEI: The IMEI must be unique." in err
        assert AssetFieldValue.objects.get(asset=asset).value == "1"


def test_round_trip(superuser, fields, model, tmp_path):
    for number in range(3):
        asset = AssetFactory(model=model, asset_tag=f"CF-{number}")
        store(asset, mac=(fields["mac"], f"AA:BB:CC:DD:EE:0{number}"), imei=(fields["imei"], f"35{number}"),
              key=(fields["key"], f"secret {number}"))
    AssetFactory(asset_tag="PLAIN")
    UserFactory(username="viewer", permissions={"admin": 1})
    path = tmp_path / "export.csv"
    command("export_assets", "--output", str(path), "--user", "admin")
    out, err = command("import_assets", str(path), "--update")
    assert "4 rows: 0 created, 0 updated, 4 skipped, 0 failed." in out, (out, err)
    assert "ignored" not in out

    command("export_assets", "--output", str(path), "--user", "viewer")  # the keys are ENCRYPTED in this one
    out, err = command("import_assets", str(path), "--update")
    assert "4 rows: 0 created, 0 updated, 4 skipped, 0 failed." in out, (out, err)
    assert f"column Recovery Key: {MASK} (an export's mask of an encrypted value) keeps the stored value; " \
           "ignored for 3 rows." in out
    assert decrypt(AssetFieldValue.objects.get(asset__asset_tag="CF-1", field=fields["key"]).value) == "secret 1"

    # Into an empty database: the same export again (the superuser's, with the plaintext).
    command("export_assets", "--output", str(path), "--user", "admin")
    Asset.objects.all().delete()
    out, err = command("import_assets", str(path))
    assert "4 rows: 4 created" in out, err
    again = tmp_path / "again.csv"
    command("export_assets", "--output", str(again), "--user", "admin")
    assert sorted(path.read_text().splitlines()) == sorted(again.read_text().splitlines())
    assert decrypt(AssetFieldValue.objects.get(asset__asset_tag="CF-1", field=fields["key"]).value) == "secret 1"


def test_a_field_named_like_an_asset_column_exports_under_its_column_name(superuser, tmp_path):
    clash = CustomFieldFactory(name="Serial Number")  # the importer reads "serial number" as Serial
    fieldset = CustomFieldsetFactory()
    CustomFieldsetFieldFactory(fieldset=fieldset, field=clash, order=1)
    asset = AssetFactory(model=AssetModelFactory(fieldset=fieldset), asset_tag="CF-1", serial="S1")
    store(asset, clash=(clash, "inner"))
    rows, header = exported()
    assert header[-1] == clash.db_column_name and rows[0][clash.db_column_name] == "inner"

    path = tmp_path / "export.csv"
    command("export_assets", "--output", str(path))
    out, err = command("import_assets", str(path), "--update")
    assert "1 rows: 0 created, 0 updated, 1 skipped, 0 failed." in out, (out, err)
    rows[0][clash.db_column_name] = "changed"
    write_csv(path, header, [list(rows[0].values())])
    out, err = command("import_assets", str(path), "--update")
    assert "1 updated" in out, (out, err)
    assert AssetFieldValue.objects.get(asset=asset).value == "changed"
    assert Asset.objects.get(pk=asset.pk).serial == "S1"


@pytest.mark.urls("tests.inventory.transfer.csv_admin_site")
def test_admin_export_action_shows_plaintext_only_with_the_permission(client, superuser, fields, model):
    asset = AssetFactory(model=model, asset_tag="CF-1")
    store(asset, key=(fields["key"], "s3cret"))
    for user, site, expected in ((superuser, "csvadmin", "s3cret"),
                                 (UserFactory(username="clerk", permissions={"admin": 1}), "openadmin", MASK)):
        client.force_login(user)
        response = client.post(f"/{site}/inventory/asset/", {"action": "export_selected_csv",
                                                              ACTION_CHECKBOX_NAME: [asset.pk]})
        assert response.status_code == 200
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert rows[0]["Recovery Key"] == expected
