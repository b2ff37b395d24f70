"""The CSV columns of each kind of item, shared by the importer (``inventory.transfer.import_assets``) and the exporter
(``inventory.transfer.export``), so that an export imports back unchanged (issue 14). The headers are Snipe-IT's
importer
names (its ``app/Livewire/Importer.php`` field map and aliases); docs/import-export.md lists them.

Also here: reading a CSV file into numbered rows, the quote that keeps spreadsheets from running a text cell as a
formula (:func:`quote_formula`, :func:`unquote_formula`; issue 25), and the progress reporter of the long commands (a
bar on a terminal, plain lines in logs).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

#: The largest file the importer reads (the admin's upload limit too).
MAX_FIELD_SIZE = 1_000_000


@dataclass(frozen=True)
class Column:
    """One CSV column: its header as exported (``header``), the importer's key, and other headers read as it
    (compared case-insensitively, surrounding spaces ignored)."""

    header: str
    key: str
    aliases: tuple[str, ...] = ()


# --- the columns of each kind, in export order ---------------------------------------------------------------------

ASSET_COLUMNS: tuple[Column, ...] = (
    Column("Asset Tag", "asset_tag", ("asset tag", "tag")),
    Column("Name", "name", ("item name", "asset name")),
    Column("Serial", "serial", ("serial number", "serial no.", "serial no")),
    Column("Model name", "model", ("model",)),
    Column("Model Number", "model_number", ("model no", "model no.", "model num", "model num.")),
    Column("Category", "category"),
    Column("Manufacturer", "manufacturer"),
    Column("Status", "status", ("status label",)),
    Column("Location", "location", ("default location",)),
    Column("Company", "company"),
    Column("Supplier", "supplier"),
    Column("Purchase Date", "purchase_date"),
    Column("Purchase Cost", "purchase_cost"),
    Column("Order Number", "order_number"),
    Column("Warranty", "warranty_months", ("warranty months",)),
    Column("Notes", "notes", ("asset notes", "item notes")),
    Column("Checked Out To", "checked_out_to", ("username", "user name", "email", "e-mail",
                                                "checked out to: username", "checked out to: email")),
)

_STOCK_HEAD: tuple[Column, ...] = (
    Column("Item Name", "name", ("name",)),
    Column("Category", "category"),
    Column("Company", "company"),
    Column("Manufacturer", "manufacturer"),
    Column("Supplier", "supplier"),
    Column("Location", "location"),
    Column("Model Number", "model_number", ("model no", "model no.", "model num", "model num.")),
    Column("Order Number", "order_number"),
    Column("Purchase Date", "purchase_date"),
    Column("Purchase Cost", "purchase_cost"),
    Column("Quantity", "qty", ("qty",)),
    Column("Min Amount", "min_amt", ("min qty", "minimum amount", "min quantity", "minimum quantity")),
    Column("Requestable", "requestable"),
    Column("Notes", "notes"),
)

ACCESSORY_COLUMNS = _STOCK_HEAD
CONSUMABLE_COLUMNS = (*_STOCK_HEAD, Column("Item Number", "item_no", ("item no.", "item #", "item no")))
COMPONENT_COLUMNS = (*_STOCK_HEAD, Column("Serial", "serial", ("serial number", "serial no.", "serial no")))
LICENSE_COLUMNS: tuple[Column, ...] = (
    Column("Item Name", "name", ("name", "license name", "software name")),
    Column("Serial", "serial", ("serial number", "product key", "key", "license serial")),
    Column("Seats", "seats"),
    Column("Category", "category"),
    Column("Company", "company"),
    Column("Manufacturer", "manufacturer"),
    Column("Supplier", "supplier"),
    Column("Licensed To Name", "license_name"),
    Column("Licensed To Email", "license_email"),
    Column("Reassignable", "reassignable"),
    Column("Maintained", "maintained"),
    Column("Expiration Date", "expiration_date"),
    Column("Termination Date", "termination_date"),
    Column("Purchase Order", "purchase_order"),
    Column("Order Number", "order_number"),
    Column("Purchase Date", "purchase_date"),
    Column("Purchase Cost", "purchase_cost"),
    Column("Min Amount", "min_amt", ("min qty", "minimum amount", "min quantity", "minimum quantity")),
    Column("Notes", "notes"),
)

COLUMNS: dict[str, tuple[Column, ...]] = {
    "asset": ASSET_COLUMNS,
    "accessory": ACCESSORY_COLUMNS,
    "consumable": CONSUMABLE_COLUMNS,
    "component": COMPONENT_COLUMNS,
    "license": LICENSE_COLUMNS,
}


#: First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def quote_formula(text: str) -> str:
    """A CSV text cell with one ``'`` before it when a spreadsheet would run it as a formula (its first character,
    after any ``'`` already there, is one of :data:`FORMULA_START`), else as it is. Quoting text that already starts
    with ``'`` and a trigger keeps the round trip lossless: :func:`unquote_formula` takes exactly one ``'`` off."""
    return "'" + text if text.lstrip("'").startswith(FORMULA_START) else text


def unquote_formula(text: str) -> str:
    """A CSV cell as read: the one ``'`` that :func:`quote_formula` put before a formula-like text taken off; any
    other cell (``'quoted text``, ``-12.50``) as it is."""
    return text[1:] if text.startswith("'") and text[1:].lstrip("'").startswith(FORMULA_START) else text


def header_of(kind: str, key: str) -> str:
    """The exported header of ``key`` (what error messages name)."""
    for column in COLUMNS[kind]:
        if column.key == key:
            return column.header
    return key


class CsvFileError(ValueError):
    """The file as a whole cannot be imported (not CSV, no header, no known column); nothing was written."""


@dataclass
class CsvRows:
    """A CSV file read for import: the known columns found (key → header as written), headers ignored, and the
    rows as (line number, key → cell text)."""

    keys: dict[str, str]
    ignored: list[str]
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)


