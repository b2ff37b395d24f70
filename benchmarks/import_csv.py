"""Write a Snipe-IT-style asset CSV of N rows for timing ``manage.py import_assets`` (docs/performance.md, issue 14).

    .venv/bin/python benchmarks/import_csv.py --rows 100000 --out /tmp/assets.csv [--users 200] [--checked-out 0.1]

12 models in 4 categories from 3 manufacturers, 6 locations, 3 suppliers, two status labels; a share of the rows
(``--checked-out``) is checked out to ``user1`` ... ``userN`` (create them first: the script prints a shell line).
Deterministic for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import csv
import random

HEADER = ["Asset Tag", "Name", "Serial", "Model name", "Model Number", "Category", "Manufacturer", "Status",
          "Location", "Company", "Supplier", "Purchase Date", "Purchase Cost", "Order Number", "Warranty", "Notes",
          "Checked Out To"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--checked-out", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with open(args.out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for number in range(1, args.rows + 1):
            model = rng.randrange(12)
            holder = f"user{rng.randrange(1, args.users + 1)}" if rng.random() < args.checked_out else ""
            writer.writerow([
                f"IMP-{number:07d}", f"Machine {number}", f"SN{rng.randrange(10**12):012d}", f"Model {model}",
                f"M-{model}", f"Category {model % 4}", f"Maker {model % 3}",
                rng.choice(["Ready to Deploy", "In Repair"]) if not holder else "Ready to Deploy",
                f"Site {rng.randrange(6)}", "", f"Supplier {rng.randrange(3)}",
                f"2023-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
                f"{rng.randrange(100, 300000) / 100:.2f}",
                f"PO-{rng.randrange(1000)}", str(rng.choice([12, 24, 36])), "", holder,
            ])
    print(f"wrote {args.rows} rows to {args.out}; users needed: user1 .. user{args.users}")


if __name__ == "__main__":
    main()
