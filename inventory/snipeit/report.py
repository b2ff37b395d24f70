"""The closing report of a Snipe-IT import (issue 31): per kind how many rows were read, imported (or, in a dry
run, would be), found imported by an earlier run (``--resume``) and skipped, each skipped record named with why, and
notes (a sub-list this Snipe-IT lacks, kinds not imported yet, a value not kept). One report for the reading side
(``reading.py`` counts ``read`` and the rows a reader cannot decode) and the writing side (``importer.py`` counts
``imported``, ``resumed`` and the rows our checks refuse).

The report holds no secret: names, counts and reasons only. ``as_dict()`` is what the import run stores (JSON);
``render()`` is what the command prints.

A note that a record was "imported without" a field (``asset 15 "A-1" imported without _snipeit_x_7: why``) can come
once per record, 33,000 times at 100,000 assets: such notes are grouped by (kind, field, reason). The stored report
keeps each group's ids in full (``without``: what ``--verify`` needs to know per record); ``render()`` prints one line
per group, with the count and the first few ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: Ids a grouped note names before "and N more".
FIRST_IDS = 3


@dataclass
class Skipped:
    """One record left out: ``name`` as ``Kind.label`` gives it (``asset 12 "MBP-0001"``), why, and its Snipe-IT id
    when it has one (a consumable's handout has none)."""

    name: str
    why: str
    snipeit_id: Any = None
    parent: Any = None  # a sub-row's record (its Snipe-IT id): a license's seat, an accessory's checkout


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

    without: list[dict[str, Any]] = field(default_factory=list)  # grouped notes of a stored report (see grouped)

    def grouped(self, kind: str) -> tuple[list[str], list[dict[str, Any]]]:
        """The notes apart from the "imported without" ones, and those grouped: ``{what, why, ids, notes}`` per
        (field, reason) in the order first met, ids once each (``notes``: the notes as written, this run's only)."""
        pattern = re.compile(rf"^{re.escape(kind)} (\d+)\b.*? imported without (.+?): (.*)$", re.DOTALL)
        others: list[str] = []
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        seen: dict[tuple[str, str], set[Any]] = {}

        def add(what: str, why: str, snipeit_id: Any, note: str | None = None) -> None:
            group = groups.setdefault((what, why), {"what": what, "why": why, "ids": [], "notes": []})
            ids = seen.setdefault((what, why), set())
            if snipeit_id not in ids:
                ids.add(snipeit_id)
                group["ids"].append(snipeit_id)
                if note is not None:
                    group["notes"].append(note)

        for item in self.without:
            for snipeit_id in item["ids"]:
                add(item["what"], item["why"], snipeit_id)
            groups[(item["what"], item["why"])]["notes"] += item.get("notes") or []
        for note in self.notes:
            found = pattern.match(note)
            if found is None:
                others.append(note)
            else:
                add(found.group(2), found.group(3), int(found.group(1)), note)
        return others, list(groups.values())

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
                "kinds": [self._kind_dict(name, tally) for name, tally in self.kinds.items()]}

    @staticmethod
    def _kind_dict(name: str, tally: KindTally) -> dict[str, Any]:
        notes, groups = tally.grouped(name)
        return {"kind": name, "read": tally.read, "imported": tally.imported, "resumed": tally.resumed,
                "skipped": [{"name": s.name, "why": s.why, "snipeit_id": s.snipeit_id,
                             **({"parent": s.parent} if s.parent is not None else {})} for s in tally.skipped],
                "notes": notes, "without": [{"what": group["what"], "why": group["why"], "ids": group["ids"],
                                         "notes": group["notes"][:1]} for group in groups],
                "matched": tally.matched, "changed": [list(item) for item in tally.changed]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImportReport:
        report = cls(dry_run=bool(data.get("dry_run")), notes=list(data.get("notes") or []))
        for tally in data.get("kinds") or []:
            report.kinds[tally["kind"]] = KindTally(
                read=tally.get("read", 0), imported=tally.get("imported", 0), resumed=tally.get("resumed", 0),
                notes=list(tally.get("notes") or []), matched=tally.get("matched", 0),
                changed=[list(item) for item in tally.get("changed") or []],
                without=[dict(item) for item in tally.get("without") or []],
                skipped=[Skipped(s["name"], s["why"], s.get("snipeit_id"), s.get("parent"))
                         for s in tally.get("skipped", [])])
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
        notes = [*self.notes]
        for name, tally in self.kinds.items():
            others, groups = tally.grouped(name)
            notes += [f"{name}: {note}" for note in others]
            notes += [f"{name}: {without_line(name, group)}" for group in groups]
        if notes:
            lines.append("")
            lines.extend(f"Note: {note}" for note in notes)
        return "\n".join(lines) + "\n"


def without_line(kind: str, group: dict[str, Any]) -> str:
    """One line for a group of "imported without" notes: the note itself when it is alone (and was written by this
    run), else ``12,345 imported without <field> (<why>): ids 15, 17, 29 and 12,342 more``."""
    ids = group["ids"]
    if len(ids) == 1:
        return group["notes"][0] if group.get("notes") else f"{kind} {ids[0]} imported without {group['what']}: " \
            f"{group['why']}"
    shown = ", ".join(str(i) for i in ids[:FIRST_IDS])  # ids plain (a "5,953" in a list of ids reads as two)
    more = f" and {len(ids) - FIRST_IDS:,} more" if len(ids) > FIRST_IDS else ""
    return f"{len(ids):,} imported without {group['what']} ({group['why']}): ids {shown}{more}"
