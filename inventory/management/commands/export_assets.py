"""``manage.py export_assets [--format csv|xlsx] [--output FILE] [--company ID] [--user NAME]``:
export assets with the
importer's columns, so the file imports back unchanged (docs/import-export.md)."""

from inventory.management.commands._csv import ExportCommand


class Command(ExportCommand):
    help = "Export assets as CSV or XLSX with the importer's columns."
    kind = "asset"
