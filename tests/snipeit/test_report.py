"""The closing report of a Snipe-IT import (issue 31): "imported without" notes grouped by (kind, field, reason) when
printed, every id kept in the stored report (what ``--verify`` reads), and a lone note printed as written."""

from __future__ import annotations

from inventory.snipeit.report import ImportReport

WHY = "Has Dock contains invalid options."


def report_with_notes() -> ImportReport:
    report = ImportReport()
    tally = report.tally("asset")
    tally.read = tally.imported = 1000
    tally.notes += [f'asset {n} "A-{n:06d}" imported without _snipeit_has_dock_7: {WHY}' for n in range(10, 1010)]
    tally.notes.append('asset 5 "A-5" imported without supplier_id: supplier 44 is not imported')
    tally.notes.append('asset 10 "A-000010" imported without _snipeit_has_dock_7: ' + WHY)  # said twice: once here
    tally.notes.append("checkouts: 3 imported, 0 skipped")
    return report


def test_repeated_notes_print_as_one_line_with_the_count_and_the_first_ids():
    text = report_with_notes().render()
    assert f"Note: asset: 1,000 imported without _snipeit_has_dock_7 ({WHY}): ids 10, 11, 12 and 997 more" in text
    assert 'Note: asset: asset 5 "A-5" imported without supplier_id: supplier 44 is not imported' in text
    assert "Note: asset: checkouts: 3 imported, 0 skipped" in text
    assert len(text.splitlines()) == 6  # header, a row, a blank line, three notes


def test_the_stored_report_keeps_every_id_and_prints_the_same():
    report = report_with_notes()
    stored = report.as_dict()
    kind = stored["kinds"][0]
    assert kind["notes"] == ["checkouts: 3 imported, 0 skipped"]
    groups = {group["what"]: group for group in kind["without"]}
    assert groups["_snipeit_has_dock_7"]["ids"] == list(range(10, 1010)) and groups["_snipeit_has_dock_7"]["why"] == WHY
    assert groups["supplier_id"]["ids"] == [5]
    assert ImportReport.from_dict(stored).render() == report.render()
    assert ImportReport.from_dict(stored).as_dict() == stored
