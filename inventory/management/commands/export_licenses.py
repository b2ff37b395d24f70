"""``manage.py export_licenses [--format csv|xlsx] [--output FILE] [--company ID] [--user NAME]``:
export licenses with the
importer's columns, so the file imports back unchanged (docs/import-export.md)."""

from inventory.management.commands._csv import ExportCommand


class Command(ExportCommand):
    help = "Export licenses as CSV or XLSX with the importer's columns."
    kind = "license"
