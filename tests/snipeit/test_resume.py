"""Resuming a Snipe-IT import (inventory.snipeit.importer): a run stopped halfway, by a crash or Ctrl-C while reading
or inside a record, and run again with ``--resume`` writes nothing twice and ends equal to an uninterrupted run; a
second full run is refused (issue 31)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import Department, PermissionGroup, User
from activity.models import ActionLog, StoredFile
from assetsvc.crypto import decrypt
from companies.models import Company
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    AssetFieldValue,
    AssetModel,
    Category,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
    Depreciation,
    Kit,
    KitAccessory,
    KitConsumable,
    KitLicense,
    KitModel,
    License,
    LicenseSeat,
    Location,
    Maintenance,
    Manufacturer,
    SnipeitImport,
    SnipeitRecord,
    StatusLabel,
    Supplier,
)
from inventory.snipeit.importer import KINDS, ImportRefused, import_run_start, import_snipeit, write_kind
from inventory.snipeit.report import ImportReport
from tests.snipeit.write_examples import ROWS, counted, write_all

pytestmark = pytest.mark.django_db

#: Every table the writers fill, in an order that deletes cleanly (referrers first).
TABLES = [ActionLog, StoredFile, AccessoryCheckout, ConsumableAssignment, ComponentAssignment, LicenseSeat,
          KitModel, KitLicense, KitConsumable, KitAccessory, Kit, License, Maintenance, Accessory, Consumable,
          Component, AssetFieldValue, Asset, User, AssetModel, CustomFieldsetField, CustomFieldset, CustomField,
          Depreciation, StatusLabel, Category, Supplier, Manufacturer, Department, Location, Company, PermissionGroup]
BOOKKEEPING = {"created_at", "updated_at", "password", "last_login", "storage_name"}


def state() -> dict[str, list[dict[str, Any]]]:
    """What the import wrote, comparable between runs: every row's columns but timestamps, groups of users, and the
    id map."""
    out = {}
    for model in TABLES:
        # our own row ids, not Snipe-IT's; an encrypted value differs at each encryption, its plain text does not
        skip = BOOKKEEPING | ({"id"} if model in (CustomFieldsetField, ConsumableAssignment, AssetFieldValue)
                              else set())
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in skip]
        rows = list(model._default_manager.values(*fields))
        if model is AssetFieldValue:
            rows = [{**row, "value": decrypt(row["value"]) or row["value"]} for row in rows]
        out[model.__name__] = sorted(rows, key=repr)
    out["groups"] = sorted(User.groups.through.objects.values_list("user_id", "permissiongroup_id"))
    out["records"] = sorted(SnipeitRecord.objects.values_list("kind", "snipeit_id", "our_id"))
    return out


def wipe() -> None:
    SnipeitRecord.objects.all().delete()
    SnipeitImport.objects.all().delete()
    for model in TABLES:
        if model is Asset:  # checkouts to assets first (protected)
            Asset.objects.update(assigned_asset=None)
        if model is Location:
            while Location.objects.exists():  # leaves first (parents are protected)
                Location.objects.filter(children__isnull=True).delete()
        else:
            model._default_manager.all().delete()


class Stopped(BaseException):
    """Stands for Ctrl-C (``KeyboardInterrupt``) or the process dying: nothing catches it."""


def stopping_after(rows: list[dict[str, Any]], count: int) -> Iterator[dict[str, Any]]:
    """``rows`` as the reader yields them, the reading stopped after ``count``."""
    for index, row in enumerate(rows):
        if index == count:
            raise Stopped
        yield row


class StopsWhenRead(list):
    """A value whose reading (iterating it) stops the run: put in a row, the stop comes while the record is being
    written, inside its transaction."""

    def __iter__(self):
        raise Stopped

    def __bool__(self):
        raise Stopped


def stopping_row(row: dict[str, Any], key: str) -> dict[str, Any]:
    """``row`` with ``key``'s value stopping the run when the writer reads it."""
    return {**row, key: StopsWhenRead(row[key])}


def interrupted_then_resumed(stop_kind: str, count: int, inside: str | None = None) -> dict[str, Any]:
    """Write kinds in order and stop in ``stop_kind``: while reading, after ``count`` rows, or (``inside``: a key of
    the row) while writing row ``count``; then resume the whole import."""
    run = import_run_start(source_url="https://snipe.example.com", options={})
    with pytest.raises(Stopped):
        for kind in KINDS:
            rows = copy.deepcopy(ROWS[kind])
            if kind == stop_kind and inside:
                rows[count] = stopping_row(rows[count], inside)
            elif kind == stop_kind:
                rows = stopping_after(rows, count)
            write_kind(run=run, kind=kind, rows=rows)
    resumed, tallies = write_all(resume=True)
    assert resumed.pk == run.pk and resumed.state == SnipeitImport.State.FINISHED
    return tallies


