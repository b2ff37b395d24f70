"""``manage.py export_assets`` and the other exports (issue 14): the importer's columns, CSV and XLSX, company
separation, and the round trip: a 1,000-row Snipe-IT file imported, exported, and imported back changes nothing."""

from __future__ import annotations

import csv
import io
import random

import pytest
from django.core.management import call_command
from openpyxl import load_workbook

from inventory.models import Accessory, Asset, AssetModel, Category, License, Location, StatusLabel, Supplier
from inventory.transfer.columns import ASSET_COLUMNS
from tests.factories import AssetFactory, CompanyFactory, UserFactory

HEADER = [column.header for column in ASSET_COLUMNS]


def sample_csv(path, count: int, *, seed: int = 14, bad_every: int = 0, users=()) -> str:
    """A Snipe-IT-style asset export of ``count`` rows (``bad_every``: every n-th row has a bad date)."""
    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for number in range(1, count + 1):
            model = rng.randrange(12)
            writer.writerow([
                f"TAG-{number:06d}", f"Machine {number}" if number % 3 else "", f"SN{rng.randrange(10**9):09d}",
                f"Model {model}", f"M-{model}", f"Category {model % 4}", f"Maker {model % 3}",
                rng.choice(["Ready to Deploy", "In Repair", "Ready to Deploy"]), f"Site {rng.randrange(6)}",
                "", f"Supplier {rng.randrange(3)}",
                "2024-13-40" if bad_every and number % bad_every == 0 else f"2023-{rng.randrange(1, 13):02d}-15",
                f"{rng.randrange(100, 300000) / 100:.2f}", f"PO-{rng.randrange(1000)}", str(rng.choice([12, 24, 36])),
                "" if number % 5 else f"Note for {number}",
                users[(number // 10) % len(users)] if users and number % 10 == 0 else "",
            ])
    return str(path)


def command(name, *args):
    out, err = io.StringIO(), io.StringIO()
    call_command(name, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_thousand_rows_import_reports_bad_lines_and_export_imports_back_unchanged(superuser, tmp_path):
    UserFactory(username="alice")
    UserFactory(username="bob", email="bob@example.com")
    source = sample_csv(tmp_path / "snipe.csv", 1000, bad_every=250, users=("alice", "bob@example.com"))

    out, err = command("import_assets", source)

    assert "1000 rows: 996 created, 0 updated, 0 skipped, 4 failed." in out
    for number in (250, 500, 750, 1000):
        assert f"line {number + 1}, column Purchase Date: The purchase date is not a valid date." in err
    assert "imported 1000/1000 rows" in err
    assert Asset.objects.filter(assigned_user__username="alice").count() == 48  # 2 of its 50 rows are bad
    assert Asset.objects.filter(assigned_user__username="bob").count() == 48

    exported = tmp_path / "export.csv"
    command("export_assets", "--output", str(exported))
    out, _ = command("import_assets", str(exported), "--update", "--dry-run")
    assert "996 rows: 0 would be created, 0 would be updated, 996 skipped, 0 failed." in out

    # Into a fresh database: the same rows, the same export.
    Asset.objects.all().delete()
    for model in (AssetModel, Category, StatusLabel, Location, Supplier):
        model.objects.all().delete()
    out, err = command("import_assets", str(exported))
    assert "996 created" in out, err
    again = tmp_path / "again.csv"
    command("export_assets", "--output", str(again))
    assert sorted(exported.read_text().splitlines()) == sorted(again.read_text().splitlines())


def test_export_columns_and_cells(superuser, tmp_path):
    holder = UserFactory(username="holder")
    asset = AssetFactory(asset_tag="007", name="Spy kit", purchase_cost="12.5", warranty_months=12,
                         purchase_date="2024-02-29", assigned_user=holder)
    out, _ = command("export_assets", "--no-progress")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == HEADER
    cells = dict(zip(HEADER, rows[1], strict=True))
    assert cells["Asset Tag"] == "007" and cells["Purchase Cost"] == "12.50"
    assert cells["Purchase Date"] == "2024-02-29" and cells["Warranty"] == "12"
    assert cells["Checked Out To"] == "holder" and cells["Model name"] == asset.model.name


def test_xlsx_export_keeps_cells_as_text(superuser, tmp_path):
    AssetFactory(asset_tag="00123")
    target = tmp_path / "assets.xlsx"
    command("export_assets", "--format", "xlsx", "--output", str(target))
    sheet = load_workbook(target).active
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == HEADER
    assert rows[1][0] == "00123"


def test_export_for_a_user_with_a_company_shows_only_theirs(fmcs_on, tmp_path):
    mine, theirs = CompanyFactory(name="Mine"), CompanyFactory(name="Theirs")
    UserFactory(username="staff", company=mine)
    AssetFactory(asset_tag="MINE-1", company=mine)
    AssetFactory(asset_tag="THEIRS-1", company=theirs)

    out, _ = command("export_assets", "--user", "staff", "--no-progress")
    assert "MINE-1" in out and "THEIRS-1" not in out

    out, _ = command("export_assets", "--company", str(theirs.pk), "--no-progress")
    assert "THEIRS-1" in out and "MINE-1" not in out


@pytest.mark.parametrize("kind", ["accessories", "licenses"])
def test_other_kinds_round_trip(superuser, tmp_path, kind):
    if kind == "accessories":
        source = [["Item Name", "Category", "Quantity", "Purchase Cost", "Requestable"],
                  ["Dock", "Docks", "4", "99.00", "1"]]
    else:
        source = [["Item Name", "Serial", "Seats", "Category", "Maintained"],
                  ["Office", "KEY-1", "3", "Software", "1"]]
    path = tmp_path / "in.csv"
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows(source)
    command(f"import_{kind}", str(path))
    exported = tmp_path / "out.csv"
    command(f"export_{kind}", "--output", str(exported))
    out, _ = command(f"import_{kind}", str(exported), "--update")
    assert "1 rows: 0 created, 0 updated, 1 skipped, 0 failed." in out
    model = Accessory if kind == "accessories" else License
    assert model.objects.count() == 1


def test_export_by_a_limited_user_hides_another_companys_holder(fmcs_on, superuser, make_client):
    """Issue 25 item 3 in exports: a super user checked company B's asset out to a company-A user; B's staff export
    the asset without A's username ("Checked Out To" empty, as ``assigned_to`` is null in B's API answers), while a
    holder of their own company and an unlimited export still name the holder."""
    a, b = CompanyFactory(name="A"), CompanyFactory(name="B")
    UserFactory(username="b-staff", company=b)
    alice = UserFactory(username="alice-a", company=a)
    bob = UserFactory(username="bob-b", company=b)
    foreign = AssetFactory(asset_tag="B-FOREIGN", company=b)
    own = AssetFactory(asset_tag="B-OWN", company=b)
    api = make_client(superuser)
    for asset, holder in ((foreign, alice), (own, bob)):
        answer = api.post(f"/api/v1/hardware/{asset.pk}/checkout",
                          {"checkout_to_type": "user", "assigned_user": holder.pk}, format="json")
        assert answer.json()["status"] == "success", answer.json()

    out, _ = command("export_assets", "--user", "b-staff", "--no-progress")
    rows = {row["Asset Tag"]: row for row in csv.DictReader(io.StringIO(out))}
    assert rows["B-FOREIGN"]["Checked Out To"] == "" and "alice-a" not in out
    assert rows["B-OWN"]["Checked Out To"] == "bob-b"

    out, _ = command("export_assets", "--no-progress")
    rows = {row["Asset Tag"]: row for row in csv.DictReader(io.StringIO(out))}
    assert rows["B-FOREIGN"]["Checked Out To"] == "alice-a"
