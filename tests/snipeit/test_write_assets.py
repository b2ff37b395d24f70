"""Assets from Snipe-IT (issue 31, ``inventory.snipeit.write_assets``): the real command against the stand-in puts
every asset of the data set under its id, field by field equal to the truth (``Dataset.raw``), with its checkout of
each type, audit dates, deleted ones deleted, custom values (encrypted ones stored encrypted) and Snipe-IT's
timestamps; the API shows the same; a run killed between two batches and resumed equals an uninterrupted one;
refused rows are named in the report with why, a checkout to a later asset is kept."""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from assetsvc.crypto import decrypt
from inventory.models import Asset, AssetFieldValue, CustomField, SnipeitImport, SnipeitRecord
from inventory.snipeit import write_assets
from tests.factories import UserFactory
from tests.snipeit.conftest import SNIPEIT_TOKEN, run_import
from tests.snipeit.standin import SnipeitStandin
from tests.snipeit.test_import_standin import same
from tests.snipeit.test_resume import wipe
from tests.snipeit.write_examples import ROWS, write_all

pytestmark = pytest.mark.django_db

#: Ours and the data set's columns, compared as they are.
STANDARD = ("name", "asset_tag", "serial", "model_id", "status_id", "company_id", "supplier_id", "rtd_location_id",
            "location_id", "notes", "order_number", "warranty_months", "purchase_date", "purchase_cost", "byod",
            "requestable", "last_checkout", "last_checkin", "expected_checkin", "last_audit_date", "next_audit_date",
            "checkin_counter", "checkout_counter", "requests_counter", "deleted_at", "created_at", "updated_at")
TARGET = {"user": "assigned_user_id", "asset": "assigned_asset_id", "location": "assigned_location_id"}



def stored_values(asset_id: int) -> dict[str, str | None]:
    return {row.field.db_column_name: (decrypt(row.value) if row.field.field_encrypted else row.value)
            for row in AssetFieldValue.objects.filter(asset_id=asset_id).select_related("field")}


def check_assets(raw: dict[str, dict[int, Any]], report: str) -> None:
    """Every asset of ``raw`` under its id, equal to the truth; a custom value left out is named in the report (the
    stored one: the printed one groups such notes)."""
    left_out = {(group["what"], snipeit_id) for run in SnipeitImport.objects.all() for tally in run.report["kinds"]
                if tally["kind"] == "asset" for group in tally.get("without", []) for snipeit_id in group["ids"]}
    assert sorted(Asset.objects.values_list("pk", flat=True)) == sorted(raw["hardware"])
    for snipeit_id, truth in raw["hardware"].items():
        ours = Asset.objects.get(pk=snipeit_id)
        for column in STANDARD:
            assert same(getattr(ours, column)) == same(truth[column]), (snipeit_id, column)
        assert ours.asset_tag_key == truth["asset_tag"].lower()
        for kind, column in TARGET.items():
            expected = truth["assigned_to"] if truth["assigned_type"] == kind else None
            assert getattr(ours, column) == expected, (snipeit_id, column)
        stored = stored_values(snipeit_id)
        for column, value in truth["custom"].items():
            if value in (None, "") or column in stored:
                assert stored.get(column) == value, (snipeit_id, column)
            else:
                assert (column, snipeit_id) in left_out and f"imported without {column}" in report, (snipeit_id, column)


def test_every_asset_is_imported_under_its_id_and_equals_the_truth(snipeit_standin, snipeit_dataset, token):
    report = run_import(snipeit_standin.url)
    raw = snipeit_dataset.raw
    check_assets(raw, report)
    hardware = raw["hardware"].values()
    # the data set has every case compared above
    assert {a["assigned_type"] for a in hardware} == {None, "user", "asset", "location"}
    assert any(a["deleted_at"] for a in hardware) and any(a["last_audit_date"] for a in hardware)
    assert Asset.objects.filter(deleted_at__isnull=False).count() == sum(1 for a in hardware if a["deleted_at"])
    # The "Has Dock" checkbox (one option, "1") is ticked on some assets (compared above); no value is left out
    assert any(v == "1" for a in hardware for k, v in a["custom"].items() if k.startswith("_snipeit_has_dock"))
    assert "Note: asset:" not in report
    assert re.search(rf"^asset +{len(raw['hardware'])} +{len(raw['hardware'])} +0$", report, re.MULTILINE)
    assert SnipeitRecord.objects.filter(kind="asset").count() == len(raw["hardware"])