def _normalise(text: str) -> str:
    return " ".join((text or "").replace("\ufeff", "").strip().lower().split())


def read_csv(kind: str, stream: IO[str] | IO[bytes], *, extra: Mapping[str, str] | None = None) -> CsvRows:
    """Read the whole file: map its headers to ``kind``'s columns; number rows by the file line they start on (the
    header is line 1). A row with more cells than headers is a bad line; blank rows are skipped. ``extra``: more
    headers (any case) → key, read after the kind's own (the asset importer's custom fields). Every cell and header
    is read through :func:`unquote_formula`, so an export imports back unchanged."""
    if isinstance(stream, io.BufferedIOBase | io.RawIOBase) or "b" in getattr(stream, "mode", ""):
        stream = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    csv.field_size_limit(MAX_FIELD_SIZE)
    reader = csv.reader(stream)
    try:
        header = [unquote_formula(name) for name in next(reader)]
    except StopIteration:
        raise CsvFileError("The file is empty: a header row is required.") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise CsvFileError(f"line 1: the file is not readable CSV in UTF-8 ({exc}).") from None
    lookup: dict[str, str] = {}
    for column in COLUMNS[kind]:
        for name in (column.header, column.key, *column.aliases):
            lookup.setdefault(_normalise(name), column.key)
            # Snipe-IT's importer field names (``item_name``, ``min_amt``), as ``column-mappings`` send them
            lookup.setdefault(_normalise(name).replace("_", " "), column.key)
    for name, key in (extra or {}).items():
        lookup.setdefault(_normalise(name), key)
    positions: dict[str, int] = {}
    keys: dict[str, str] = {}
    ignored: list[str] = []
    for index, name in enumerate(header):
        key = lookup.get(_normalise(name)) or lookup.get(_normalise(name).replace("_", " "))
        if key is None or key in positions:
            if name.strip():
                ignored.append(name.strip())
            continue
        positions[key] = index
        keys[key] = name.strip()
    if not positions:
        raise CsvFileError("line 1: no known column; expected headers such as "
                           + ", ".join(column.header for column in COLUMNS[kind][:4]) + ".")
    result = CsvRows(keys=keys, ignored=ignored)
    line = reader.line_num + 1
    try:
        for cells in reader:
            start, line = line, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(header):
                result.bad_lines.append((start, f"{len(cells)} values for {len(header)} columns."))
                continue
            result.rows.append((start, {key: unquote_formula(cells[index]) if index < len(cells) else ""
                                        for key, index in positions.items()}))
    except (csv.Error, UnicodeDecodeError) as exc:
        raise CsvFileError(f"line {line}: the file is not readable CSV in UTF-8 ({exc}).") from None
    return result


def iter_chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
