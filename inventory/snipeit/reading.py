"""Reading every record of a kind from Snipe-IT, with its sub-lists, into plain dicts (issue 31).

Shared by ``--dry-run`` (which only counts), the import (whose writers take the dicts) and ``--verify`` (which
compares them with ours), so all three read Snipe-IT the same way. A row a reader cannot decode is skipped and named
in the report with why; it never stops the run. (A module of its own rather than part of ``importer.py``, which holds
the writers.)
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import IO, Any

from assetsvc.progress import Progress
from inventory.snipeit.client import SnipeitAuthError, SnipeitClient, SnipeitError, SnipeitRouteMissing
from inventory.snipeit.kinds import Kind, ReadContext, Row
from inventory.snipeit.report import ImportReport
from inventory.snipeit.values import ValueProblem

logger = logging.getLogger("inventory.snipeit")

#: The dry run's list of custom fields whose flags Snipe-IT did not send, for the operator to choose from.
FIELDS_TO_NAME = ("Snipe-IT did not say which custom fields are encrypted or unique (its API leaves both out). Name "
                  "them with --encrypted-fields and --unique-fields (columns, comma-separated); the fields: {fields}")


class KindProgress:
    """The progress of one kind over its list variants: a tqdm bar on a terminal, lines otherwise, and one log
    line per ``every`` rows (``assetsvc.progress.Progress``). The total grows as each variant's ``total`` arrives."""

    def __init__(self, kind: str, stream: IO[str] | None, every: int = 5000) -> None:
        self.kind, self.stream, self.every = kind, stream, every
        self.progress: Progress | None = None

    def add_total(self, total: int) -> None:
        if self.progress is None:
            self.progress = Progress(total, verb=f"read {self.kind}", stream=self.stream, every=self.every,
                                     unit="rows")
            return
        self.progress.total += total
        bar = getattr(self.progress, "_bar", None)
        if bar is not None:
            bar.total = self.progress.total
            bar.refresh()

    def advance(self) -> None:
        if self.progress is None:
            self.add_total(0)
        assert self.progress is not None
        self.progress.advance()

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()
        logger.info("read %s: %s rows", self.kind, self.progress.done if self.progress else 0)


def read_kind(client: SnipeitClient, kind: Kind, ctx: ReadContext, report: ImportReport, *,
              stream: IO[str] | None = None) -> Iterator[tuple[dict[str, Any], Row]]:
    """Every row of ``kind`` once (over its variants, by id), as ``(snipe_it_row, record)``; each sub-list's records
    are in ``record[sublist.name]``. Counts ``read`` and records skips in ``report``."""
    progress = KindProgress(kind.name, stream)
    seen: set[int] = set()
    try:
        for variant in kind.variants:
            for raw in client.rows(kind.route, variant, on_total=progress.add_total):
                if raw["id"] in seen:
                    continue
                seen.add(raw["id"])
                report.read(kind.name)
                progress.advance()
                try:
                    record = kind.read(raw, ctx)
                except (ValueProblem, TypeError, KeyError, AttributeError) as error:
                    report.skip(kind.name, kind.label(raw), _why(error))
                    continue
                for sublist in kind.sublists:
                    record[sublist.name] = list(_read_sublist(client, kind, sublist, raw, ctx, report))
                yield raw, record
    finally:
        progress.close()


def _read_sublist(client: SnipeitClient, kind: Kind, sublist: Any, raw: dict[str, Any], ctx: ReadContext,
                  report: ImportReport) -> Iterator[Row]:
    name = f"{kind.name}.{sublist.name}"
    note = f"{name}: Snipe-IT answered 404 for {sublist.route}; this version lacks the route, left out"
    if note in report.notes:  # asked once, not once per parent
        return
    route = sublist.route.format(id=raw["id"])
    try:
        for row in client.rows(route, key=sublist.key):
            report.read(name)
            try:
                yield sublist.read(row, raw["id"], ctx)
            except (ValueProblem, TypeError, KeyError, AttributeError) as error:
                report.skip(name, f"{kind.label(raw)}: {sublist.name} row {row.get('id', '?')}", _why(error))
    except SnipeitAuthError:
        raise
    except SnipeitRouteMissing:
        if not sublist.optional:
            raise
        report.note(note)
    except SnipeitError as error:
        report.skip(name, f"{kind.label(raw)}: {sublist.name}", str(error))


def _why(error: Exception) -> str:
    if isinstance(error, ValueProblem):
        return str(error)
    if isinstance(error, KeyError):
        return f"missing {error}"
    return f"unreadable row ({type(error).__name__}: {error})"


def dry_run(client: SnipeitClient, ctx: ReadContext, kinds: tuple[Kind, ...], *, report: ImportReport,
            stream: IO[str] | None = None) -> ImportReport:
    """Read every kind and count in ``report`` what an import would write: every row a reader decodes. (The caller
    owns the report, so an interrupted run can still print what it read.)"""
    for kind in kinds:
        report.tally(kind.name)
        unflagged = []
        for _raw, record in read_kind(client, kind, ctx, report, stream=stream):
            report.imported(kind.name)
            if kind.name == "custom_field" and not record["flags_known"]:
                unflagged.append(record)
            for sublist in kind.sublists:
                report.imported(f"{kind.name}.{sublist.name}", len(record[sublist.name]))
        if unflagged:
            report.note(FIELDS_TO_NAME.format(fields="; ".join(
                f"{r['db_column_name']} ({r['name']}, {r['format']}"
                + ", named encrypted" * r["field_encrypted"] + ", named unique" * r["is_unique"] + ")"
                for r in unflagged)))
    return report