def test_the_api_shows_an_imported_asset_as_snipe_it_does(snipeit_standin, snipeit_dataset, token, make_client):
    run_import(snipeit_standin.url)
    client = make_client(UserFactory(username="after-import", superuser=True))
    raw = snipeit_dataset.raw["hardware"]
    shown = [a for a in raw.values() if a["assigned_type"] and a["last_audit_date"] and not a["deleted_at"]][:3]
    shown += [next(a for a in raw.values() if a["assigned_type"] == kind and not a["deleted_at"])
              for kind in ("user", "asset", "location")]
    for truth in shown:
        body = client.get(f"/api/v1/hardware/{truth['id']}").json()
        assert body["id"] == truth["id"] and body["asset_tag"] == truth["asset_tag"]
        assert (body["serial"] or None) == truth["serial"]
        assert body["model"]["id"] == truth["model_id"] and body["status_label"]["id"] == truth["status_id"]
        assert body["assigned_to"]["id"] == truth["assigned_to"]
        assert body["assigned_to"]["type"] == truth["assigned_type"]
        assert (body["location"] or {}).get("id") == truth["location_id"]
        assert body["checkout_counter"] == truth["checkout_counter"]
        for key in ("last_checkout", "last_audit_date", "created_at"):
            when = body[key]["datetime"] if isinstance(body[key], dict) else body[key]
            assert same(when and datetime.fromisoformat(when.replace("Z", "+00:00"))) == same(truth[key]), key
        values = {entry["field"]: entry["value"] for entry in body["custom_fields"].values()}
        stored = stored_values(truth["id"])
        assert {column: values[column] for column in stored} == stored


def test_encrypted_values_stay_encrypted(snipeit_dataset, token):
    """A Snipe-IT that sends the fields' flags (before v8): encrypted fields are encrypted here, and so are the
    values, which decrypt to Snipe-IT's plain text."""
    rows = copy.deepcopy(snipeit_dataset.rows)
    for field_id, row in rows["fields"].items():
        truth = snipeit_dataset.raw["fields"][field_id]
        row.update(field_encrypted=truth["field_encrypted"], is_unique=truth["is_unique"], help_text=None)
    dataset = replace(snipeit_dataset, rows=rows)
    with SnipeitStandin(dataset, token=SNIPEIT_TOKEN) as standin:
        report = run_import(standin.url)
    check_assets(snipeit_dataset.raw, report)
    encrypted = CustomField.objects.filter(field_encrypted=True)
    assert encrypted.count() == 2
    values = AssetFieldValue.objects.filter(field__in=encrypted)
    assert values.count() > 100
    for row in values.select_related("field"):
        plain = snipeit_dataset.raw["hardware"][row.asset_id]["custom"][row.field.db_column_name]
        assert row.value != plain and plain not in row.value and decrypt(row.value) == plain
    assert AssetFieldValue.objects.filter(field__is_unique=True, unique_key__isnull=False).count() > 100


class Killed(BaseException):
    """Stands for SIGKILL: nothing catches it, and the run is left ``running``."""


def asset_state() -> dict[str, Any]:
    fields = [f.attname for f in Asset._meta.concrete_fields]
    return {"assets": sorted(Asset.objects.values(*fields), key=repr),
            "values": sorted((a, f, decrypt(v) if e else v) for a, f, v, e in AssetFieldValue.objects.values_list(
                "asset_id", "field_id", "value", "field__field_encrypted")),
            "records": sorted(SnipeitRecord.objects.filter(kind="asset").values_list("snipeit_id", "our_id"))}


def test_a_run_killed_between_batches_and_resumed_equals_an_uninterrupted_run(snipeit_standin, token, monkeypatch):
    monkeypatch.setattr(write_assets, "BATCH_SIZE", 40)
    run_import(snipeit_standin.url)
    uninterrupted = asset_state()
    assert any(a["assigned_asset_id"] for a in uninterrupted["assets"])
    wipe()
    store, batches = write_assets._store, []

    def killed_in_the_third_batch(*args: Any, **kwargs: Any) -> None:
        batches.append(1)
        store(*args, **kwargs)
        if len(batches) == 3:
            raise Killed

    monkeypatch.setattr(write_assets, "_store", killed_in_the_third_batch)
    with pytest.raises(Killed):
        run_import(snipeit_standin.url)
    SnipeitImport.objects.update(state=SnipeitImport.State.RUNNING)  # a killed process marks nothing
    assert SnipeitRecord.objects.filter(kind="asset").count() == 80  # the third batch rolled back whole
    assert Asset.objects.count() == 80
    monkeypatch.setattr(write_assets, "_store", store)
    report = run_import(snipeit_standin.url, "--resume")
    assert asset_state() == uninterrupted
    assert re.search(r"^asset +200 +120 +80 +0$", report, re.MULTILINE)


