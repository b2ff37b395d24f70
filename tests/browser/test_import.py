"""The admin's CSV import as an administrator uses it: the asset list's "Import CSV" link, upload a 20-row file in
Snipe-IT's importer columns, read the preview (nothing written yet), confirm, and find the assets in the list."""

from __future__ import annotations

import csv

from django.urls import reverse

from inventory.models import Asset
from tests.browser.helpers import expect, search

ASSETS = reverse("admin:inventory_asset_changelist")


def test_import_a_20_row_csv_from_the_admin(admin_page, tmp_path):
    path = tmp_path / "fleet.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Asset Tag", "Name", "Serial", "Model name", "Category", "Manufacturer", "Status",
                         "Location", "Purchase Date", "Purchase Cost"])
        for n in range(20):
            writer.writerow([f"IMP-{n:03}", f"Imported laptop {n}", f"SER-{n:05}", "Latitude 5440", "Laptops", "Dell",
                             "Ready to Deploy", "Head office", "2026-01-15", "1099.00"])
    admin_page.goto(ASSETS)

    admin_page.click(".object-tools a:text-is('Import CSV')")
    admin_page.set_input_files("input[type=file]", str(path))
    admin_page.click("input[type=submit][value='Preview']")

    expect(admin_page.locator("#content")).to_contain_text("20 would be created")
    assert not Asset.objects.filter(asset_tag__startswith="IMP-").exists()  # a preview writes nothing
    admin_page.click("input[type=submit][value='Confirm import']")

    expect(admin_page.locator("ul.messagelist")).to_contain_text("Import done. 20 rows: 20 created")
    assert Asset.objects.filter(asset_tag__startswith="IMP-").count() == 20
    imported = Asset.objects.select_related("model__category", "model__manufacturer", "status", "location").get(
        asset_tag="IMP-007")
    assert (imported.name, imported.serial, imported.model.name, imported.model.category.name,
            imported.model.manufacturer.name, imported.status.name, imported.location.name) == (
        "Imported laptop 7", "SER-00007", "Latitude 5440", "Laptops", "Dell", "Ready to Deploy", "Head office")
    search(admin_page, ASSETS, "IMP-0")
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(20)
