"""The Snipe-IT writers (inventory.snipeit.importer): ids kept, sequences continued, input stored as given, refusals
reported with why, nothing sent, and an empty database required (issue 31)."""

from __future__ import annotations

import pytest
from django.db import connection
from django_tasks_db.models import DBTaskResult

from accounts.models import Department, PermissionGroup, User
from activity.models import ActionLog
from companies.models import Company
from companies.services import company_create
from inventory.models import (
    AssetModel,
    Category,
    CustomField,
    CustomFieldset,
    Depreciation,
    Location,
    Manufacturer,
    SnipeitImport,
    SnipeitRecord,
    StatusLabel,
    Supplier,
)
from inventory.services.catalogue import catalogue_item_create
from inventory.snipeit.importer import (
    KINDS,
    ImportRefused,
    database_holds_data,
    import_run_start,
    write_kind,
)
from notifications.models import OutboundMail
from tests.factories import CompanyFactory, UserFactory
from tests.snipeit.write_examples import ROWS, rows, write_all

pytestmark = pytest.mark.django_db

MODELS = {"company": Company, "location": Location, "department": Department, "manufacturer": Manufacturer,
          "supplier": Supplier, "category": Category, "status_label": StatusLabel, "depreciation": Depreciation,
          "custom_field": CustomField, "fieldset": CustomFieldset, "asset_model": AssetModel,
          "group": PermissionGroup, "user": User}


def test_every_kind_keeps_its_snipeit_ids():
    run, tallies = write_all()
    for kind, model in MODELS.items():
        assert sorted(model.objects.values_list("pk", flat=True)) == sorted(r["id"] for r in ROWS[kind]), kind
        assert tallies[kind].imported == len(ROWS[kind]) and not tallies[kind].skipped, kind
    mapped = set(SnipeitRecord.objects.filter(run=run).exclude(kind__contains=".")  # sub-rows: test_write_stock
                 .values_list("kind", "snipeit_id", "our_id"))
    assert mapped == {(kind, r["id"], r["id"]) for kind in KINDS for r in ROWS[kind]}


def test_values_and_references_are_stored_as_given():
    write_all()
    company = Company.objects.get(pk=3)
    assert company.name == "O'Brien & Sons <HQ>"  # the readers unescaped &#039; &amp; &lt;; stored once, as is
    assert Supplier.objects.get(pk=6).name == 'Tim\'s "Best" Supplies'
    kitchen = Location.objects.get(pk=11)
    assert (kitchen.parent_id, kitchen.company_id, kitchen.city) == (40, 3, "Dublin")
    laptops = Category.objects.get(pk=4)
    assert (laptops.require_acceptance, laptops.eula_text, laptops.checkin_email) == (True, "Be kind.", True)
    model = AssetModel.objects.get(pk=17)
    assert (model.manufacturer_id, model.category_id, model.depreciation_id, model.fieldset_id) == (2, 4, 13, 31)
    assert Depreciation.objects.get(pk=13).depreciation_min == 10
    assert PermissionGroup.objects.get(pk=2).permissions == {"assets.view": 1, "assets.checkout": 1}


def test_custom_fields_keep_their_columns_and_flags_and_fieldsets_their_list():
    write_all()
    mac, key = CustomField.objects.get(pk=21), CustomField.objects.get(pk=23)
    assert (mac.db_column_name, mac.format, mac.is_unique, mac.field_encrypted) == (
        "_snipeit_mac_address_1", "MAC", True, False)
    assert (key.db_column_name, key.field_encrypted) == ("_snipeit_bitlocker_2", True)
    members = list(CustomFieldset.objects.get(pk=31).memberships.values_list("field_id", "required", "order"))
    assert members == [(23, True, 1), (21, False, 2)]  # Snipe-IT's list, not the service's auto-added fields


def test_users_without_password_with_groups_company_department_and_activation():
    write_all()
    jane, old = User.objects.get(pk=77), User.objects.get(pk=90)
    assert (jane.username, jane.last_name, jane.employee_num, jane.company_id, jane.department_id,
            jane.location_id, jane.is_active) == ("jdoe", "O'Doe", "E-77", 3, 5, 40, True)
    assert list(jane.groups.values_list("pk", flat=True)) == [2]
    assert not jane.has_usable_password() and not old.has_usable_password()
    assert old.is_active is False and old.created_by_id is None
    assert old.permissions == {"superuser": 1} and old.is_superuser  # a super user of Snipe-IT stays one


