"""Progress of a long management command (issue 14): a tqdm bar on a terminal, plain lines in logs.

Every long command (the CSV import and export, ``prune_deliveries``) reports through :class:`Progress`, and
:func:`progress_stream` picks where: the raw stderr when it is a terminal (the bar redraws in place), else Django's
stderr wrapper, so a cron job's log gets one line per few thousand items.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from django.core.management.base import BaseCommand


class Progress:
    """Progress of a long command: a tqdm bar on a terminal (stderr), else a plain line every ``every`` items
    ("imported 5000/100000 rows") on ``stream``; silent with ``stream=None``. ``report``: also told every step
    (the admin's import task writes it to its job row for the page)."""

    def __init__(self, total: int, *, verb: str, stream: IO[str] | None = sys.stderr, every: int = 5000,
                 unit: str = "rows", report: Callable[[int, int], None] | None = None) -> None:
        self.total, self.verb, self.stream, self.every, self.unit = total, verb, stream, every, unit
        #: Called with (done, total) at the start and on every advance (a task's progress row; issue 25).
        self.report = report
        if report is not None:
            report(0, total)
        self.done = 0
        self._bar: Any = None
        if stream is not None and getattr(stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit=f" {unit}", file=stream, desc=verb, dynamic_ncols=True)

    def advance(self, count: int = 1) -> None:
        before, self.done = self.done, self.done + count
        if self.report is not None:
            self.report(self.done, self.total)
        if self._bar is not None:
            self._bar.update(count)
        elif self.stream is not None and (self.done // self.every > before // self.every or self.done == self.total):
            self.stream.write(f"{self.verb} {self.done}/{self.total} {self.unit}\n")
            self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def progress_stream(command: BaseCommand) -> IO[str]:
    """The command's stderr: the raw stream on a terminal (tqdm draws in place), else Django's wrapper (lines)."""
    raw = getattr(command.stderr, "_out", sys.stderr)
    return raw if raw.isatty() else command.stderr
