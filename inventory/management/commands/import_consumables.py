"""``manage.py import_consumables FILE.csv [--update] [--dry-run] [--user NAME]``:
import consumables from a CSV file with
Snipe-IT's importer columns (docs/import-export.md)."""

from inventory.management.commands._csv import ImportCommand


class Command(ImportCommand):
    help = "Import consumables from a CSV file (Snipe-IT importer columns); --update, --dry-run."
    kind = "consumable"
