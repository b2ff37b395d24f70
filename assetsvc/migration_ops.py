"""Migration operations shared by the apps' migrations (imported by them: keep the behaviour of what exists).

:func:`trigram_indexes`: ``?search=`` matches ``UPPER(column) LIKE UPPER('%term%')``; a GIN index of ``pg_trgm``
trigrams on ``UPPER(column)`` answers it without reading the whole table (issue 13, docs/performance.md). The
extension is created where the database user may (a trusted extension from PostgreSQL 13: a database owner may);
where it cannot be, the migration logs a notice and goes on: searching still works, by scanning. On SQLite
nothing is done. These indexes are not in the models' ``Meta``: they exist only where the extension does.
"""

from __future__ import annotations

import logging

from django.db import migrations

logger = logging.getLogger("assetsvc.migrations")


def _trigram_available(cursor) -> bool:
    cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
    if cursor.fetchone() is not None:
        return True
    try:
        cursor.execute("SAVEPOINT trgm")
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        cursor.execute("RELEASE SAVEPOINT trgm")
    except Exception as exc:  # noqa: BLE001 - not allowed here: search keeps working without the indexes
        cursor.execute("ROLLBACK TO SAVEPOINT trgm")
        logger.warning("pg_trgm could not be created (%s): ?search= runs without trigram indexes "
                       "(docs/performance.md)", str(exc).strip().splitlines()[0])
        return False
    return True


def trigram_indexes(table: str, columns: tuple[str, ...], prefix: str) -> migrations.RunPython:
    """Create (and on reverse drop) ``<prefix>_<column>_trgm`` on ``table`` for each column, where possible."""

    def create(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            if not _trigram_available(cursor):
                return
            for column in columns:
                cursor.execute(f'CREATE INDEX IF NOT EXISTS {prefix}_{column}_trgm ON {table} '
                               f'USING gin (UPPER("{column}"::text) gin_trgm_ops)')

    def drop(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            for column in columns:
                cursor.execute(f"DROP INDEX IF EXISTS {prefix}_{column}_trgm")

    return migrations.RunPython(create, drop, elidable=False)