def test_the_services_still_number_and_log_by_default():
    supplier = catalogue_item_create(model=Supplier, data={"name": "Plain"}, actor=None)
    company = company_create(actor=UserFactory(), data={"name": "Plain Co"})
    assert supplier.pk and company.pk
    assert set(ActionLog.objects.values_list("item_type", "item_id", "action_type")) == {
        ("supplier", supplier.pk, "create"), ("company", company.pk, "create")}


def test_managers_are_linked_after_users_and_missing_ones_noted():
    _run, tallies = write_all()
    assert Location.objects.get(pk=11).manager_id == 77
    assert Department.objects.get(pk=5).manager_id == 77
    assert Location.objects.get(pk=41).manager_id is None
    assert any("user 9999" in note for note in tallies["location"].notes)
    assert User.objects.get(pk=90).manager_id == 77  # a user's manager, through user_update, without a log row
    assert not ActionLog.objects.filter(item_type="user", item_id=90).exists()


def test_sequences_continue_after_the_highest_imported_id(make_client):
    write_all()
    admin = UserFactory(username="after-import", superuser=True)
    assert admin.pk > max(r["id"] for r in ROWS["user"])
    client = make_client(admin)
    for route, payload, highest in [
        ("/api/v1/companies", {"name": "New Co"}, 8),
        ("/api/v1/locations", {"name": "New place"}, 41),
        ("/api/v1/categories", {"name": "Phones", "category_type": "asset"}, 9),
        ("/api/v1/statuslabels", {"name": "Lost", "type": "archived"}, 7),
        ("/api/v1/manufacturers", {"name": "Dell"}, 2),
    ]:
        answer = client.post(route, payload, format="json")
        assert answer.status_code == 200 and answer.json()["status"] == "success", (route, answer.json())
        assert answer.json()["payload"]["id"] > highest, route
    field = client.post("/api/v1/fields", {"name": "IMEI", "element": "text"}, format="json").json()["payload"]
    assert field["id"] > 23 and field["db_column_name"] == f"_snipeit_imei_{field['id']}"


def test_a_refused_record_is_skipped_named_and_why_and_the_rest_written():
    source = {kind: rows(kind) for kind in ROWS}
    source["category"].append({"id": 12, "name": "Bogus", "category_type": "spaceship"})
    source["status_label"].append({"id": 15, "name": "ready to deploy", "type": "deployable"})  # name taken (case)
    source["asset_model"].append({"id": 19, "name": "Orphan", "category_id": 555})
    source["custom_field"].append({"id": 25, "name": "Bad", "db_column_name": "_snipeit_bad_25", "format": "regex:/(/"})
    _run, tallies = write_all(source=source)
    skipped = {(kind, s.snipeit_id): s for kind, t in tallies.items() for s in t.skipped}
    assert set(skipped) == {("category", 12), ("status_label", 15), ("asset_model", 19), ("custom_field", 25)}
    assert skipped[("category", 12)].name == 'category 12 "Bogus"' and "category_type" in skipped[("category", 12)].why
    assert "unique" in skipped[("status_label", 15)].why
    assert skipped[("asset_model", 19)].why == "category_id: The selected category id is invalid."
    assert "format" in skipped[("custom_field", 25)].why
    assert not Category.objects.filter(pk=12).exists() and not AssetModel.objects.filter(pk=19).exists()
    assert not SnipeitRecord.objects.filter(kind="asset_model", snipeit_id=19).exists()
    assert tallies["asset_model"].read == 2 and tallies["asset_model"].imported == 1


