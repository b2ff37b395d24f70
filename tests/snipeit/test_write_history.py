"""Files and the action log of a Snipe-IT import (inventory.snipeit.write_history, issue 31): against the stand-in
through the real command, every log row of the data set is ours under its id with its original dates, actor, item,
target and note, or named in the report with why; every file is stored byte for byte and served by our API; a run
stopped inside the log and resumed equals an uninterrupted one; the token never reaches a log line.

The asset writer is another step: the tests compare with ``SnipeitRecord`` (what was imported), so they hold before
and after assets come over, and the files of assets are tested with assets made by factories and mapped by hand."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError

from activity.models import ActionLog, StoredFile
from activity.services import stored_file_open
from inventory.models import SnipeitImport, SnipeitRecord
from inventory.snipeit import write_history
from inventory.snipeit.client import SnipeitClient, SnipeitError
from inventory.snipeit.importer import write_kind
from inventory.snipeit.kinds import KINDS_BY_NAME, ReadContext
from inventory.snipeit.reading import read_kind
from inventory.snipeit.report import ImportReport
from inventory.snipeit.writing import reading_from
from tests.factories import AssetFactory, CompanyFactory, UserFactory
from tests.snipeit.conftest import SNIPEIT_TOKEN, run_import
from tests.snipeit.standin import SnipeitStandin
from tests.snipeit.test_resume import Stopped, state, wipe

pytestmark = pytest.mark.django_db

#: The data set's table of each log item type.
TABLES = {"asset": "hardware", "user": "users", "location": "locations", "accessory": "accessories",
          "consumable": "consumables", "component": "components", "license": "licenses"}


def aware(value: datetime | None) -> datetime | None:
    return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)




def maps() -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for kind, snipeit_id, our_id in SnipeitRecord.objects.values_list("kind", "snipeit_id", "our_id"):
        out.setdefault(kind, {})[snipeit_id] = our_id
    return out


def companies(item_type: str, cache: dict[str, dict[int, int | None]]) -> dict[int, int | None]:
    if item_type not in cache:
        model = apps.get_model(write_history.ITEM_KINDS[item_type][1])
        cache[item_type] = dict(model._base_manager.values_list("pk", "company_id"))
    return cache[item_type]


def expected_log(raw: dict[str, Any], mapped: dict[str, dict[int, int]], cache: dict) -> dict[str, Any] | None:
    """What our row of Snipe-IT's ``raw`` log row holds, or None when its item was not imported."""
    item_id = mapped.get(write_history.ITEM_KINDS[raw["item_type"]][0], {}).get(raw["item_id"])
    if item_id is None:
        return None
    target_id = mapped.get(write_history.ITEM_KINDS[raw["target_type"]][0], {}).get(raw["target_id"]) \
        if raw["target_id"] else None
    meta = raw["log_meta"]
    if raw["filename"]:
        file_id = mapped.get("file", {}).get(raw["id"])
        meta = {**(meta or {}), "filename": raw["filename"], **({"file_id": file_id} if file_id else {})}
    return {"action_type": raw["action_type"], "item_type": raw["item_type"], "item_id": item_id,
            "created_by_id": mapped.get("user", {}).get(raw["created_by"]),
            "target_type": raw["target_type"] if target_id else "", "target_id": target_id,
            "location_id": mapped.get("location", {}).get(raw["location_id"]), "note": raw["note"] or "",
            "log_meta": meta, "action_date": aware(raw["action_date"]), "created_at": aware(raw["created_at"]),
            "action_source": raw["action_source"], "remote_ip": raw["remote_ip"], "user_agent": raw["user_agent"],
            "company_id": companies(raw["item_type"], cache).get(item_id),
            "target_company_id": companies(raw["target_type"], cache).get(target_id) if target_id else None}


