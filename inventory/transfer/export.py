"""CSV and XLSX export with the importer's columns (``inventory.transfer.columns``), so that an export imports back
unchanged (issue 14; docs/import-export.md). Rows are read as tuples (``values_list``), never as model instances, and
written as they are read, so a large export stays flat in memory.

Cell formats are what the importer reads: dates ``YYYY-MM-DD``, costs with two decimals, booleans ``1``/``0``,
``Checked Out To`` the holder's username (empty for an asset checked out to another asset or a location, which the
importer cannot express, and for a holder of another company when the exporting user is limited to one),
``Location`` an asset's default location (what the importer sets).

Assets also get one column per custom field that is in a fieldset (header: the field's name, in field id order; the
``db_column_name`` where the importer would read the name as another column): the plaintext of the fields of the
asset's model's fieldset, empty for the others. An encrypted value shows as ``ENCRYPTED`` unless the exporting user
holds ``assets.view.encrypted_custom_fields`` (none without a user). Values are read one query per chunk of rows.

Formula injection (issue 25): in CSV, a text cell (and a header) that a spreadsheet would run as a formula gets one
``'`` before it (``csv_columns.quote_formula``; the importer takes it off again); numbers, dates and booleans are
never quoted, so ``-12.50`` in a cost column stays a number. XLSX cells are written as strings (``t="inlineStr"``,
with Excel's quote prefix on formula-like ones), never as formulas: openpyxl would otherwise store any text starting
with ``=`` as a live formula.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from itertools import islice
from typing import IO, TYPE_CHECKING, Any

from django.db import models
from django.db.models import Case, F, Q, When

from accounts.permissions import has_access
from assetsvc.progress import Progress
from companies.querysets import limiting_company_id
from inventory import custom_values
from inventory.models import Accessory, Asset, Component, Consumable, CustomField, CustomFieldsetField, License
from inventory.transfer.columns import COLUMNS, FORMULA_START, quote_formula

if TYPE_CHECKING:
    from accounts.models import User

FORMATS = ("csv", "xlsx")

#: Column key → the path read for it, per kind (the same keys as the importer's columns).
_ASSET_PATHS = {
    "asset_tag": "asset_tag", "name": "name", "serial": "serial", "model": "model__name",
    "model_number": "model__model_number", "category": "model__category__name",
    "manufacturer": "model__manufacturer__name", "status": "status__name", "location": "rtd_location__name",
    "company": "company__name", "supplier": "supplier__name", "purchase_date": "purchase_date",
    "purchase_cost": "purchase_cost", "order_number": "order_number", "warranty_months": "warranty_months",
    "notes": "notes", "checked_out_to": "assigned_user__username",
}
_STOCK_PATHS = {
    "name": "name", "category": "category__name", "company": "company__name",
    "manufacturer": "manufacturer__name", "supplier": "supplier__name", "location": "location__name",
    "model_number": "model_number", "order_number": "order_number", "purchase_date": "purchase_date",
    "purchase_cost": "purchase_cost", "qty": "qty", "min_amt": "min_amt", "requestable": "requestable",
    "notes": "notes", "item_no": "item_no", "serial": "serial", "seats": "seats", "license_name": "license_name",
    "license_email": "license_email", "reassignable": "reassignable", "maintained": "maintained",
    "expiration_date": "expiration_date", "termination_date": "termination_date",
    "purchase_order": "purchase_order",
}
MODELS: dict[str, type[models.Model]] = {
    "asset": Asset, "accessory": Accessory, "consumable": Consumable, "component": Component, "license": License,
}


def export_queryset(kind: str, *, user: User | None = None, company_id: int | None = None) -> models.QuerySet:
    """The live items of ``kind`` to export: those ``user`` may see (company separation), of one company when
    ``company_id`` is given; in id order."""
    queryset = MODELS[kind].objects.filter(deleted_at__isnull=True)
    if user is not None:
        queryset = queryset.restrict(user)
    if company_id is not None:
        queryset = queryset.filter(company_id=company_id)
    return queryset.order_by("pk")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    return str(value)


def _quoted_cell(value: Any) -> str:
    """A CSV cell: text quoted against formulas, other values (numbers, dates, booleans) as :func:`_cell` writes
    them."""
    return quote_formula(value) if isinstance(value, str) else _cell(value)


def _normalised(text: str) -> str:
    return " ".join(text.lower().split())


def custom_columns(kind: str = "asset") -> list[tuple[CustomField, str]]:
    """The custom fields an asset export has columns for (those in any fieldset, in id order) and their headers:
    the field's name, or its ``db_column_name`` where the importer reads the name as another column (a header, a
    key or an alias of the kind's columns, or an earlier field's name)."""
    taken = {_normalised(name) for column in COLUMNS[kind] for name in (column.header, column.key, *column.aliases)}
    columns = []
    for field_ in CustomField.objects.filter(
            pk__in=CustomFieldsetField.objects.values("field_id")).order_by("pk"):
        header = field_.name.strip()
        if _normalised(header) in taken and field_.db_column_name:
            header = field_.db_column_name
        taken.add(_normalised(header))
        columns.append((field_, header))
    return columns


def _asset_paths(user: User | None) -> dict[str, Any]:
    """The asset paths for ``user``: a holder of another company than the one the exporting user is limited to is
    left empty, as ``assigned_to`` is null in their API answers (issue 25 item 3)."""
    limit = limiting_company_id(user)
    if limit is None:
        return _ASSET_PATHS
    visible = Q(assigned_user__company_id__isnull=True) | Q(assigned_user__company_id=limit)
    return {**_ASSET_PATHS, "checked_out_to": Case(When(visible, then=F("assigned_user__username")),
                                                   default=None, output_field=models.CharField())}


def export_rows(kind: str, queryset: models.QuerySet, *, chunk_size: int = 2000,
                user: User | None = None, quote: bool = False) -> Iterator[list[str]]:
    """The header, then one list of cells per item (read in chunks by the database cursor). ``quote``: text cells
    and headers as CSV writes them (module docstring)."""
    columns = COLUMNS[kind]
    paths = _asset_paths(user) if kind == "asset" else _STOCK_PATHS
    headers = [column.header for column in columns]
    values = queryset.values_list(*(paths[column.key] for column in columns))
    cell = _quoted_cell if quote else _cell
    text = quote_formula if quote else str
    if kind != "asset":
        yield headers
        for row in values.iterator(chunk_size=chunk_size):
            yield [cell(value) for value in row]
        return
    custom = custom_columns(kind)
    yield headers + [text(header) for _, header in custom]
    if not custom:
        for row in values.iterator(chunk_size=chunk_size):
            yield [cell(value) for value in row]
        return
    may_read = has_access(user, custom_values.ENCRYPTED_PERMISSION)
    carried = {pk: {slot.field.pk for slot in slots} for pk, slots in custom_values.fieldset_slots(
        CustomFieldsetField.objects.values_list("fieldset_id", flat=True).distinct()).items()}
    rows = queryset.values_list(*(paths[column.key] for column in columns), "pk", "model__fieldset_id")
    iterator = rows.iterator(chunk_size=chunk_size)
    while chunk := list(islice(iterator, chunk_size)):
        stored = custom_values.values_of(row[-2] for row in chunk)
        for *cells, pk, fieldset_id in chunk:
            own, fields = stored.get(pk, {}), carried.get(fieldset_id, set())
            yield [cell(value) for value in cells] + [
                text(custom_values.shown(field_, own.get(field_.pk), may_read)) if field_.pk in fields else ""
                for field_, _ in custom]


def _xlsx_row(sheet: Any, row: list[str]) -> list[Any]:
    """A row of XLSX cells: formula-like text as explicit string cells with Excel's quote prefix (so editing the
    cell does not turn it into a formula either), other text as it is (openpyxl stores it as a string)."""
    from openpyxl.cell import WriteOnlyCell

    cells: list[Any] = []
    for value in row:
        if value.startswith(FORMULA_START):
            cell = WriteOnlyCell(sheet, value=value)
            cell.data_type = "s"
            cell.quotePrefix = True
            cells.append(cell)
        else:
            cells.append(value)
    return cells


def write_export(kind: str, queryset: models.QuerySet, output: IO[Any], *, fmt: str = "csv",
                 progress: Progress | None = None, user: User | None = None) -> int:
    """Write the export of ``queryset`` to ``output`` (text for CSV, binary for XLSX); the number of items.
    ``user``: who exports (whether encrypted custom values are shown in plaintext)."""
    count = 0
    if fmt == "csv":
        writer = csv.writer(output)
        for row in export_rows(kind, queryset, user=user, quote=True):
            writer.writerow(row)
            count += 1
            if progress is not None and count > 1:
                progress.advance()
        return count - 1
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title=kind)
    for row in export_rows(kind, queryset, user=user):
        sheet.append(_xlsx_row(sheet, row))  # every cell as text: "00123" stays a tag, "=1+1" is no formula
        count += 1
        if progress is not None and count > 1:
            progress.advance()
    workbook.save(output)
    return count - 1