def test_a_record_refused_only_for_a_droppable_field_is_imported_without_it_and_noted():
    # Snipe-IT accepts what we refuse: a phone under 7 characters, a permission key we do not know.
    source = {kind: rows(kind) for kind in ROWS}
    source["company"][1]["phone"] = "123"
    source["group"][0]["permissions"] = {"assets.view": "1", "reports.teleport": "1"}
    source["custom_field"].append({"id": 25, "name": "Bad", "db_column_name": "_snipeit_bad_25", "format": "regex:/(/"})
    _run, tallies = write_all(source=source)
    assert Company.objects.get(pk=8).phone in ("", None)
    assert PermissionGroup.objects.get(pk=2).permissions == {"assets.view": 1}
    assert any(note.startswith('company 8 "Acme" imported without phone: phone:') for note in tallies["company"].notes)
    assert any('group 2 "Helpdesk" imported without permission reports.teleport: permissions:' in note
               for note in tallies["group"].notes)
    assert [s.snipeit_id for s in tallies["custom_field"].skipped] == [25]  # a format is not droppable


def test_locations_in_a_loop_are_skipped_and_parents_come_first():
    run = import_run_start(source_url="https://snipe.example.com", options={})
    tally = write_kind(run=run, kind="location", rows=[
        {"id": 1, "name": "Child", "parent_id": 2}, {"id": 2, "name": "Parent", "parent_id": None},
        {"id": 5, "name": "Loop A", "parent_id": 6}, {"id": 6, "name": "Loop B", "parent_id": 5},
        {"id": 7, "name": "Lost child", "parent_id": 99},
    ])
    assert Location.objects.get(pk=1).parent_id == 2
    assert {(s.snipeit_id, s.why) for s in tally.skipped} == {
        (5, "its parent locations form a loop"), (6, "its parent locations form a loop"),
        (7, "parent_id: The selected parent id is invalid.")}
    assert tally.imported == 2  # `read` is counted by the reader (reading.read_kind), not here


def test_the_import_writes_no_history_of_its_own_and_sends_nothing(site_settings):
    site_settings.webhook_endpoint = "http://127.0.0.1:9/hook"  # notifications on: a service's signal would queue
    site_settings.save()
    write_all()
    # The history is Snipe-IT's, imported from /reports/activity: only its rows, under their ids.
    assert sorted(ActionLog.objects.values_list("pk", flat=True)) == [row["id"] for row in ROWS["action"]]
    assert DBTaskResult.objects.count() == 0 and OutboundMail.objects.count() == 0  # no webhook, no mail


def test_a_database_with_data_is_refused_unless_merge():
    CompanyFactory(name="Already here")
    assert database_holds_data() == ["company"]
    with pytest.raises(ImportRefused, match="already holds company"):
        import_run_start(source_url="https://snipe.example.com", options={})
    assert not SnipeitImport.objects.exists()
    run = import_run_start(source_url="https://snipe.example.com", options={}, merge=True)
    assert run.options == {"merge": True}  # --resume goes on merging


def test_the_local_admin_does_not_count_but_may_not_be_overwritten():
    User.objects.create_superuser("admin", "admin@example.com", "pw")  # what bootstrap_admin makes
    assert database_holds_data() == []
    run = import_run_start(source_url="https://snipe.example.com", options={})
    for kind in ("company", "location", "department", "group"):
        write_kind(run=run, kind=kind, rows=rows(kind))
    with pytest.raises(ImportRefused, match="'admin'"):
        write_kind(run=run, kind="user", rows=[{"id": 200, "username": "ADMIN", "groups": []}])
    admin = User.objects.get(username="admin")
    with pytest.raises(ImportRefused, match="bootstrap_admin"):
        write_kind(run=run, kind="user", rows=[{"id": admin.pk, "username": "someone", "groups": []}])
    assert User.objects.count() == 1


def test_an_id_taken_here_is_skipped_never_overwritten():
    run = import_run_start(source_url="https://snipe.example.com", options={})
    write_kind(run=run, kind="company", rows=rows("company"))
    SnipeitRecord.objects.filter(kind="company", snipeit_id=8).delete()  # as if written outside the import
    tally = write_kind(run=run, kind="company", rows=[{"id": 8, "name": "Other"}])
    assert [(s.snipeit_id, s.why) for s in tally.skipped] == [(8, "id 8 is already taken here by 'Acme'")]
    assert Company.objects.get(pk=8).name == "Acme"


@pytest.mark.postgres
def test_each_postgresql_sequence_continues_right_after_the_highest_id():
    write_all()
    with connection.cursor() as cursor:
        for kind, model in MODELS.items():
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [model._meta.db_table])
            assert cursor.fetchone()[0] == max(r["id"] for r in ROWS[kind]) + 1, kind