def test_every_log_row_and_file_comes_over_with_its_dates_actor_item_and_target(snipeit_standin, snipeit_dataset,
                                                                                  token, make_client):
    report = run_import(snipeit_standin.url)
    mapped = maps()
    log = {row["id"]: row for row in ActionLog.objects.values()}
    fields = None
    imported = 0
    cache: dict = {}
    for snipeit_id, raw in snipeit_dataset.raw["activity"].items():
        expected = expected_log(raw, mapped, cache)
        if expected is None:  # its item is not here: named in the report, never kept under an id it may not own
            assert snipeit_id not in mapped.get("action", {})
            assert f'action {snipeit_id} "{raw["action_type"]}": its {raw["item_type"]} {raw["item_id"]} was not ' \
                   "imported" in report
            continue
        fields = fields or list(expected)
        ours = log[mapped["action"][snipeit_id]]
        assert {name: ours[name] for name in fields} == expected, snipeit_id
        imported += 1
    assert imported == len(mapped["action"]) >= 3  # the users' uploads at least (assets may not be written yet)
    assert ActionLog.objects.count() == imported
    # Files: byte for byte, under their Snipe-IT ids, with their names and dates; downloadable by a super user.
    admin = make_client(UserFactory(username="local-admin", superuser=True))
    for (route, item_id, file_id), (filename, content) in snipeit_dataset.files.items():
        kind = "asset" if route == "hardware" else "user"
        if item_id not in mapped.get(kind, {}):
            assert f"file {file_id}: its {kind} {item_id} was not imported" in report
            continue
        stored = StoredFile.objects.get(pk=file_id)
        raw = snipeit_dataset.raw["activity"][file_id]
        assert (stored.item_type, stored.item_id, stored.filename, stored.size, stored.created_at) == (
            kind, mapped[kind][item_id], filename, len(content), aware(raw["created_at"]))
        assert stored.created_by_id == mapped["user"].get(raw["created_by"])
        with stored_file_open(stored) as handle:
            assert handle.read() == content
        table = "hardware" if kind == "asset" else "users"
        if snipeit_dataset.raw[table][item_id].get("deleted_at"):
            continue  # kept with its deleted record (restored, it is there again); the API serves live records' files
        response = admin.get(f"/api/v1/{route}/{mapped[kind][item_id]}/files/{file_id}")
        assert response.status_code == 200, response.content
        assert getattr(response, "streaming", False), (route, item_id, file_id, response.content)
        assert b"".join(response.streaming_content) == content
        if kind == "user":
            assert stored.company_id == snipeit_dataset.raw["users"][item_id]["company_id"]
    assert StoredFile.objects.count() == len(mapped["file"]) >= 3
    assert SnipeitImport.objects.get().state == SnipeitImport.State.FINISHED


