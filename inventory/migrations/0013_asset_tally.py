"""The live-asset tally (PostgreSQL only): how many live assets each (company, status label) pair holds, kept by
triggers on ``inventory_asset`` so that ``GET /hardware`` answers its exact ``total`` without counting a million
index entries (issue 13, docs/performance.md "The live-asset tally"; read by ``inventory/tally.py``).

Writers never wait on each other for it: every statement that changes live assets *appends* its net change per
pair (statement-level triggers over the transition tables, so a bulk insert or a COPY appends one row per pair,
and a save that changes none of company, status or deletion appends nothing). A pair that has gathered 16 rows is
folded into one row by the writer that notices, taking only rows no other transaction holds (``SKIP LOCKED``): the
sum never changes, and no writer blocks on another's uncommitted rows. ``TRUNCATE`` of the assets empties it.

The table is filled from the assets in the same transaction that creates the triggers (``CREATE TRIGGER`` locks
out writers until it commits), so the tally starts exact. It is not a Django model: ``dumpdata``/``loaddata``
never copy it (loading assets fills it through the triggers). On SQLite nothing is created: lists count.
"""

from django.db import migrations

TABLE = "inventory_asset_tally"

CREATE = f"""
CREATE TABLE {TABLE} (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    company_id bigint NULL,
    status_id bigint NOT NULL,
    delta bigint NOT NULL
);
CREATE INDEX {TABLE}_pair ON {TABLE} (status_id, company_id);

CREATE FUNCTION {TABLE}_append() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    statuses bigint[];
    companies bigint[];
    no_company boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        WITH appended AS (
            INSERT INTO {TABLE} (company_id, status_id, delta)
            SELECT company_id, status_id, count(*) FROM tally_new WHERE deleted_at IS NULL GROUP BY 1, 2
            RETURNING company_id, status_id
        ) SELECT array_agg(DISTINCT status_id), array_agg(DISTINCT company_id), bool_or(company_id IS NULL)
          INTO statuses, companies, no_company FROM appended;
    ELSIF TG_OP = 'DELETE' THEN
        WITH appended AS (
            INSERT INTO {TABLE} (company_id, status_id, delta)
            SELECT company_id, status_id, -count(*) FROM tally_old WHERE deleted_at IS NULL GROUP BY 1, 2
            RETURNING company_id, status_id
        ) SELECT array_agg(DISTINCT status_id), array_agg(DISTINCT company_id), bool_or(company_id IS NULL)
          INTO statuses, companies, no_company FROM appended;
    ELSE
        WITH appended AS (
            INSERT INTO {TABLE} (company_id, status_id, delta)
            SELECT company_id, status_id, sum(delta) FROM (
                SELECT company_id, status_id, -1 AS delta FROM tally_old WHERE deleted_at IS NULL
                UNION ALL
                SELECT company_id, status_id, 1 FROM tally_new WHERE deleted_at IS NULL
            ) AS moved GROUP BY 1, 2 HAVING sum(delta) <> 0
            RETURNING company_id, status_id
        ) SELECT array_agg(DISTINCT status_id), array_agg(DISTINCT company_id), bool_or(company_id IS NULL)
          INTO statuses, companies, no_company FROM appended;
    END IF;
    IF statuses IS NULL THEN
        RETURN NULL;
    END IF;
    -- Fold each pair this statement touched that has gathered 16 rows into one, over the rows nobody else holds.
    WITH touched AS (
        SELECT id, company_id, status_id FROM {TABLE}
        WHERE status_id = ANY(statuses) AND (company_id = ANY(companies) OR (no_company AND company_id IS NULL))
    ), crowded AS (
        SELECT company_id, status_id FROM touched GROUP BY 1, 2 HAVING count(*) >= 16
    ), taken AS (
        SELECT t.id FROM {TABLE} AS t JOIN crowded AS c
            ON t.status_id = c.status_id AND t.company_id IS NOT DISTINCT FROM c.company_id
        FOR UPDATE OF t SKIP LOCKED
    ), folded AS (
        DELETE FROM {TABLE} AS t USING taken WHERE t.id = taken.id
        RETURNING t.company_id, t.status_id, t.delta
    )
    INSERT INTO {TABLE} (company_id, status_id, delta)
    SELECT company_id, status_id, sum(delta) FROM folded GROUP BY 1, 2 HAVING sum(delta) <> 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION {TABLE}_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM {TABLE};
    RETURN NULL;
END
$$;

CREATE TRIGGER {TABLE}_insert AFTER INSERT ON inventory_asset
    REFERENCING NEW TABLE AS tally_new FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_append();
CREATE TRIGGER {TABLE}_update AFTER UPDATE ON inventory_asset
    REFERENCING OLD TABLE AS tally_old NEW TABLE AS tally_new FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_append();
CREATE TRIGGER {TABLE}_delete AFTER DELETE ON inventory_asset
    REFERENCING OLD TABLE AS tally_old FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_append();
CREATE TRIGGER {TABLE}_truncate AFTER TRUNCATE ON inventory_asset
    FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_empty();

INSERT INTO {TABLE} (company_id, status_id, delta)
SELECT company_id, status_id, count(*) FROM inventory_asset WHERE deleted_at IS NULL GROUP BY 1, 2;
"""

DROP = f"""
DROP TRIGGER IF EXISTS {TABLE}_insert ON inventory_asset;
DROP TRIGGER IF EXISTS {TABLE}_update ON inventory_asset;
DROP TRIGGER IF EXISTS {TABLE}_delete ON inventory_asset;
DROP TRIGGER IF EXISTS {TABLE}_truncate ON inventory_asset;
DROP FUNCTION IF EXISTS {TABLE}_append();
DROP FUNCTION IF EXISTS {TABLE}_empty();
DROP TABLE IF EXISTS {TABLE};
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("inventory", "0012_company_user_filter_indexes"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
