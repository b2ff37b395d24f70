"""``import_snipeit --merge`` (issue 31): into a database that holds data, a Snipe-IT record found here by its
natural key is mapped, not overwritten; one not found is created under its Snipe-IT id when that id is free, else
under a new one; every changed id is in the report; references of what is written point at the right rows."""

from __future__ import annotations

import pytest

from accounts.models import Department, PermissionGroup, User
from companies.models import Company
from inventory.models import CustomField, CustomFieldset, Location, SnipeitImport, SnipeitRecord
from inventory.snipeit.importer import import_snipeit
from inventory.snipeit.report import ImportReport
from inventory.snipeit.writing import natural_match
from tests.factories import CompanyFactory, LocationFactory, PermissionGroupFactory, UserFactory
from tests.snipeit.write_examples import ROWS, counted

pytestmark = pytest.mark.django_db


def merge(source=None):
    report = ImportReport()
    source = source or ROWS
    import_snipeit(source_url="https://snipe.example.com", options={}, merge=True, report=report,
                   read=lambda kind: counted(report, kind, source.get(kind, [])))
    return report


def ours(kind: str, snipeit_id: int) -> int:
    return SnipeitRecord.objects.get(kind=kind, snipeit_id=snipeit_id).our_id


@pytest.fixture
def already_here():
    """Data of our own: an "ACME" (Snipe-IT's "Acme" is 8), a company on Snipe-IT's id 3 with another name, a
    location on id 11, a "JDOE" (Snipe-IT's "jdoe" is 77) and a user on id 90, a "helpdesk" group."""
    return {
        "acme": CompanyFactory(pk=500, name="ACME", notes="ours"),
        "on3": CompanyFactory(pk=3, name="Other Co"),
        "on11": LocationFactory(pk=11, name="Storage", company=None),
        "jdoe": UserFactory(pk=600, username="JDOE", first_name="Janet", company=None),
        "on90": UserFactory(pk=90, username="someone.else", company=None),
        "helpdesk": PermissionGroupFactory(pk=700, name="helpdesk", permissions={}),
    }


def test_matched_records_are_mapped_not_overwritten(already_here):
    report = merge()
    assert ours("company", 8) == 500 and Company.objects.get(pk=500).notes == "ours"
    assert ours("user", 77) == 600 and User.objects.get(pk=600).first_name == "Janet"
    assert ours("group", 2) == 700 and PermissionGroup.objects.get(pk=700).permissions == {}
    assert report.kinds["company"].matched == 1 and report.kinds["user"].matched == 1


def test_unmatched_records_keep_their_id_when_free_else_get_a_new_one(already_here):
    report = merge()
    obrien = Company.objects.get(name="O'Brien & Sons <HQ>")
    assert obrien.pk != 3 and ours("company", 3) == obrien.pk and Company.objects.get(pk=3).name == "Other Co"
    kitchen = Location.objects.get(name="Kitchen")
    assert kitchen.pk != 11 and Location.objects.get(pk=11).name == "Storage"
    assert Location.objects.get(pk=40).name == "Head office"  # 40 is free here: kept
    old_timer = User.objects.get(username="old.timer")
    assert old_timer.pk != 90 and User.objects.get(pk=90).username == "someone.else"
    changed = {(kind, theirs): (here, how) for kind, tally in report.kinds.items()
               for theirs, here, how in tally.changed}
    assert changed == {("company", 8): (500, "matched"), ("company", 3): (obrien.pk, "new id"),
                       ("location", 11): (kitchen.pk, "new id"), ("user", 77): (600, "matched"),
                       ("user", 90): (old_timer.pk, "new id"), ("group", 2): (700, "matched")}
    text = report.render()
    assert "Ids that changed (kind, Snipe-IT id -> our id):" in text
    assert f"company 3 -> {obrien.pk} (new id)" in text and "user 77 -> 600 (matched)" in text


def test_references_point_at_the_rows_they_were_mapped_to(already_here):
    merge()
    obrien = ours("company", 3)
    kitchen = Location.objects.get(pk=ours("location", 11))
    assert kitchen.parent_id == 40 and kitchen.company_id == obrien and kitchen.manager_id == 600  # jdoe, matched
    assert Location.objects.get(pk=40).company_id == obrien
    department = Department.objects.get(pk=ours("department", 5))
    assert (department.company_id, department.location_id, department.manager_id) == (obrien, 40, 600)
    old_timer = User.objects.get(pk=ours("user", 90))
    assert old_timer.manager_id == 600
    fieldset = CustomFieldset.objects.get(pk=ours("fieldset", 31))
    assert list(fieldset.memberships.order_by("order").values_list("field_id", flat=True)) == [
        ours("custom_field", 23), ours("custom_field", 21)]


def test_natural_keys_custom_fields_by_column_then_name_and_locations_under_their_parent():
    CustomField.objects.create(name="Mac", db_column_name="_snipeit_mac_address_1", element="text", format="ANY")
    by_name = CustomField.objects.create(name="recovery KEY", db_column_name="_ours_recovery", element="text",
                                         format="ANY")
    parent = LocationFactory(name="Head office", company=None)
    LocationFactory(name="Kitchen", company=None)  # at the top: not Snipe-IT's Kitchen under Head office
    SnipeitRecord.objects.create(run_id=_run(), kind="location", snipeit_id=40, our_id=parent.pk)
    fields = natural_match("custom_field", ROWS["custom_field"])
    assert fields == {21: CustomField.objects.get(db_column_name="_snipeit_mac_address_1").pk, 23: by_name.pk}
    assert natural_match("location", ROWS["location"]) == {40: parent.pk}


def test_a_merge_run_resumed_goes_on_merging(already_here):
    source = {kind: [dict(row) for row in rows] for kind, rows in ROWS.items()}
    report = ImportReport()

    def stopping(kind):
        if kind == "user":
            raise KeyboardInterrupt
        return counted(report, kind, source.get(kind, []))

    with pytest.raises(KeyboardInterrupt):
        import_snipeit(source_url="https://snipe.example.com", options={}, merge=True, report=report, read=stopping)
    resumed = ImportReport()
    import_snipeit(source_url="https://snipe.example.com", options={}, resume=True, report=resumed,
                   read=lambda kind: counted(resumed, kind, source.get(kind, [])))
    assert ours("user", 77) == 600 and resumed.kinds["user"].matched == 1
    assert resumed.kinds["company"].resumed == 2


def _run() -> int:
    return SnipeitImport.objects.create(source_url="https://snipe.example.com").pk


def test_merge_split_for_batched_writers(already_here):
    from inventory.snipeit.report import KindTally
    from inventory.snipeit.writing import merge_split, reset_merging, set_merging

    rows = [{"id": 8, "name": "acme"}, {"id": 3, "name": "New"}, {"id": 4, "name": "Newer"}]
    tally = KindTally()
    assert merge_split(None, "company", rows, tally) == (rows, set())  # not merging: as is
    token = set_merging(True)
    try:
        rest, taken = merge_split(SnipeitImport.objects.create(source_url="x"), "company", rows, tally)
    finally:
        reset_merging(token)
    assert [row["id"] for row in rest] == [3, 4] and taken == {3}
    assert ours("company", 8) == 500 and tally.matched == 1 and tally.changed == [[8, 500, "matched"]]