def test_the_whole_log_with_assets_mapped_by_hand_in_batches(snipeit_standin, snipeit_dataset, token, run,
                                                             monkeypatch, django_assert_max_num_queries):
    """Every row of the data set, its assets made by factories where the asset writer has not made them: items,
    targets of each type and companies as ``log_action`` computes them, in a constant number of queries per batch."""
    run_import(snipeit_standin.url)
    mapped = maps()
    companies_here = mapped.get("company", {})
    for snipeit_id, asset in snipeit_dataset.raw["hardware"].items():
        if snipeit_id not in mapped.get("asset", {}):
            mapped_asset(snipeit_id, run, company_id=companies_here.get(asset["company_id"]),
                         asset_tag=asset["asset_tag"], deleted_at=aware(asset["deleted_at"]))
    SnipeitRecord.objects.filter(kind="action").delete()
    ActionLog.objects.all().delete()
    client = SnipeitClient(snipeit_standin.url, SNIPEIT_TOKEN)
    rows = [record for _raw, record in read_kind(client, KINDS_BY_NAME["action"], ReadContext(), ImportReport())]
    monkeypatch.setattr(write_history, "BATCH", 100)
    with django_assert_max_num_queries(len(rows) // 100 * 7 + 20):
        tally = write_kind(run=run, kind="action", rows=rows, report=ImportReport())
    assert (tally.imported, tally.skipped) == (len(snipeit_dataset.raw["activity"]), [])
    mapped, cache = maps(), {}
    log = {row["id"]: row for row in ActionLog.objects.values()}
    for snipeit_id, raw in snipeit_dataset.raw["activity"].items():
        expected = expected_log(raw, mapped, cache)
        assert {name: log[mapped["action"][snipeit_id]][name] for name in expected} == expected, snipeit_id
    kinds = {(row["target_type"], row["company_id"] is not None, row["target_company_id"] is not None)
             for row in log.values()}
    assert {("user", True, True), ("asset", True, True), ("location", True, False), ("", True, False),
            ("", False, False)} <= kinds


def test_a_run_killed_inside_the_log_and_resumed_equals_an_uninterrupted_run(snipeit_standin, token, monkeypatch):
    run_import(snipeit_standin.url)
    uninterrupted = state()
    wipe()
    monkeypatch.setattr(write_history, "BATCH", 1)
    real = write_history._write_batch
    calls = []

    def killed(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise Stopped  # stands for SIGKILL or Ctrl-C: nothing catches it, the batch's transaction rolls back
        return real(*args, **kwargs)

    monkeypatch.setattr(write_history, "_write_batch", killed)
    with pytest.raises(Stopped):
        run_import(snipeit_standin.url)
    assert SnipeitRecord.objects.filter(kind="action").count() == 1
    monkeypatch.setattr(write_history, "_write_batch", real)
    report = run_import(snipeit_standin.url, "--resume")
    assert state() == uninterrupted
    assert " 1 " in next(line for line in report.splitlines() if line.startswith("action"))  # one resumed
    with pytest.raises(CommandError, match="--merge"):
        run_import(snipeit_standin.url)


# --- files of assets, and hand-written rows ------------------------------------------------------------------------


@pytest.fixture
def run(db) -> SnipeitImport:
    return SnipeitImport.objects.create(source_url="http://snipe.test/api/v1", options={})


def mapped_asset(snipeit_id: int, run: SnipeitImport, **kwargs: Any) -> Any:
    asset = AssetFactory(pk=snipeit_id, **kwargs)
    SnipeitRecord.objects.create(run=run, kind="asset", snipeit_id=snipeit_id, our_id=asset.pk)
    return asset


def test_files_of_assets_are_stored_with_the_assets_company(snipeit_standin, snipeit_dataset, run):
    company = CompanyFactory()
    assets = {item_id for route, item_id, _ in snipeit_dataset.files if route == "hardware"}
    deleted = min(assets)
    for item_id in assets:
        mapped_asset(item_id, run, company=company,
                     deleted_at=datetime(2025, 1, 1, tzinfo=UTC) if item_id == deleted else None)
    client = SnipeitClient(snipeit_standin.url, SNIPEIT_TOKEN)
    report = ImportReport()
    rows = [record for _raw, record in read_kind(client, KINDS_BY_NAME["file"], ReadContext(), report)]
    with reading_from(client):
        tally = write_kind(run=run, kind="file", rows=rows, report=report)
    assert tally.imported == len(assets) and all("user" in s.why for s in tally.skipped)  # users are not mapped
    for (route, item_id, file_id), (filename, content) in snipeit_dataset.files.items():
        if route != "hardware":
            continue
        stored = StoredFile.objects.get(pk=file_id)
        assert (stored.item_type, stored.item_id, stored.company_id, stored.filename) == (
            "asset", item_id, company.pk, filename)
        assert stored.content_type == ("application/pdf" if filename.endswith(".pdf") else "image/jpeg")
        assert stored.note == "Receipt & photo"
        with stored_file_open(stored) as handle:
            assert handle.read() == content  # a deleted asset's files come too
    with reading_from(client):  # resumed: nothing twice
        again = write_kind(run=run, kind="file", rows=rows, report=ImportReport())
    assert again.resumed == len(assets) and again.imported == 0


def file_row(file_id: int, item_id: int, filename: str = "x.pdf", item_type: str = "asset") -> dict[str, Any]:
    return {"id": file_id, "item_type": item_type, "item_id": item_id, "filename": filename, "url": None,
            "note": "", "created_by_id": None, "created_at": datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)}


def test_a_file_that_is_gone_refused_or_not_attached_is_skipped_with_why(snipeit_standin, snipeit_dataset, run,
                                                                         snipeit_files_dir):
    (_, item_id, file_id), (filename, _) = next((key, value) for key, value in snipeit_dataset.files.items()
                                                if key[0] == "hardware" and value[0].endswith(".jpg"))
    mapped_asset(item_id, run)
    rows = [file_row(file_id, item_id, filename.replace(".jpg", ".pdf")),  # a JPEG named .pdf: our upload check
            file_row(9_999_001, item_id),  # Snipe-IT answers 404
            file_row(9_999_002, 424242),  # its asset was not imported
            file_row(9_999_003, item_id, item_type="predefinedKit")]
    with reading_from(SnipeitClient(snipeit_standin.url, SNIPEIT_TOKEN)):
        tally = write_kind(run=run, kind="file", rows=rows, report=ImportReport())
    assert [(s.snipeit_id, s.why) for s in tally.skipped] == [
        (file_id, f"file: The file {filename.replace('.jpg', '.pdf')} is not an allowed type, or its content does not "
                  "match its extension. Allowed types: avif, csv, doc, docx, gif, jpeg, jpg, json, lic, pdf, png, rar, "
                  "rtf, txt, webp, xls, xlsx, xml, zip."),
        (9_999_001, "Snipe-IT has no such file (404)"),
        (9_999_002, "its asset 424242 was not imported (purged in Snipe-IT, or skipped above)"),
        (9_999_003, "files of a predefinedKit are not kept by this service")]
    assert not StoredFile.objects.exists() and not SnipeitRecord.objects.filter(kind="file").exists()
    assert not [p for p in snipeit_files_dir.rglob("*") if p.is_file()]  # nothing left in the storage


def test_the_token_never_reaches_a_log_line_when_a_download_fails(snipeit_dataset, run, caplog, monkeypatch):
    (_, item_id, file_id), _ = next(iter(snipeit_dataset.files.items()))
    mapped_asset(item_id, run)
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN) as standin:
        real = standin.answer

        def failing(method: str, target: str, headers: Any) -> Any:
            if "/file/" in target:
                return 503, {}, f"down, token {headers.get('Authorization')}".encode(), "file"
            return real(method, target, headers)

        monkeypatch.setattr(standin, "answer", failing)
        client = SnipeitClient(standin.url, SNIPEIT_TOKEN, retries=1, sleep=lambda seconds: None)
        caplog.set_level(logging.DEBUG)
        with reading_from(client):
            tally = write_kind(run=run, kind="file", rows=[file_row(file_id, item_id)], report=ImportReport())
    assert tally.skipped[0].why.startswith("the download failed: GET /hardware/")
    assert "503" in tally.skipped[0].why
    assert SNIPEIT_TOKEN not in caplog.text and SNIPEIT_TOKEN not in tally.skipped[0].why
    assert "retrying" in caplog.text


