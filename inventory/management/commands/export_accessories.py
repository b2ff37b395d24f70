"""``manage.py export_accessories [--format csv|xlsx] [--output FILE] [--company ID] [--user NAME]``:
export accessories with the
importer's columns, so the file imports back unchanged (docs/import-export.md)."""

from inventory.management.commands._csv import ExportCommand


class Command(ExportCommand):
    help = "Export accessories as CSV or XLSX with the importer's columns."
    kind = "accessory"
