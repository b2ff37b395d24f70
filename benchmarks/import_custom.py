"""Time a CSV import of new assets with and without custom-field columns on a seeded database (issue 25 item 23;
docs/performance.md, "Bulk paths set-based").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME SECRET_KEY=x .venv/bin/python benchmarks/import_custom.py \
        [--rows 30000] [--repeat 1]

The database is one ``benchmarks/run.py --keep`` seeded (its "Computers" fieldset: OS Version, RAM GB, Disk GB,
MAC Address, Owner E-mail, ...). Each run imports ``--rows`` new assets of a model of that fieldset as the super user
``admin`` through ``inventory.transfer.import_assets.import_csv`` (the importer of the command, the admin and the
admin's task),
once with five custom columns and once without, inside a transaction rolled back at the end, so the database is
the same for every run (the importer's batch transactions become savepoints). Prints seconds, rows per second and
the SQL statements per 500-row batch.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assetsvc.settings")

CUSTOM = ["OS Version", "RAM GB", "Disk GB", "Owner E-mail", "Last Check-in"]


def build(rows: int, model, custom: bool, offset: int) -> io.StringIO:
    header = ["Asset Tag", "Name", "Model name", "Model Number", "Category", "Status", "Serial"]
    header += CUSTOM if custom else []
    lines = [",".join(header)]
    for n in range(offset, offset + rows):
        cells = [f"IMPBENCH-{n:07d}", f"Bench {n}", model.name, model.model_number, model.category.name,
                 "Ready to Deploy", f"BS{n:010d}"]
        if custom:
            cells += [f"Bench OS {n % 7}", str(8 * (1 + n % 8)), str(256 * (1 + n % 4)), f"owner{n}@example.com",
                      f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}"]
        lines.append(",".join(f'"{cell}"' for cell in cells))
    return io.StringIO("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    import django

    django.setup()
    from django.db import connection, transaction

    from accounts.models import User
    from inventory.models import AssetModel
    from inventory.transfer.import_assets import BATCH_SIZE, import_csv

    admin = User.objects.get(username="admin")
    model = AssetModel.objects.select_related("category").filter(fieldset__name="Computers").order_by("pk").first()
    statements = [0]

    def count(execute, sql, params, many, context):
        statements[0] += 1
        return execute(sql, params, many, context)

    for custom in (True, False):
        for run in range(args.repeat):
            stream = build(args.rows, model, custom, offset=run * args.rows)
            statements[0] = 0
            began = time.perf_counter()
            with connection.execute_wrapper(count), transaction.atomic():
                result = import_csv("asset", stream, actor=admin)
                transaction.set_rollback(True)
            took = time.perf_counter() - began
            assert result.created == args.rows, (result.summary(), result.errors[:3])
            batches = -(-args.rows // BATCH_SIZE)
            print(f"{'with' if custom else 'without'} custom columns: {args.rows:,} rows in {took:.1f} s "
                  f"({args.rows / took:,.0f} rows/s), {statements[0]:,} statements "
                  f"({statements[0] / batches:.1f} per {BATCH_SIZE}-row batch); load average "
                  f"{os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