@pytest.mark.parametrize(("stop_kind", "count", "inside", "written"), [
    ("company", 0, None, 0),
    ("custom_field", 1, None, 1),  # stopped while reading, after one field
    ("location", 1, None, 0),  # locations are read whole (parents first) before any is written
    ("user", 1, "group_ids", 0),  # stopped while writing the second user: its batch (both) rolls back whole
    ("fieldset", 0, "fields", 0),  # stopped after the service made the set, before its fields
    ("accessory", 0, "checkouts", 0),  # stopped after the service made the accessory, before its checkouts
    ("kit", 0, "licenses", 0),  # stopped after the kit and its model line, before its license line
])
def test_a_run_stopped_halfway_and_resumed_equals_an_uninterrupted_run(stop_kind, count, inside, written):
    write_all()
    uninterrupted = state()
    wipe()
    tallies = interrupted_then_resumed(stop_kind, count, inside)
    assert state() == uninterrupted
    assert tallies[stop_kind].resumed == written
    assert tallies[stop_kind].imported == len(ROWS[stop_kind]) - written
    assert all(not tally.skipped for tally in tallies.values())


def test_a_stop_inside_a_record_leaves_no_half_record_and_resume_writes_it_once():
    run = import_run_start(source_url="https://snipe.example.com", options={})
    for kind in ("custom_field",):
        write_kind(run=run, kind=kind, rows=copy.deepcopy(ROWS[kind]))
    with pytest.raises(Stopped):
        write_kind(run=run, kind="fieldset", rows=[stopping_row(ROWS["fieldset"][0], "fields")])
    assert not CustomFieldset.objects.exists() and not CustomFieldsetField.objects.exists()
    assert not SnipeitRecord.objects.filter(kind="fieldset").exists()
    tally = write_kind(run=run, kind="fieldset", rows=copy.deepcopy(ROWS["fieldset"]))
    assert tally.imported == 1 and CustomFieldsetField.objects.count() == 2


def test_a_skipped_record_is_tried_again_on_resume():
    run = import_run_start(source_url="https://snipe.example.com", options={})
    first = write_kind(run=run, kind="asset_model", rows=copy.deepcopy(ROWS["asset_model"]))  # no category yet
    assert [s.snipeit_id for s in first.skipped] == [17]
    for kind in ("manufacturer", "category", "depreciation", "custom_field", "fieldset"):
        write_kind(run=run, kind=kind, rows=copy.deepcopy(ROWS[kind]))
    again = write_kind(run=run, kind="asset_model", rows=copy.deepcopy(ROWS["asset_model"]))
    assert (again.imported, again.skipped) == (1, []) and AssetModel.objects.get(pk=17).category_id == 4


def test_a_second_full_run_is_refused_and_resume_after_the_end_writes_nothing():
    write_all()
    before = state()
    with pytest.raises(ImportRefused, match="already holds company, location, department"):
        write_all()
    _run, tallies = write_all(resume=True)
    assert state() == before
    assert all(t.imported == 0 and t.resumed == len(ROWS[k]) for k, t in tallies.items())


def test_the_run_keeps_its_url_options_state_and_report():
    report = ImportReport()
    run, _report = import_snipeit(source_url="https://snipe.example.com", options={"rate": 2.0, "dry_run": False},
                                  read=lambda kind: counted(report, kind, ROWS[kind]), report=report)
    run.refresh_from_db()
    assert (run.source_url, run.options, run.state) == ("https://snipe.example.com", {"rate": 2.0, "dry_run": False},
                                                        SnipeitImport.State.FINISHED)
    kinds = {entry["kind"]: entry for entry in run.report["kinds"]}
    assert kinds["user"]["read"] == 2 and kinds["user"]["imported"] == 2 and run.finished_at is not None


def test_an_error_while_reading_marks_the_run_failed_and_resume_continues_it():
    def read(kind: str) -> list[dict[str, Any]]:
        if kind == "group":
            raise ConnectionError("Snipe-IT went away")
        return copy.deepcopy(ROWS[kind])

    with pytest.raises(ConnectionError):
        import_snipeit(source_url="https://snipe.example.com", options={}, read=read)
    failed = SnipeitImport.objects.get()
    assert failed.state == SnipeitImport.State.FAILED
    assert [entry["kind"] for entry in failed.report["kinds"]][-2:] == ["asset_model", "group"]  # reading groups
    run, tallies = write_all(resume=True)
    assert run.pk == failed.pk and run.state == SnipeitImport.State.FINISHED
    assert tallies["asset_model"].resumed == 1 and tallies["user"].imported == 2
    assert Location.objects.get(pk=11).manager_id == 77


def test_resume_refuses_another_snipe_it_than_the_unfinished_run_read():
    def read(kind: str) -> list[dict[str, Any]]:
        if kind == "supplier":
            raise KeyboardInterrupt
        return copy.deepcopy(ROWS[kind])

    with pytest.raises(KeyboardInterrupt):
        import_snipeit(source_url="https://snipe.example.com", options={}, read=read)
    with pytest.raises(ImportRefused, match="reads https://snipe.example.com"):
        import_snipeit(source_url="https://other.example.com", options={}, resume=True, read=read)
    assert SnipeitImport.objects.get().state == SnipeitImport.State.FAILED


@pytest.mark.postgres
def test_resume_on_postgresql_continues_the_sequences_too():
    interrupted_then_resumed("supplier", 0)
    supplier = Supplier.objects.create(name="After")
    assert supplier.pk == max(r["id"] for r in ROWS["supplier"]) + 1
    assert Company.objects.create(name="Later").pk == max(r["id"] for r in ROWS["company"]) + 1
    assert PermissionGroup.objects.count() == 1 and Manufacturer.objects.count() == 1
