"""``import_snipeit --verify`` against the stand-in (issue 31): after an import nothing differs; a field changed
here and one changed in Snipe-IT are both named (kind, Snipe-IT id, field, theirs, ours) and the command fails; a
record missing here is named; ``--verify`` writes nothing and refuses ``--dry-run``."""

from __future__ import annotations

import copy
import io

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from companies.models import Company
from inventory.models import Supplier
from tests.factories import CompanyFactory, SupplierFactory
from tests.snipeit.conftest import SNIPEIT_TOKEN
from tests.snipeit.standin import SnipeitStandin
from tests.snipeit.test_resume import state

pytestmark = pytest.mark.django_db



def command(url: str, *args: str) -> str:
    out = io.StringIO()
    try:
        call_command("import_snipeit", "--url", url, *args, stdout=out, stderr=io.StringIO())
    except CommandError as error:
        error.output = out.getvalue()  # type: ignore[attr-defined]
        raise
    return out.getvalue()


def test_after_an_import_verify_finds_no_difference(snipeit_standin, token):
    command(snipeit_standin.url)
    before = state()
    report = command(snipeit_standin.url, "--verify")
    assert report.rstrip().endswith("No difference."), report
    assert state() == before  # nothing written
    lines = {line.split()[0]: line.split()[1:] for line in report.splitlines()[1:14]}
    assert lines["user"][:2] == ["40", "40"] and lines["company"][0] == lines["company"][1]
    # The users imported without their department (another company's) are known differences, not failures.
    assert "department_id not kept, as the import reported" in report


def test_a_field_changed_on_each_side_and_a_record_missing_are_named(snipeit_dataset, token):
    changed = copy.deepcopy(snipeit_dataset)
    supplier_id = min(changed.rows["suppliers"])
    changed.rows["suppliers"][supplier_id]["name"] = "Renamed in Snipe-IT"
    added = max(changed.rows["suppliers"]) + 1  # a supplier added in Snipe-IT after the import
    changed.rows["suppliers"][added] = {**copy.deepcopy(changed.rows["suppliers"][supplier_id]), "id": added,
                                        "name": "New in Snipe-IT"}
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN) as standin:
        command(standin.url)
    company = Company.objects.order_by("pk").first()
    Company.objects.filter(pk=company.pk).update(name="Renamed here")
    with SnipeitStandin(changed, token=SNIPEIT_TOKEN) as standin, pytest.raises(CommandError, match="differ") as caught:
        command(standin.url, "--verify")
    report = caught.value.output
    original = snipeit_dataset.raw["suppliers"][supplier_id]["name"]
    assert f"supplier {supplier_id} name: 'Renamed in Snipe-IT' / {original!r}" in report
    assert f"company {company.pk} name: {snipeit_dataset.raw['companies'][company.pk]['name']!r} / 'Renamed here'" \
        in report
    assert f'In Snipe-IT, missing here:\n  supplier {added} "New in Snipe-IT"' in report
    assert "2 differing fields, 1 records missing here" in report


def test_a_reference_is_compared_in_snipe_its_ids(snipeit_standin, snipeit_dataset, token):
    command(snipeit_standin.url)
    user = User.objects.filter(company__isnull=False, deleted_at__isnull=True).order_by("pk").first()
    other = Company.objects.exclude(pk=user.company_id).order_by("pk").first()
    User.objects.filter(pk=user.pk).update(company=other)
    with pytest.raises(CommandError) as caught:
        command(snipeit_standin.url, "--verify")
    assert f"user {user.pk} company_id: {snipeit_dataset.raw['users'][user.pk]['company_id']} / {other.pk}" \
        in caught.value.output


def test_verify_refuses_dry_run(snipeit_standin, token):
    with pytest.raises(CommandError, match="without --dry-run"):
        command(snipeit_standin.url, "--verify", "--dry-run")


