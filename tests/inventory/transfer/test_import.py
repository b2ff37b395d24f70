"""``manage.py import_assets`` and the other importers (issue 14): rows checked by the API's rules, errors by line
and column with nothing written for the row, catalogue entries created once, ``--update``, ``--dry-run``, checkout to
the ``Checked Out To`` user, company separation, progress lines."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from activity.models import ActionLog
from companies.models import Company
from inventory.choices import StatusType
from inventory.models import (
    Accessory,
    Asset,
    AssetModel,
    Category,
    Component,
    Consumable,
    License,
    Location,
    StatusLabel,
    Supplier,
)
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CompanyFactory,
    StatusLabelFactory,
    UserFactory,
)

HEADER = ["Asset Tag", "Name", "Serial", "Model name", "Model Number", "Category", "Manufacturer", "Status",
          "Location", "Company", "Supplier", "Purchase Date", "Purchase Cost", "Order Number", "Warranty", "Notes",
          "Checked Out To"]


def write_csv(path, rows, header=HEADER):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def row(tag, **cells):
    values = {"Name": f"Laptop {tag}", "Model name": "MacBook Pro 14", "Model Number": "A2442",
              "Category": "Laptops", "Manufacturer": "Apple", "Status": "Ready to Deploy", "Location": "HQ",
              "Supplier": "ACME", "Purchase Date": "2024-01-15", "Purchase Cost": "1999.50", "Warranty": "36",
              **cells}
    values["Asset Tag"] = tag
    return [values.get(column, "") for column in HEADER]


def run(kind, path, *args):
    out, err = io.StringIO(), io.StringIO()
    call_command(f"import_{kind}", path, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def admin(superuser):
    return superuser


def test_creates_assets_and_the_missing_catalogue_once(admin, tmp_path):
    path = write_csv(tmp_path / "a.csv", [row("A-1"), row("A-2", Serial="S2"), row("A-3", Company="Acme Corp")])

    out, err = run("assets", path)

    assert "3 rows: 3 created, 0 updated, 0 skipped, 0 failed." in out
    assert Asset.objects.count() == 3
    assert AssetModel.objects.filter(name="MacBook Pro 14", model_number="A2442").count() == 1
    assert Category.objects.get(name="Laptops").category_type == "asset"
    assert StatusLabel.objects.get(name="Ready to Deploy").type == StatusType.DEPLOYABLE
    asset = Asset.objects.get(asset_tag="A-2")
    assert (asset.serial, str(asset.purchase_cost), asset.warranty_months) == ("S2", "1999.50", 36)
    assert asset.rtd_location == asset.location == Location.objects.get(name="HQ")
    assert asset.supplier == Supplier.objects.get(name="ACME")
    assert asset.created_by == admin
    assert Asset.objects.get(asset_tag="A-3").company == Company.objects.get(name="Acme Corp")
    logs = ActionLog.objects.filter(item_type="asset", action_type="create")
    assert logs.count() == 3
    assert {log.action_source for log in logs} == {"importer"}
    assert "imported 3/3 rows" in err


def test_bad_rows_are_reported_by_line_and_column_and_nothing_of_them_is_written(admin, tmp_path):
    path = write_csv(tmp_path / "a.csv", [
        row("OK-1"),
        row("BAD-1", **{"Purchase Date": "15/01/2024", "Purchase Cost": "-5", "Warranty": "9999"}),
        row("", Name="no tag"),
        row("BAD-2", **{"Name": "x" * 256, "Model name": ""}),
        row("BAD-3", Notes="nul\x00byte", **{"Checked Out To": "nobody"}),
        row("OK-1"),
        row("BAD-4", **{"Model name": "New model", "Category": ""}),
    ])

    out, err = run("assets", path)

    assert "7 rows: 1 created, 0 updated, 0 skipped, 6 failed." in out
    assert list(Asset.objects.values_list("asset_tag", flat=True)) == ["OK-1"]
    assert "line 3, column Purchase Date: The purchase date does not match the format YYYY-MM-DD." in err
    assert "line 3, column Purchase Cost: The purchase cost must be at least 0." in err
    assert "line 3, column Warranty: The warranty months may not be greater than 1200." in err
    assert "line 4, column Asset Tag: The asset tag field is required." in err
    assert "line 5, column Name: The name may not be greater than 255 characters." in err
    assert "line 5, column Model name: The model name field is required." in err
    assert "line 6, column Notes: Null characters are not allowed." in err
    assert "line 6, column Checked Out To: No active user has the username or e-mail nobody." in err
    assert "line 7, column Asset Tag: The asset tag must be unique. Line 2 has the same tag." in err
    assert 'line 8, column Category: The category field is required to create the model "New model".' in err
    assert not AssetModel.objects.filter(name="New model").exists()


def test_dry_run_writes_nothing_and_counts_what_it_would_do(admin, tmp_path):
    AssetFactory(asset_tag="OLD-1")
    path = write_csv(tmp_path / "a.csv", [row("N-1"), row("OLD-1"), row("N-2", **{"Purchase Cost": "abc"})])
    before = (Asset.objects.count(), AssetModel.objects.count(), ActionLog.objects.count(), Category.objects.count())

    out, err = run("assets", path, "--dry-run")

    assert "Dry run, nothing written. 3 rows: 1 would be created, 0 would be updated, 1 skipped, 1 failed." in out
    assert "line 4, column Purchase Cost: The purchase cost must be a number." in err
    after = (Asset.objects.count(), AssetModel.objects.count(), ActionLog.objects.count(), Category.objects.count())
    assert after == before


def test_existing_tags_are_skipped_or_updated_with_update(admin, tmp_path):
    asset = AssetFactory(asset_tag="E-1", name="Old name", serial="KEEP")
    path = write_csv(tmp_path / "a.csv", [row("e-1", Name="New name", Serial="")])

    out, _ = run("assets", path)
    assert "1 skipped" in out
    asset.refresh_from_db()
    assert asset.name == "Old name"

    out, _ = run("assets", path, "--update")
    assert "1 updated" in out
    asset.refresh_from_db()
    assert (asset.name, asset.serial, asset.model.name) == ("New name", "KEEP", "MacBook Pro 14")
    assert ActionLog.objects.filter(item_type="asset", item_id=asset.pk, action_type="update").count() == 1

    out, _ = run("assets", path, "--update")
    assert "0 updated, 1 skipped" in out


def test_checked_out_to_by_username_and_by_email(admin, tmp_path):
    alice = UserFactory(username="alice", email="alice@example.com")
    bob = UserFactory(username="bob", email="bob@example.org")
    path = write_csv(tmp_path / "a.csv", [row("C-1", **{"Checked Out To": "ALICE"}),
                                          row("C-2", **{"Checked Out To": "bob@example.org"})])

    out, err = run("assets", path)

    assert "2 created" in out, err
    first, second = Asset.objects.get(asset_tag="C-1"), Asset.objects.get(asset_tag="C-2")
    assert (first.assigned_user, second.assigned_user) == (alice, bob)
    assert first.checkout_counter == 1
    log = ActionLog.objects.get(item_type="asset", item_id=first.pk, action_type="checkout")
    assert (log.target_type, log.target_id, log.action_source) == ("user", alice.pk, "importer")


def test_checkout_needs_a_deployable_status(admin, tmp_path):
    StatusLabelFactory(name="Broken", type=StatusType.UNDEPLOYABLE)
    UserFactory(username="carol")
    path = write_csv(tmp_path / "a.csv", [row("D-1", Status="Broken", **{"Checked Out To": "carol"})])

    _, err = run("assets", path)

    assert "line 2, column Status: That asset status is not deployable." in err
    assert not Asset.objects.exists()


def test_empty_status_takes_the_first_deployable_label(admin, tmp_path):
    label = StatusLabelFactory(name="Deployable", type=StatusType.DEPLOYABLE)
    path = write_csv(tmp_path / "a.csv", [row("S-1", Status="")])

    run("assets", path)

    assert Asset.objects.get(asset_tag="S-1").status == label


def test_staff_with_a_company_import_into_their_company_and_see_only_its_people(fmcs_on, tmp_path):
    mine, theirs = CompanyFactory(name="Mine"), CompanyFactory(name="Theirs")
    staff = UserFactory(username="staff", company=mine, superuser=False)
    UserFactory(username="colleague", company=mine)
    UserFactory(username="stranger", company=theirs)
    path = write_csv(tmp_path / "a.csv", [row("M-1", Company="Theirs", **{"Checked Out To": "colleague"}),
                                          row("M-2", **{"Checked Out To": "stranger"})])

    out, err = run("assets", path, "--user", "staff")

    assert "1 created" in out and "1 failed" in out
    assert Asset.objects.get(asset_tag="M-1").company == mine
    assert "line 3, column Checked Out To: No active user has the username or e-mail stranger." in err
    assert staff.pk


def test_a_file_without_known_columns_is_refused(admin, tmp_path):
    path = write_csv(tmp_path / "a.csv", [["x"]], header=["Nothing"])
    with pytest.raises(CommandError, match="no known column"):
        run("assets", path)


def test_a_row_with_too_many_cells_fails_alone(admin, tmp_path):
    path = write_csv(tmp_path / "a.csv", [row("T-1"), [*row("T-2"), "extra"]])
    out, err = run("assets", path)
    assert "1 created" in out and "1 failed" in out
    assert "line 3, column -: 18 values for 17 columns." in err


# --- the other kinds ------------------------------------------------------------------------------------------------

STOCK_HEADER = ["Item Name", "Category", "Company", "Manufacturer", "Supplier", "Location", "Model Number",
                "Order Number", "Purchase Date", "Purchase Cost", "Quantity", "Min Amount", "Requestable", "Notes"]


@pytest.mark.parametrize(("kind", "model", "category_type", "extra"), [
    ("accessories", Accessory, "accessory", ()),
    ("consumables", Consumable, "consumable", ("Item Number",)),
    ("components", Component, "component", ("Serial",)),
])
def test_stock_kinds_create_update_and_report_errors(admin, tmp_path, kind, model, category_type, extra):
    header = [*STOCK_HEADER, *extra]
    good = ["Dock", "Docks", "", "Dell", "ACME", "HQ", "WD19", "PO-1", "2024-02-01", "199.99", "5", "1", "1",
            "note", *("X1" for _ in extra)]
    bad = ["Cable", "Cables", "", "", "", "", "", "", "2024-13-01", "", "0", "", "", "", *("" for _ in extra)]
    path = write_csv(tmp_path / "s.csv", [good, bad], header=header)

    out, err = run(kind, path)

    assert "1 created" in out and "1 failed" in out, (out, err)
    item = model.objects.get(name="Dock")
    assert (item.qty, str(item.purchase_cost), item.category.category_type) == (5, "199.99", category_type)
    assert item.location.name == "HQ" and item.supplier.name == "ACME" and item.requestable
    assert "line 3, column Purchase Date: The purchase date is not a valid date." in err
    assert "line 3, column Quantity: The qty must be at least 1." in err
    assert not model.objects.filter(name="Cable").exists()

    good[10] = "7"
    write_csv(tmp_path / "s.csv", [good], header=header)
    out, _ = run(kind, path, "--update")
    assert "1 updated" in out
    item.refresh_from_db()
    assert item.qty == 7


def test_licenses_create_with_seats_and_match_by_name_and_serial(admin, tmp_path):
    header = ["Item Name", "Serial", "Seats", "Category", "Licensed To Email", "Expiration Date"]
    path = write_csv(tmp_path / "l.csv", [["Office", "KEY-1", "3", "Software", "it@example.com", "2027-01-01"],
                                          ["Office", "KEY-2", "2", "Software", "", ""],
                                          ["Bad", "", "0", "Software", "not-an-email", ""]], header=header)

    out, err = run("licenses", path)

    assert "2 created" in out and "1 failed" in out, (out, err)
    office = License.objects.get(serial="KEY-1")
    assert office.seat_rows.count() == 3
    assert office.category.category_type == "license"
    assert "line 4, column Seats: The seats must be at least 1." in err
    assert "line 4, column Licensed To Email: The license email must be a valid email address." in err
    assert not License.objects.filter(name="Bad").exists()


def test_existing_model_is_found_whatever_the_category_column_says(admin, tmp_path):
    model = AssetModelFactory(name="ThinkPad", model_number="T14", category=CategoryFactory(name="Notebooks"))
    path = write_csv(tmp_path / "a.csv", [row("X-1", **{"Model name": "thinkpad", "Model Number": "t14",
                                                        "Category": ""})])
    run("assets", path)
    assert Asset.objects.get(asset_tag="X-1").model == model


def test_update_checks_out_a_free_asset_and_refuses_one_held_by_someone_else(admin, tmp_path):
    dave, erin = UserFactory(username="dave"), UserFactory(username="erin")
    free = AssetFactory(asset_tag="F-1")
    held = AssetFactory(asset_tag="H-1", assigned_user=erin)
    path = write_csv(tmp_path / "a.csv", [row("F-1", **{"Checked Out To": "dave"}),
                                          row("H-1", **{"Checked Out To": "dave"})])

    out, err = run("assets", path, "--update")

    assert "1 updated" in out and "1 failed" in out
    free.refresh_from_db()
    held.refresh_from_db()
    assert free.assigned_user == dave and held.assigned_user == erin
    assert "line 3, column Checked Out To: The asset is already checked out to someone else" in err
    assert held.name != "Laptop H-1"  # nothing of the refused row was written


def test_generated_tags_and_the_counter(admin, site_settings, tmp_path):
    site_settings.auto_increment_assets = True
    site_settings.auto_increment_prefix = "GEN-"
    site_settings.zerofill_count = 3
    site_settings.next_auto_tag_base = 1
    site_settings.save()
    path = write_csv(tmp_path / "a.csv", [row("GEN-010"), row(""), row("")])

    out, err = run("assets", path)

    assert "3 created" in out, err
    assert set(Asset.objects.values_list("asset_tag", flat=True)) == {"GEN-010", "GEN-011", "GEN-012"}


def test_unique_serials_when_the_site_asks(admin, site_settings, tmp_path):
    site_settings.unique_serial = True
    site_settings.save()
    AssetFactory(asset_tag="OLD", serial="SER-1")
    path = write_csv(tmp_path / "a.csv", [row("N-1", Serial="ser-1"), row("N-2", Serial="SER-2"),
                                          row("N-3", Serial="SER-2")])

    out, err = run("assets", path)

    assert "1 created" in out and "2 failed" in out
    assert "line 2, column Serial: The serial must be unique." in err
    assert "line 4, column Serial: The serial must be unique." in err


def test_a_file_that_is_not_utf8_is_refused_whole(admin, tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(",".join(HEADER).encode() + b"\r\nT-1,Caf\xe9\r\n")
    with pytest.raises(CommandError, match="not readable CSV in UTF-8"):
        run("assets", str(path))
    assert not Asset.objects.exists()


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise():
    from assetsvc.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal, log = Terminal(), io.StringIO()
    bar, lines = Progress(12000, verb="imported", stream=terminal), Progress(12000, verb="imported", stream=log)
    for _ in range(12):
        bar.advance(1000)
        lines.advance(1000)
    bar.close()
    assert "100%" in terminal.getvalue() and "12000/12000" in terminal.getvalue()
    assert log.getvalue().splitlines() == ["imported 5000/12000 rows", "imported 10000/12000 rows",
                                           "imported 12000/12000 rows"]


@pytest.mark.postgres
def test_bulk_import_keeps_the_live_asset_tally_exact(admin, tmp_path):
    from inventory.selectors import tally

    AssetFactory(asset_tag="PRE-1")
    path = write_csv(tmp_path / "a.csv", [row(f"TL-{number}") for number in range(1, 1201)])
    run("assets", path)
    assert tally.live_asset_total() == Asset.objects.alive().count() == 1201