def asset_row(asset_id: int, tag: str, **extra: Any) -> dict[str, Any]:
    return {"id": asset_id, "asset_tag": tag, "model_id": 17, "status_id": 1, "company_id": 3,
            "custom_values": {"_snipeit_bitlocker_2": f"key-{asset_id}", "_snipeit_mac_address_1": ""}, **extra}


def test_refused_rows_are_skipped_with_why_and_checkouts_are_kept():
    rows = [
        asset_row(5, "LAP-1", assigned_asset_id=9, name="holder of a later asset"),  # 9 comes later
        asset_row(6, "lap-1 "),  # the same tag, another case and a blank
        asset_row(7, "LAP-7", model_id=999),
        asset_row(8, "LAP-8", status_id=None),
        asset_row(9, "LAP-9", assigned_user_id=77, purchase_cost=-1),
        asset_row(10, "LAP-10", assigned_user_id=12345, supplier_id=4444, location_id=40),
        asset_row(11, "LAP-11", assigned_location_id=41, custom_values={"_snipeit_mac_address_1": "not a mac",
                                                                       "_snipeit_bitlocker_2": "k"}),
        asset_row(12, "LAP-12", assigned_asset_id=13),
        asset_row(13, "LAP-13", assigned_asset_id=12),  # a loop: kept on 12, left out here
        asset_row(14, "LAP-1", deleted_at=datetime(2024, 1, 2, 3, 4, 5).astimezone()),  # deleted: its tag is free
        asset_row(15, "LAP-15", custom_values={"_snipeit_mac_address_1": "aa:bb:cc:dd:ee:ff",
                                               "_snipeit_bitlocker_2": "x"}),
        asset_row(16, "LAP-16", custom_values={"_snipeit_mac_address_1": "AA:BB:CC:DD:EE:FF",
                                               "_snipeit_bitlocker_2": "y"}),
    ]
    _run, tallies = write_all({**ROWS, "asset": rows})
    tally = tallies["asset"]
    skipped = {s.snipeit_id: s.why for s in tally.skipped}
    assert skipped == {6: "asset_tag: The asset tag must be unique. Asset 5 has the same tag.",
                       7: "model_id: The selected model id is invalid.",
                       8: "status_id: The status field is required.",
                       9: "purchase_cost: The purchase cost must be at least 0."}
    assert tally.imported == 8 and tally.read == 12
    assert sorted(Asset.objects.values_list("pk", flat=True)) == [5, 10, 11, 12, 13, 14, 15, 16]
    assert Asset.objects.get(pk=5).assigned_asset_id is None  # its target was refused
    notes = "\n".join(tally.notes)
    assert 'asset 5 imported without its checkout: asset 9 is not imported' in notes
    assert Asset.objects.get(pk=10).assigned_user_id is None and Asset.objects.get(pk=10).location_id == 40
    assert 'asset 10 "LAP-10" imported without its checkout: user 12345 is not imported' in notes
    assert 'asset 10 "LAP-10" imported without supplier_id: supplier 4444 is not imported' in notes
    assert Asset.objects.get(pk=11).assigned_location_id == 41
    assert 'asset 11 "LAP-11" imported without _snipeit_mac_address_1: ' in notes
    assert Asset.objects.get(pk=12).assigned_asset_id == 13 and Asset.objects.get(pk=13).assigned_asset_id is None
    assert "asset 13 imported without its checkout: asset 12 is checked out to it" in notes
    assert Asset.objects.get(pk=14).deleted_at is not None
    assert stored_values(15)["_snipeit_mac_address_1"] == "aa:bb:cc:dd:ee:ff"
    assert "_snipeit_mac_address_1" not in stored_values(16)  # unique, case-insensitively
    assert 'asset 16 "LAP-16" imported without _snipeit_mac_address_1: The MAC Address must be unique.' in notes
    row = AssetFieldValue.objects.get(asset_id=15, field_id=23)
    assert row.value != "x" and decrypt(row.value) == "x"  # the field is encrypted here
