"""``manage.py export_components [--format csv|xlsx] [--output FILE] [--company ID] [--user NAME]``:
export components with the
importer's columns, so the file imports back unchanged (docs/import-export.md)."""

from inventory.management.commands._csv import ExportCommand


class Command(ExportCommand):
    help = "Export components as CSV or XLSX with the importer's columns."
    kind = "component"