def test_the_client_sends_the_token_only_to_its_own_host(snipeit_standin, snipeit_dataset):
    (route, item_id, file_id), (_, content) = next(iter(snipeit_dataset.files.items()))
    client = SnipeitClient(snipeit_standin.url, SNIPEIT_TOKEN)
    assert client.download(f"{snipeit_standin.url}/api/v1/{route}/{item_id}/file/{file_id}") == content
    for elsewhere in ("https://snipe.example.com/hardware/1/showfile/2", "http://127.0.0.1:1/api/v1/hardware/1/file/2",
                      f"https://{snipeit_standin.url.removeprefix('http://')}/api/v1/hardware/1/file/2"):
        with pytest.raises(SnipeitError, match="Refused to download") as refused:
            client.download(elsewhere)
        assert SNIPEIT_TOKEN not in str(refused.value)
    assert client.requests_sent == 1


def log_row(snipeit_id: int, **extra: Any) -> dict[str, Any]:
    when = datetime(2021, 2, 3, 4, 5, 6, tzinfo=UTC)
    return {"id": snipeit_id, "action_type": "checkout", "created_by_id": None, "item_type": "asset", "item_id": 7,
            "item_name": "Laptop", "item_serial": "SN1", "target_type": "", "target_id": None, "location_id": None,
            "note": "", "log_meta": None, "action_date": when, "action_source": "gui", "remote_ip": "10.0.0.5",
            "user_agent": "Mozilla/5.0", "filename": None, "created_at": when, **extra}


def test_hand_written_log_rows(run, django_assert_max_num_queries):
    """Companies as log_action computes them, losses noted, unknown types kept, a taken id moved, in few queries."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    mapped_asset(7, run, company=ours)
    person = UserFactory(company=theirs)
    SnipeitRecord.objects.create(run=run, kind="user", snipeit_id=55, our_id=person.pk)
    local = ActionLog.objects.create(action_type="create", item_type="user", item_id=person.pk,
                                     action_date=datetime(2026, 1, 1, tzinfo=UTC))
    rows = [log_row(local.pk, target_type="user", target_id=55, created_by_id=55),  # its id is taken here
            log_row(900_001, target_type="user", target_id=56, created_by_id=56, location_id=3),  # none imported
            log_row(900_002, action_type="merged", note="Merged from old asset"),  # not one of ours: kept
            log_row(900_003, action_type="x" * 40),
            log_row(900_004, item_type="license", item_id=7)]  # a license that is not here
    with django_assert_max_num_queries(30):
        tally = write_kind(run=run, kind="action", rows=rows, report=ImportReport())
    assert tally.imported == 3
    assert [s.snipeit_id for s in tally.skipped] == [900_003, 900_004]
    assert sorted(tally.notes) == sorted([
        "1 rows keep no actor: their user was not imported", "1 rows keep no target: it was not imported (user: 1)",
        "1 rows keep no location: it was not imported",
        "kept with action types this service does not write itself: 'merged' (1)",
        "1 rows are kept under new ids: their Snipe-IT ids were taken here"])
    moved = SnipeitRecord.objects.get(kind="action", snipeit_id=local.pk).our_id
    assert moved > 900_002
    row = ActionLog.objects.get(pk=moved)
    assert (row.company_id, row.target_company_id, row.target_id, row.created_by_id, row.item_serial) == (
        ours.pk, theirs.pk, person.pk, person.pk, "SN1")
    assert row.created_at == row.action_date == datetime(2021, 2, 3, 4, 5, 6, tzinfo=UTC)
    lost = ActionLog.objects.get(pk=900_001)
    assert (lost.target_type, lost.target_id, lost.created_by_id, lost.location_id, lost.company_id) == (
        "", None, None, None, ours.pk)
    assert ActionLog.objects.get(pk=900_002).action_type == "merged"
