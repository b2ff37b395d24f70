"""The exact ``total`` of the hardware list from the live-asset tally (PostgreSQL), instead of counting.

Counting the live assets of a million reads a million index entries (~50 ms on the benchmark machine) on every
page; the tally (``inventory_asset_tally``, migration 0013, kept by triggers on every write to
``inventory_asset``, whatever makes it: API, admin, import, ``bulk_create``, raw SQL) holds the live assets per
(company, status label) pair, so the same exact number is a sum over a few rows. It answers only lists whose
conditions are the pairs' own: live assets, optionally of some companies (the caller's company with separation on,
``?company_id=``) and of some status labels (``?status_id=``, or every label but the archived ones by default).
Any other filter or a search counts as before (``selectors.tallied_total`` decides). SQLite has no tally: lists
count there.

Anything that writes assets with user triggers off (``session_replication_role = replica``, as the benchmark seed's
bulk load does, or ``pg_restore --data-only --disable-triggers``) bypasses the tally: it must end with
:func:`rebuild` (``manage.py recount_assets``), as the seed does.
"""

from __future__ import annotations

from django.db import connection, transaction

from inventory.choices import StatusType
from inventory.models import Asset, StatusLabel

TABLE = "inventory_asset_tally"


def available() -> bool:
    """The tally exists where migration 0013 created it: PostgreSQL."""
    return connection.vendor == "postgresql"


def live_asset_total(*, companies: list[int] | None = None, statuses: list[int] | None = None,
                     archived: bool = True) -> int:
    """Live assets of ``companies`` (None: any, a company or none) with ``statuses`` (None: any), without the
    archived labels' when ``archived`` is False. PostgreSQL only."""
    conditions, params = [], []
    if companies is not None:
        conditions.append("company_id = ANY(%s)")
        params.append(companies)
    if statuses is not None:
        conditions.append("status_id = ANY(%s)")
        params.append(statuses)
    if not archived:
        conditions.append(f"status_id NOT IN (SELECT id FROM {StatusLabel._meta.db_table} WHERE type = %s)")
        params.append(StatusType.ARCHIVED)
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(SUM(delta), 0) FROM {TABLE}{where}", params)
        return int(cursor.fetchone()[0])


def rebuild() -> tuple[int, int]:
    """Recount the tally from the assets (after a data-only restore with triggers disabled, or any doubt): the
    asset table is locked against writes (reads go on) while the tally is emptied and refilled, in one transaction.
    Returns (live assets, rows written). PostgreSQL only."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {Asset._meta.db_table} IN SHARE MODE")
        cursor.execute(f"DELETE FROM {TABLE}")
        cursor.execute(f"INSERT INTO {TABLE} (company_id, status_id, delta) SELECT company_id, status_id, count(*) "
                       f"FROM {Asset._meta.db_table} WHERE deleted_at IS NULL GROUP BY 1, 2")
        written = cursor.rowcount
        cursor.execute(f"SELECT COALESCE(SUM(delta), 0) FROM {TABLE}")
        return int(cursor.fetchone()[0]), written
