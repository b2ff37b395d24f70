"""Trigram indexes for ``?search=`` on PostgreSQL (issue 13, docs/performance.md).

``?search=`` matches ``UPPER(column) LIKE UPPER('%term%')``; a GIN index of ``pg_trgm`` trigrams on ``UPPER(column)``
answers it without reading every asset. The extension is created where the database user may (it is a trusted
extension from PostgreSQL 13: a database owner may); where it cannot be, the migration logs a notice and goes on:
searching still works, by scanning. On SQLite nothing is done. The indexes are not in the models' ``Meta``: they
exist only where the extension does.
"""

import logging

from django.db import migrations

logger = logging.getLogger("inventory.migrations")

COLUMNS = ("name", "asset_tag", "serial", "order_number", "notes")


def index_name(column: str) -> str:
    return f"asset_{column}_trgm"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        if cursor.fetchone() is None:
            try:
                cursor.execute("SAVEPOINT trgm")
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
                cursor.execute("RELEASE SAVEPOINT trgm")
            except Exception as exc:  # noqa: BLE001 - not allowed here: search keeps working without the indexes
                cursor.execute("ROLLBACK TO SAVEPOINT trgm")
                logger.warning("pg_trgm could not be created (%s): ?search= on assets runs without trigram "
                               "indexes (docs/performance.md)", str(exc).strip().splitlines()[0])
                return
        for column in COLUMNS:
            cursor.execute(f'CREATE INDEX IF NOT EXISTS {index_name(column)} ON inventory_asset '
                           f'USING gin (UPPER("{column}"::text) gin_trgm_ops)')


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for column in COLUMNS:
            cursor.execute(f"DROP INDEX IF EXISTS {index_name(column)}")


class Migration(migrations.Migration):
    dependencies = [("inventory", "0007_visible_set_indexes")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
