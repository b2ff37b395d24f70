"""Writing Snipe-IT's stock (inventory/snipeit/write_stock.py, issue 31): accessories, consumables, components,
licenses, maintenances and kits keep their ids, quantities and fields; their checkouts, handouts, installations,
seats and lines come with their targets, notes and dates, translated through the id maps; a target that was not
imported (or is deleted) skips that row with why and keeps the record; nothing is over-issued; no action-log row is
written. The stand-in test compares everything with the data set's truth, tolerating only the reported skips."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from django.core.management import call_command

from activity.models import ActionLog
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    CheckoutAcceptance,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
    Kit,
    KitAccessory,
    KitConsumable,
    KitLicense,
    KitModel,
    License,
    LicenseSeat,
    Maintenance,
    SnipeitRecord,
)
from inventory.snipeit.importer import write_kind
from tests.factories import AssetFactory
from tests.snipeit.conftest import SNIPEIT_TOKEN
from tests.snipeit.test_import_standin import same
from tests.snipeit.write_examples import write_all

pytestmark = pytest.mark.django_db


def own_log_rows() -> bool:
    """Whether the import wrote action-log rows of its own (beside Snipe-IT's history, imported as kind "action")."""
    imported = SnipeitRecord.objects.filter(kind="action").values("our_id")
    return ActionLog.objects.exclude(pk__in=imported).exists()


def mapped(kind: str) -> set[tuple[int, int]]:
    return set(SnipeitRecord.objects.filter(kind=kind).values_list("snipeit_id", "our_id"))


def test_the_examples_keep_ids_quantities_targets_notes_and_dates_without_a_log_row():
    _run, tallies = write_all()
    accessory = Accessory.objects.get(pk=5)
    assert (accessory.name, accessory.qty, accessory.company_id, accessory.location_id, accessory.category_id,
            accessory.manufacturer_id, accessory.supplier_id, accessory.purchase_cost, accessory.purchase_date,
            accessory.notes, accessory.min_amt) == ("USB-C Dock <Pro>", 3, 3, 40, 9, 2, 6, Decimal("99.50"),
                                                   date(2022, 5, 1), "Tim's", 1)
    checkouts = {c.pk: c for c in AccessoryCheckout.objects.filter(accessory=accessory)}
    assert sorted(checkouts) == [101, 104, 107]
    assert (checkouts[101].assigned_user_id, checkouts[101].note, checkouts[101].created_by_id,
            checkouts[101].created_at) == (77, "Desk 4's", 77, datetime(2023, 3, 4, 5, 6, 7, tzinfo=UTC))
    assert checkouts[104].assigned_location_id == 11 and checkouts[104].assigned_user_id is None
    assert checkouts[107].assigned_user_id == 90  # a deactivated user keeps what Snipe-IT says they hold
    assert mapped("accessory.checkout") == {(101, 101), (104, 104), (107, 107)}
    handouts = ConsumableAssignment.objects.filter(consumable_id=6).order_by("created_at")
    assert [(h.assigned_user_id, h.note, h.created_at.date()) for h in handouts] == [
        (77, "", date(2024, 2, 3)), (77, "again", date(2024, 2, 4))]
    assert Consumable.objects.get(pk=6).item_no == "TN-1"
    component = Component.objects.get(pk=8)
    assert (component.serial, component.qty, component.location_id) == ("C-1", 4, 11)
    lic = License.objects.get(pk=12)
    assert (lic.serial, lic.seats, lic.reassignable, lic.maintained, lic.expiration_date, lic.license_name) == (
        "AAAA-<BBBB>", 3, False, True, date(2027, 1, 1), "O'Brien")  # the key as the API stores it: plain text
    seats = {s.pk: s for s in LicenseSeat.objects.filter(license=lic)}
    assert {pk: (s.assigned_user_id, s.assigned_asset_id, s.notes) for pk, s in seats.items()} == {
        201: (77, None, "Jane's"), 202: (None, None, ""), 205: (90, None, "")}
    assert mapped("license.seat") == {(201, 201), (202, 202), (205, 205)}
    assert [(line.pk, line.model_id) for line in KitModel.objects.filter(kit_id=3)] == [(301, 17)]
    assert [(line.pk, line.license_id) for line in KitLicense.objects.filter(kit_id=3)] == [(302, 12)]
    assert [(line.pk, line.consumable_id, line.quantity) for line in KitConsumable.objects.all()] == [(303, 6, 2)]
    assert [(line.pk, line.accessory_id) for line in KitAccessory.objects.all()] == [(304, 5)]
    assert mapped("kit.license") == {(302, 302)} and Kit.objects.get().name == "New Starter's Kit"
    for kind in ("accessory", "consumable", "component", "license", "kit"):
        assert tallies[kind].imported == 1 and not tallies[kind].skipped, kind
    assert tallies["accessory.checkouts"].imported == 3 and tallies["kit.consumables"].imported == 1
    assert not own_log_rows() and not CheckoutAcceptance.objects.exists()


def test_asset_targets_go_through_the_id_map_and_a_missing_or_deleted_one_skips_only_that_row():
    run, _ = write_all()
    # Snipe-IT's assets 9001 and 9002 are ours under other ids (as after --merge): references are translated.
    live, gone = AssetFactory(), AssetFactory(deleted_at=datetime(2024, 1, 1, tzinfo=UTC))
    SnipeitRecord.objects.bulk_create([SnipeitRecord(run=run, kind="asset", snipeit_id=9001, our_id=live.pk),
                                       SnipeitRecord(run=run, kind="asset", snipeit_id=9002, our_id=gone.pk)])
    target = {"assigned_user_id": None, "assigned_location_id": None}
    accessory = write_kind(run=run, kind="accessory", rows=[
        {"id": 50, "name": "Cable", "category_id": 9, "qty": 5, "checkouts": [
            {"id": 501, **target, "assigned_asset_id": 9001, "note": "on it", "created_at": None},
            {"id": 502, **target, "assigned_asset_id": 9003, "note": "", "created_at": None},
            {"id": 503, **target, "assigned_asset_id": 9002, "note": "", "created_at": None}]}])
    assert list(AccessoryCheckout.objects.filter(accessory_id=50).values_list("pk", "assigned_asset_id")) == [
        (501, live.pk)]
    assert [(s.name, s.why) for s in accessory.skipped] == [
        ('accessory 50 "Cable": checkout 502', "asset 9003 is not imported"),
        ('accessory 50 "Cable": checkout 503', "asset 9002 is deleted")]
    assert accessory.imported == 1
    component = write_kind(run=run, kind="component", rows=[
        {"id": 60, "name": "SSD", "category_id": 15, "qty": 3, "assignments": [
            {"id": 601, "assigned_asset_id": 9001, "assigned_qty": 2, "note": "", "created_at": None},
            {"id": 602, "assigned_asset_id": 9001, "assigned_qty": 2, "note": "", "created_at": None}]}])
    assert list(ComponentAssignment.objects.values_list("pk", "assigned_asset_id", "assigned_qty")) == [
        (601, live.pk, 2)]
    assert component.skipped[0].why == "it would put 4 units out of 3: refused, never over-issued"
    lic = write_kind(run=run, kind="license", rows=[
        {"id": 70, "name": "CAD", "category_id": 16, "seat_count": 3, "serial": "K", "seats": [
            {"id": 701, "assigned_user_id": 77, "assigned_asset_id": 9001, "notes": ""},
            {"id": 702, "assigned_user_id": None, "assigned_asset_id": 9003, "notes": ""},
            {"id": 703, "assigned_user_id": None, "assigned_asset_id": None, "notes": ""}]}])
    assert sorted(LicenseSeat.objects.filter(license_id=70).values_list("pk", "assigned_user_id",
                                                                        "assigned_asset_id")) == [
        (701, None, live.pk), (702, None, None), (703, None, None)]
    assert [s.why for s in lic.skipped] == ["asset 9003 is not imported: the seat is imported free"]
    assert any("Snipe-IT names user 77 and asset 9001; kept on the asset" in note for note in lic.notes)
    maintenance = write_kind(run=run, kind="maintenance", rows=[
        {"id": 80, "asset_id": 9001, "supplier_id": 6, "asset_maintenance_type": "Repair", "title": "Hinge",
         "is_warranty": True, "start_date": date(2023, 1, 1), "completion_date": date(2023, 1, 5),
         "cost": Decimal("80.00"), "notes": "Screen & hinge"},
        {"id": 81, "asset_id": 9003, "asset_maintenance_type": "Repair", "title": "Lost",
         "start_date": date(2023, 1, 1)}])
    done = Maintenance.objects.get()
    assert (done.pk, done.asset_id, done.supplier_id, done.title, done.is_warranty, done.asset_maintenance_time,
            done.cost, done.notes) == (80, live.pk, 6, "Hinge", True, 4, Decimal("80.00"), "Screen & hinge")
    assert [(s.snipeit_id, s.why) for s in maintenance.skipped] == [(81, "asset_id: asset 9003 is not imported")]
    assert not own_log_rows()


def test_a_refused_record_leaves_nothing_behind_and_is_named_with_why():
    run, _ = write_all()
    tally = write_kind(run=run, kind="accessory", rows=[
        {"id": 51, "name": "Wrong", "category_id": 16, "qty": 1, "checkouts": []},  # a license category
        {"id": 52, "name": "Orphan", "category_id": 999, "qty": 1, "checkouts": []},
        {"id": 53, "name": "None", "category_id": 9, "qty": 0, "checkouts": []},
        {"id": 54, "name": "Over", "category_id": 9, "qty": 2, "checkouts": [
            {"id": 541, "assigned_user_id": 77, "created_at": None}, {"id": 542, "assigned_user_id": 77},
            {"id": 543, "assigned_user_id": 90}]}])
    assert [(s.snipeit_id, s.why) for s in tally.skipped] == [
        (51, "category_id: The category must be an accessory category."),
        (52, "category_id: category 999 is not imported"),
        (53, "qty: The qty must be between 1 and 100,000."),
        (543, "it would put 3 units out of 2: refused, never over-issued")]
    assert sorted(Accessory.objects.values_list("pk", flat=True)) == [5, 54]
    assert not SnipeitRecord.objects.filter(kind="accessory", snipeit_id__in=[51, 52, 53]).exists()
    lic = write_kind(run=run, kind="license", rows=[{"id": 71, "name": "Empty", "category_id": 16, "seat_count": 2,
                                                     "seats": []}])
    assert lic.skipped[0].why == "seats: Snipe-IT listed none of its 2 seats"
    assert not License.objects.filter(pk=71).exists()


def test_the_stand_in_import_equals_the_truth_but_for_the_reported_skips(snipeit_standin, snipeit_dataset,
                                                                            monkeypatch):
    monkeypatch.setenv("SNIPEIT_TOKEN", SNIPEIT_TOKEN)
    out = io.StringIO()
    call_command("import_snipeit", "--url", snipeit_standin.url, stdout=out, stderr=io.StringIO())
    report, raw = out.getvalue(), snipeit_dataset.raw
    assets = set(Asset.objects.values_list("pk", flat=True))  # none until the asset writer lands

    def skipped(label: str, why: str) -> bool:
        return re.search(rf"{re.escape(label)}(?: \"[^\n]*\")?: {re.escape(why)}$", report, re.M) is not None

    stock = ("name", "qty", "company_id", "category_id", "manufacturer_id", "supplier_id", "location_id",
             "model_number", "purchase_date", "purchase_cost", "min_amt", "notes")
    for table, model, extra in (("accessories", Accessory, ()), ("consumables", Consumable, ("item_no",)),
                                ("components", Component, ("serial",))):
        assert sorted(model.objects.values_list("pk", flat=True)) == sorted(raw[table]), table
        for pk, truth in raw[table].items():
            ours = model.objects.get(pk=pk)
            for column in (*stock, *extra):
                assert same(getattr(ours, column)) == same(truth[column]), (table, pk, column)
    for cid, truth in raw["accessory_checkouts"].items():
        row = AccessoryCheckout.objects.filter(pk=cid).first()
        if truth["assigned_type"] == "asset" and truth["assigned_to"] not in assets:
            assert row is None and skipped(f"checkout {cid}", f"asset {truth['assigned_to']} is not imported")
            continue
        assert getattr(row, f"assigned_{truth['assigned_type']}_id") == truth["assigned_to"], cid
        assert (row.accessory_id, same(row.note), row.created_at) == (
            truth["accessory_id"], same(truth["note"]), same(truth["created_at"])), cid
    handouts = sorted((h.consumable_id, h.assigned_user_id, h.created_at) for h in ConsumableAssignment.objects.all())
    assert handouts == sorted((h["consumable_id"], h["user_id"], same(h["created_at"]))
                              for h in raw["consumable_assignments"].values())
    for pid, truth in raw["components_assets"].items():
        row = ComponentAssignment.objects.filter(pk=pid).first()
        if truth["asset_id"] not in assets:
            assert row is None and skipped(f"assignment {pid}", f"asset {truth['asset_id']} is not imported")
            continue
        assert (row.component_id, row.assigned_asset_id, row.assigned_qty) == (
            truth["component_id"], truth["asset_id"], truth["assigned_qty"]), pid
    for pk, truth in raw["licenses"].items():
        ours = License.objects.get(pk=pk)
        for column in ("name", "serial", "seats", "company_id", "category_id", "manufacturer_id", "license_name",
                       "license_email", "reassignable", "maintained", "expiration_date", "purchase_date",
                       "purchase_cost", "notes"):
            assert same(getattr(ours, column)) == same(truth[column]), (pk, column)
    assert sorted(LicenseSeat.objects.values_list("pk", flat=True)) == sorted(raw["license_seats"])
    for sid, truth in raw["license_seats"].items():
        seat = LicenseSeat.objects.get(pk=sid)
        assert (seat.license_id, seat.assigned_user_id, same(seat.notes)) == (
            truth["license_id"], truth["assigned_to"], same(truth["notes"])), sid
        if truth["asset_id"] in assets or truth["asset_id"] is None:
            assert seat.assigned_asset_id == truth["asset_id"], sid
        else:
            assert seat.assigned_asset_id is None and skipped(f"seat {sid}", f"asset {truth['asset_id']} is not "
                                                                             "imported: the seat is imported free")
    for pk, truth in raw["maintenances"].items():
        ours = Maintenance.objects.filter(pk=pk).first()
        if truth["asset_id"] not in assets:
            assert ours is None and skipped(f"maintenance {pk}", f"asset_id: asset {truth['asset_id']} is not "
                                                                 "imported"), pk
            continue
        for column in ("asset_id", "supplier_id", "title", "asset_maintenance_type", "is_warranty", "start_date",
                       "completion_date", "asset_maintenance_time", "cost", "notes"):
            assert same(getattr(ours, column)) == same(truth[column]), (pk, column)
    lines = {"models": (KitModel, "model_id"), "licenses": (KitLicense, "license_id"),
             "consumables": (KitConsumable, "consumable_id"), "accessories": (KitAccessory, "accessory_id")}
    for pk, truth in raw["kits"].items():
        assert Kit.objects.get(pk=pk).name == truth["name"]
        for key, elements in truth["elements"].items():
            model, field = lines[key]
            assert sorted(model.objects.filter(kit_id=pk).values_list("pk", field, "quantity")) == sorted(elements)
    assert not own_log_rows()


@pytest.mark.postgres
def test_each_postgresql_sequence_continues_after_the_ids_kept_rows_out_and_seats_too():
    write_all()
    from django.db import connection
    highest = {Accessory: 5, AccessoryCheckout: 107, License: 12, LicenseSeat: 205, Kit: 3, KitAccessory: 304,
               KitModel: 301}
    with connection.cursor() as cursor:
        for model, top in highest.items():
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [model._meta.db_table])
            assert cursor.fetchone()[0] > top, model.__name__