def test_a_supplier_created_here_only_is_not_compared(snipeit_standin, token):
    command(snipeit_standin.url)
    Supplier.objects.create(name="Ours only")
    assert command(snipeit_standin.url, "--verify").rstrip().endswith("No difference.")


def test_after_a_merge_references_compare_through_the_id_maps(snipeit_standin, snipeit_dataset, token):
    raw = snipeit_dataset.raw
    company_id = next(pk for pk, row in raw["companies"].items()
                      if any(user["company_id"] == pk for user in raw["users"].values()))
    truth = raw["companies"][company_id]
    CompanyFactory(pk=900, name=truth["name"].upper(), phone=truth["phone"] or "", fax=truth["fax"] or "",
                   email=truth["email"] or "", notes=truth["notes"] or "")
    supplier_id = min(raw["suppliers"])
    SupplierFactory(pk=supplier_id, name="Ours, on Snipe-IT's id")
    imported = command(snipeit_standin.url, "--merge")
    assert f"company {company_id} -> 900 (matched)" in imported and f"supplier {supplier_id} -> " in imported
    with pytest.raises(CommandError) as caught:
        command(snipeit_standin.url, "--verify")
    report = caught.value.output
    # The matched company differs in its name's case only (it was not overwritten); every reference to it (users,
    # locations, departments) compares equal, ours translated back to Snipe-IT's id.
    assert f"company {company_id} name: {truth['name']!r} / {truth['name'].upper()!r}" in report
    assert "1 differing fields, 0 records missing here" in report


def test_what_the_import_left_out_and_said_so_is_known_not_a_difference(snipeit_dataset, token):
    changed = copy.deepcopy(snipeit_dataset)
    asset = next(row for row in changed.rows["hardware"].values()
                 if (row.get("custom_fields") or {}).get("MAC Address", {}).get("value") and not row["deleted_at"])
    asset["custom_fields"]["MAC Address"]["value"] = "not a MAC"  # refused by our format check: left out, noted
    column = asset["custom_fields"]["MAC Address"]["field"]
    checkouts = next(rows for (kind, _id, name), rows in changed.sub.items() if kind == "accessories" and rows)
    checkouts[0]["assigned_to"] = {**checkouts[0]["assigned_to"], "id": 99999}  # a user Snipe-IT no longer has
    action = next(row for row in changed.rows["activity"].values() if (row.get("target") or {}).get("type") == "user")
    action["target"] = {**action["target"], "id": 99999}
    with SnipeitStandin(changed, token=SNIPEIT_TOKEN) as standin:
        imported = command(standin.url)
        report = command(standin.url, "--verify")
    assert f"imported without {column}" in imported
    assert report.rstrip().endswith("No difference."), report
    assert f'asset {asset["id"]} "{asset["asset_tag"]}": {column} not kept, as the import reported' in report
    assert "checkouts 1 rows not kept, as the import reported" in report
    assert f"action {action['id']}" in report and "its target, user 99999, was not imported" in report


def test_a_checkbox_compares_as_its_ticked_options():
    # Snipe-IT joins ticked options with ", ", we store them joined with "," (as our API stores any checkbox input)
    from types import SimpleNamespace

    from inventory.snipeit.verify import Ctx, Maps, VerifyReport, _custom_values

    ports = SimpleNamespace(db_column_name="_snipeit_ports_1", element="checkbox")
    ctx = Ctx(client=None, maps=Maps(), report=VerifyReport(), custom_fields={1: ports},
              values={7: {"_snipeit_ports_1": "USB-C,HDMI"}})
    theirs, mine = _custom_values({"custom_values": {"_snipeit_ports_1": "USB-C, HDMI"}}, SimpleNamespace(pk=7), ctx)
    assert theirs == mine
    theirs, mine = _custom_values({"custom_values": {"_snipeit_ports_1": "USB-C"}}, SimpleNamespace(pk=7), ctx)
    assert theirs != mine
