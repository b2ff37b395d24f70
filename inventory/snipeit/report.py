"""The closing report of a Snipe-IT import (issue 31): per kind how many rows were read, imported (or, in a dry
run, would be), found imported by an earlier run (``--resume``) and skipped, each skipped record named with why, and
notes (a sub-list this Snipe-IT lacks, kinds not imported yet, a value not kept). One report for the reading side
(``reading.py`` counts ``read`` and the rows a reader cannot decode) and the writing side (``importer.py`` counts
``imported``, ``resumed`` and the rows our checks refuse).

The report holds no secret: names, counts and reasons only. ``as_dict()`` is what the import run stores (JSON);
``render()`` is what the command prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Skipped:
    """One record left out: ``name`` as ``Kind.label`` gives it (``asset 12 "MBP-0001"``), why, and its Snipe-IT id
    when it has one (a consumable's handout has none)."""

    name: str
    why: str
    snipeit_id: Any = None


@dataclass
class KindTally:
    """The counts of one kind (or sub-list, named ``license.seats``), and notes about the kind as a whole.
    ``matched``: records ``--merge`` found here by their natural key (mapped, not written); ``changed``: every record
    whose id here is not its Snipe-IT id, as ``[snipeit_id, our_id, "matched" | "new id"]``."""

    read: int = 0
    imported: int = 0
    resumed: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    matched: int = 0
    changed: list[list[Any]] = field(default_factory=list)
    #: Sub-list rows a batched writer wrote, by the reader's sub-list name (``checkouts``, ``seats``, ``models``):
    #: ``importer.write_kind`` moves them to the report's ``<kind>.<name>`` rows, where reading counted them.
    sub_imported: dict[str, int] = field(default_factory=dict)

    def sub_written(self, name: str, count: int = 1) -> None:
        self.sub_imported[name] = self.sub_imported.get(name, 0) + count

    def id_changed(self, snipeit_id: Any, our_id: Any, how: str) -> None:
        """Record that Snipe-IT's ``snipeit_id`` is ``our_id`` here (``how``: "matched" or "new id")."""
        if snipeit_id != our_id:
            self.changed.append([snipeit_id, our_id, how])


@dataclass
class ImportReport:
    """What a run read, wrote and left out, kind by kind in the order they were read."""

    dry_run: bool = False
    kinds: dict[str, KindTally] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def tally(self, kind: str) -> KindTally:
        return self.kinds.setdefault(kind, KindTally())

    def read(self, kind: str, count: int = 1) -> None:
        self.tally(kind).read += count

    def imported(self, kind: str, count: int = 1) -> None:
        self.tally(kind).imported += count

    def skip(self, kind: str, name: str, why: str, snipeit_id: Any = None) -> None:
        self.tally(kind).skipped.append(Skipped(name, why, snipeit_id))

    def note(self, text: str) -> None:
        self.notes.append(text)

    @property
    def skipped_count(self) -> int:
        return sum(len(tally.skipped) for tally in self.kinds.values())

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON. ``kinds`` is a list, not an object: PostgreSQL's ``jsonb`` does not keep the order of
        an object's keys, and the order is the order kinds were read."""
        return {"dry_run": self.dry_run, "notes": list(self.notes),
                "kinds": [{"kind": name, "read": tally.read, "imported": tally.imported, "resumed": tally.resumed,
                           "skipped": [{"name": s.name, "why": s.why, "snipeit_id": s.snipeit_id}
                                       for s in tally.skipped],
                           "notes": list(tally.notes), "matched": tally.matched,
                           "changed": [list(item) for item in tally.changed]}
                          for name, tally in self.kinds.items()]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImportReport:
        report = cls(dry_run=bool(data.get("dry_run")), notes=list(data.get("notes") or []))
        for tally in data.get("kinds") or []:
            report.kinds[tally["kind"]] = KindTally(
                read=tally.get("read", 0), imported=tally.get("imported", 0), resumed=tally.get("resumed", 0),
                notes=list(tally.get("notes") or []), matched=tally.get("matched", 0),
                changed=[list(item) for item in tally.get("changed") or []],
                skipped=[Skipped(s["name"], s["why"], s.get("snipeit_id")) for s in tally.get("skipped", [])])
        return report

    def render(self) -> str:
        """The table (a ``resumed`` column only when an earlier run wrote some), the skipped records, the notes."""
        verb = "would import" if self.dry_run else "imported"
        resumed = any(tally.resumed for tally in self.kinds.values())
        matched = any(tally.matched for tally in self.kinds.values())
        width = max([len(name) for name in self.kinds] + [4])
        lines = [f"{'kind':<{width}}  {'read':>8}  {verb:>12}  " + (f"{'matched':>8}  " if matched else "")
                 + (f"{'resumed':>8}  " if resumed else "") + f"{'skipped':>8}"]
        for name, tally in self.kinds.items():
            lines.append(f"{name:<{width}}  {tally.read:>8}  {tally.imported:>12}  "
                         + (f"{tally.matched:>8}  " if matched else "")
                         + (f"{tally.resumed:>8}  " if resumed else "") + f"{len(tally.skipped):>8}")
        if any(tally.changed for tally in self.kinds.values()):
            lines += ["", "Ids that changed (kind, Snipe-IT id -> our id):"]
            lines += [f"  {name} {theirs} -> {ours} ({how})" for name, tally in self.kinds.items()
                      for theirs, ours, how in tally.changed]
        for name, tally in self.kinds.items():
            if tally.skipped:
                lines.append("")
                lines.append(f"Skipped {name}:")
                lines.extend(f"  {skipped.name}: {skipped.why}" for skipped in tally.skipped)
        notes = [*self.notes, *(f"{name}: {note}" for name, tally in self.kinds.items() for note in tally.notes)]
        if notes:
            lines.append("")
            lines.extend(f"Note: {note}" for note in notes)
        return "\n".join(lines) + "\n"
