"""Per-module summary of the last mutmut run (``mutants/*.meta``): killed / survived / other, then the survivors.

Run from the project root after ``make mutate`` (``scripts/mutate.py`` prints it itself): ``python
scripts/mutation_report.py``. ``--survivors-only`` skips the table. Exit status is 0: surviving mutants are a
reading list (docs/testing.md says which are equivalent), not a failure of the run.
"""

from __future__ import annotations

import sys
from collections import Counter

from mutmut.mutation.data import SourceFileMutationData
from mutmut.stats import status_by_exit_code
from mutmut.utils.file_utils import walk_mutatable_files


def collect() -> dict[str, dict[str, str]]:
    """``{module path: {mutant name: status}}`` for every mutated module."""
    out: dict[str, dict[str, str]] = {}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        out[str(path)] = {name: status_by_exit_code[code] for name, code in sorted(data.exit_code_by_key.items())}
    return out


def report(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    results = collect()
    if "--survivors-only" not in argv:
        print()
        print(f"{'module':<34} {'mutants':>7} {'killed':>7} {'survived':>8} {'other':>6}  score")
        totals: Counter[str] = Counter()
        for path, statuses in results.items():
            counts = Counter(statuses.values())
            total = len(statuses)
            killed = counts["killed"]
            survived = counts["survived"]
            other = total - killed - survived
            totals.update(total=total, killed=killed, survived=survived, other=other)
            score = f"{100 * killed / total:.0f}%" if total else "-"
            print(f"{path:<34} {total:>7} {killed:>7} {survived:>8} {other:>6}  {score}")
        total = totals["total"]
        score = f"{100 * totals['killed'] / total:.0f}%" if total else "-"
        print(f"{'total':<34} {total:>7} {totals['killed']:>7} {totals['survived']:>8} {totals['other']:>6}  {score}")
    print()
    print("Not killed (see `mutmut show <name>`):")
    for statuses in results.values():
        for name, status in statuses.items():
            if status != "killed":
                print(f"    {name}: {status}")
    return 0


if __name__ == "__main__":
    sys.exit(report())
