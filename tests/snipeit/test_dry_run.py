"""``manage.py import_snipeit --dry-run`` against a small fake Snipe-IT (every kind the importer reads, in
Snipe-IT's shapes): it reads everything, counts per kind what it would import, names each record it would skip and
why, never shows the token, and the writing options say they are not there yet (issue 31)."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from pytest_httpserver import HTTPServer

from inventory.snipeit import kinds
from inventory.snipeit.client import SnipeitClient
from inventory.snipeit.kinds import KINDS, Kind, ReadContext, SubList
from inventory.snipeit.reading import read_kind
from inventory.snipeit.report import ImportReport
from tests.snipeit.fakes import TOKEN, FakeSnipeit


def dt(value: str) -> dict:
    return {"datetime": value, "formatted": value}


def day(value: str) -> dict:
    return {"date": value, "formatted": value}


STAMPS = {"created_at": dt("2023-01-02 03:04:05"), "updated_at": dt("2023-02-03 04:05:06")}
ADMIN = {"id": 1, "name": "Ada Admin"}


def snipeit_data() -> dict[str, list[dict]]:
    """One or two rows per route, as Snipe-IT's transformers render them (escaped strings, date objects)."""
    return {
        "companies": [{"id": 3, "name": "O&#039;Neil &amp; Sons", "phone": None, "fax": None, "email": None,
                       "notes": None, "created_by": ADMIN, **STAMPS}],
        "locations": [{"id": 5, "name": "HQ", "parent": None, "manager": None, "company": None, "address": None,
                       "currency": "EUR", **STAMPS},
                      {"id": 9, "name": "Floor &lt;2&gt;", "parent": {"id": 5, "name": "HQ"},
                       "manager": {"id": 1, "username": "ada"}, "company": {"id": 3, "name": "x"}, **STAMPS}],
        "departments": [{"id": 2, "name": "IT", "company": {"id": 3, "name": "x"}, "location": {"id": 5, "name": "HQ"},
                         "manager": {"id": 1, "name": "Ada"}, "users_count": "1", **STAMPS}],
        "manufacturers": [{"id": 4, "name": "Apple", "url": "https://apple.example", "deleted_at": None, **STAMPS}],
        "suppliers": [{"id": 6, "name": "Shop", "email": "s@example.com", **STAMPS}],
        "categories": [{"id": 7, "name": "Laptops", "category_type": "Asset", "has_eula": True,
                        "use_default_eula": False, "eula": "<p>Be <strong>nice</strong></p>",
                        "require_acceptance": True, "checkin_email": False, **STAMPS},
                       {"id": 8, "name": "Cables", "category_type": "Accessory", **STAMPS},
                       {"id": 10, "name": "Paper", "category_type": "Consumable", **STAMPS},
                       {"id": 11, "name": "RAM", "category_type": "Component", **STAMPS},
                       {"id": 12, "name": "Office", "category_type": "License", **STAMPS},
                       {"id": 13, "name": "Broken", "category_type": "Gadget", **STAMPS}],
        "statuslabels": [{"id": 1, "name": "Ready", "type": "deployable", "color": "#00ff00", **STAMPS},
                         {"id": 2, "name": "Old", "type": "archived", **STAMPS}],
        "depreciations": [{"id": 1, "name": "3 years", "months": "36 months", "depreciation_min": "10%", **STAMPS}],
        "fields": [{"id": 1, "name": "MAC Address", "db_column_name": "_snipeit_mac_address_1", "format": "MAC",
                    "type": "text", **STAMPS}],
        "fieldsets": [{"id": 1, "name": "Laptops", "fields": {"total": 1, "rows": [
            {"id": 1, "name": "MAC Address", "required": True}]}, **STAMPS}],
        "models": [{"id": 21, "name": "MacBook", "manufacturer": {"id": 4, "name": "Apple"},
                    "category": {"id": 7, "name": "Laptops"}, "fieldset": {"id": 1, "name": "Laptops"},
                    "eol": "36 months", "requestable": False, "deleted_at": None, **STAMPS}],
        "groups": [{"id": 1, "name": "Admins", "permissions": {"superuser": "1", "admin": "0"}, **STAMPS}],
        "users": [{"id": 1, "username": "ada", "first_name": "Ada", "last_name": "Admin", "activated": True,
                   "groups": {"total": 1, "rows": [{"id": 1, "name": "Admins"}]}, "permissions": {},
                   "deleted_at": None, **STAMPS},
                  {"id": 4, "username": "bob", "first_name": "Bob", "activated": False, "groups": None,
                   "manager": {"id": 1, "name": "Ada"}, "employee_num": "E4", **STAMPS}],
        "hardware": [{"id": 101, "asset_tag": "MBP-1", "name": "Ada&#039;s laptop", "model": {"id": 21, "name": "m"},
                      "status_label": {"id": 1, "name": "Ready"}, "purchase_cost": "1,299.00",
                      "purchase_date": day("2023-01-01"), "warranty_months": "24 months",
                      "assigned_to": {"id": 1, "username": "ada", "type": "user"},
                      "expected_checkin": day("2024-12-31"), "last_audit_date": dt("2024-01-01 09:00:00"),
                      "next_audit_date": day("2025-01-01"),
                      "custom_fields": {"MAC Address": {"field": "_snipeit_mac_address_1", "value": "00:11:22:33:44:55",
                                                        "field_format": "MAC", "element": "text"}},
                      "deleted_at": None, **STAMPS},
                     {"id": 103, "asset_tag": "BAD-1", "model": {"id": 21, "name": "m"},
                      "status_label": {"id": 1, "name": "Ready"}, "purchase_date": day("2023-02-30"),
                      "custom_fields": {}, **STAMPS}],
        "accessories": [{"id": 31, "name": "USB-C cable", "category": {"id": 8, "name": "Cables"}, "qty": 10,
                         **STAMPS}],
        "accessories/31/checkedout": [{"id": 1, "assigned_to": {"id": 4, "type": "user"}, "note": None, **STAMPS},
                                      {"id": 2, "assigned_to": {"id": 9, "type": "location"}, **STAMPS}],
        "consumables": [{"id": 41, "name": "A4 paper", "category": {"id": 10, "name": "Paper"}, "qty": 100,
                         "item_no": "P-1", **STAMPS}],
        "consumables/41/users": [{"name": '<a href="https://snipe.example/users/4">Bob</a>',
                                  "created_at": dt("2024-03-03 10:00:00"), "note": None}],
        "components": [{"id": 51, "name": "16GB RAM", "category": {"id": 11, "name": "RAM"}, "qty": 5, **STAMPS}],
        "components/51/assets": [{"assigned_pivot_id": 3, "id": 101, "name": "MBP-1", "qty": 2, "note": "",
                                  "created_at": "2024-01-01"}],
        "licenses": [{"id": 61, "name": "Office 365", "product_key": "KEY-&lt;1&gt;", "seats": 2,
                      "category": {"id": 12, "name": "Office"}, "purchase_cost": "99.00",
                      "purchase_cost_numeric": "99.00", "reassignable": True, "deleted_at": None, **STAMPS}],
        "licenses/61/seats": [{"id": 71, "license_id": 61, "assigned_user": {"id": 4, "name": "Bob"},
                               "assigned_asset": None},
                              {"id": 72, "license_id": 61, "assigned_user": None,
                               "assigned_asset": {"id": 101, "name": "MBP-1"}}],
        "maintenances": [{"id": 81, "asset": {"id": 101, "asset_tag": "MBP-1"}, "title": "Battery",
                          "asset_maintenance_type": "Repair", "start_date": day("2024-04-01"), "cost": "80.00",
                          "is_warranty": 1, **STAMPS}],
        "kits": [{"id": 91, "name": "New starter", **STAMPS}],
        "kits/91/models": [{"id": 21, "pivot_id": 1, "owner_id": 91, "quantity": 1, "name": "MacBook"}],
        "kits/91/licenses": [{"id": 61, "pivot_id": 2, "owner_id": 91, "quantity": 1, "name": "Office"}],
        "kits/91/consumables": [],
        "kits/91/accessories": [{"id": 31, "pivot_id": 4, "owner_id": 91, "quantity": 2, "name": "cable"}],
        "reports/activity": [{"id": n, "action_type": "checkout" if n % 2 else "create new",
                              "item": {"id": 101, "name": "MBP-1", "type": "asset"},
                              "target": {"id": 1, "name": "Ada", "type": "user"}, "created_by": ADMIN,
                              "note": "handed &amp; signed", "action_date": dt("2024-01-01 10:00:00"), **STAMPS}
                             for n in range(1, 26)] + [
            {"id": 26, "action_type": "uploaded", "item": {"id": 101, "name": "MBP-1", "type": "asset"},
             "file": {"url": "https://snipe.example/api/v1/hardware/101/files/26", "filename": "receipt.pdf"},
             "note": "the bill", "created_by": ADMIN, **STAMPS},
            {"id": 27, "action_type": "uploaded", "item": {"id": 4, "name": "Bob", "type": "user"},
             "file": {"url": "https://snipe.example/x", "filename": "contract.pdf"}, **STAMPS},
            {"id": 28, "action_type": "uploaded", "item": {"id": 4, "name": "Bob", "type": "user"}, "file": None,
             **STAMPS}],
    }


@pytest.fixture
def snipeit():
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    fake = FakeSnipeit(server)
    fake.lists.update(snipeit_data())
    fake.ignore_paging.add("consumables/41/users")
    fake.filters["reports/activity"] = {"action_type"}
    deleted = {"id": 102, "asset_tag": "GONE-1", "model": {"id": 21, "name": "m"},
               "status_label": {"id": 2, "name": "Old"}, "deleted_at": dt("2024-06-01 00:00:00"), **STAMPS}
    live = fake.lists["hardware"]
    original = fake.handle

    def handle(request):
        # status=Deleted lists only deleted assets; Archived and the default list share the live ones here.
        fake.lists["hardware"] = [deleted] if request.args.get("status") == "Deleted" else live
        return original(request)

    server.clear()
    server.expect_request(re.compile(r"/api/v1/.*")).respond_with_handler(handle)
    yield fake
    server.clear()
    server.stop()


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return str(path)


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_snipeit", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def counts(report: str) -> dict[str, tuple[int, int, int]]:
    found = {}
    for line in report.splitlines():
        match = re.fullmatch(r"(\S+)\s+(\d+)\s+(\d+)\s+(\d+)", line)
        if match:
            found[match.group(1)] = tuple(int(n) for n in match.groups()[1:])
    return found


def test_dry_run_reads_every_kind_and_reports(snipeit, token_file):
    out, err = run("--url", snipeit.url, "--token-file", token_file, "--dry-run")
    table = counts(out)
    assert table["company"] == (1, 1, 0)
    assert table["location"] == (2, 2, 0)
    assert table["category"] == (6, 5, 1)
    assert table["user"] == (2, 2, 0)
    assert table["asset"] == (3, 2, 1)  # live, deleted, and one unreadable
    assert table["file"] == (3, 2, 1)
    assert table["accessory.checkouts"] == (2, 2, 0)
    assert table["consumable.assignments"] == (1, 1, 0)
    assert table["component.assignments"] == (1, 1, 0)
    assert table["license.seats"] == (2, 2, 0)
    assert table["kit.models"] == (1, 1, 0)
    assert table["kit.accessories"] == (1, 1, 0)
    assert table["action"] == (28, 28, 0)
    assert {kind.name for kind in KINDS} <= set(table)
    assert 'asset 103 "BAD-1": not a date' in out
    assert "file 28: an upload without a file name" in out
    assert "unknown category type 'gadget'" in out
    assert "would import" in out
    assert re.search(r"^\d+ requests to Snipe-IT\.$", out, re.M)
    assert "read action 28/28 rows" in err  # progress lines when stderr is not a terminal
    assert TOKEN not in out + err
    writes = [route for route, _ in snipeit.requests]
    assert "hardware" in writes and "reports/activity" in writes


def test_dry_run_takes_the_token_from_the_environment(snipeit, monkeypatch):
    monkeypatch.setenv("SNIPEIT_TOKEN", TOKEN)
    out, _ = run("--url", snipeit.url, "--dry-run")
    assert counts(out)["company"] == (1, 1, 0)


def test_an_optional_sub_list_snipe_it_lacks_is_a_note(snipeit):
    kind = Kind("asset", "hardware", kinds.read_asset, variants=({"status": "Deleted"}, {}), sublists=(
        SubList("files", "hardware/{id}/files", lambda row, parent, ctx: row, optional=True),))
    report = ImportReport()
    records = [record for _, record in read_kind(SnipeitClient(snipeit.url, TOKEN), kind, ReadContext(), report)]
    assert [record["files"] for record in records] == [[], []]
    assert report.notes == ["asset.files: Snipe-IT answered 404 for hardware/{id}/files; this version lacks the "
                            "route, left out"]
    # asked once, not once per asset
    assert sum(1 for route, _ in snipeit.requests if route.endswith("/files")) == 1


def test_ctrl_c_prints_what_was_read(snipeit, token_file, monkeypatch):
    from inventory.snipeit import reading

    real = reading.read_kind

    def interrupted(client, kind, *args, **kwargs):
        if kind.name == "asset":
            raise KeyboardInterrupt
        yield from real(client, kind, *args, **kwargs)

    monkeypatch.setattr(reading, "read_kind", interrupted)
    out = io.StringIO()
    with pytest.raises(CommandError, match="Interrupted"):
        call_command("import_snipeit", "--url", snipeit.url, "--token-file", token_file, "--dry-run", stdout=out,
                     stderr=io.StringIO())
    table = counts(out.getvalue())
    assert table["user"] == (2, 2, 0) and table["asset"] == (0, 0, 0) and "accessory" not in table


def test_a_refused_token_is_a_clear_error(snipeit, tmp_path):
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token")
    with pytest.raises(CommandError, match="refused the token") as caught:
        run("--url", snipeit.url, "--token-file", str(wrong), "--dry-run")
    assert "not-the-token" not in str(caught.value)


@pytest.mark.parametrize("option", ["--dry-run", "--resume", "--merge"])
def test_verify_compares_only(snipeit, token_file, option):
    # --verify reads and compares (tests/snipeit/test_verify.py): refused with a mode that writes, or --dry-run.
    with pytest.raises(CommandError, match="--verify compares only"):
        run("--url", snipeit.url, "--token-file", token_file, "--verify", option)


@pytest.mark.parametrize(("args", "message"), [
    ([], "SNIPEIT_TOKEN"),
    (["--token-file", "/nonexistent/token"], "Cannot read --token-file"),
    (["--timezone", "Mars/Olympus", "--token-file", "{token}"], "Unknown time zone"),
    (["--rate", "0", "--token-file", "{token}"], "--rate must be"),
])
def test_bad_arguments(snipeit, token_file, monkeypatch, args, message):
    monkeypatch.delenv("SNIPEIT_TOKEN", raising=False)
    args = [arg.replace("{token}", token_file) for arg in args]
    with pytest.raises(CommandError, match=message):
        run("--url", snipeit.url, "--dry-run", *args)


def test_readers_give_our_field_names(snipeit):
    client = SnipeitClient(snipeit.url, TOKEN)
    report = ImportReport()
    by_name = {kind.name: kind for kind in KINDS}
    ctx = ReadContext(timezone="Europe/Berlin")
    assets = {record["id"]: record for _, record in read_kind(client, by_name["asset"], ctx, report)}
    laptop = assets[101]
    assert laptop["name"] == "Ada's laptop"
    assert laptop["assigned_user_id"] == 1 and laptop["assigned_asset_id"] is None
    assert str(laptop["purchase_cost"]) == "1299.00"
    assert laptop["warranty_months"] == 24
    assert laptop["last_audit_date"].isoformat() == "2024-01-01T09:00:00+01:00"
    assert laptop["custom_values"] == {"_snipeit_mac_address_1": "00:11:22:33:44:55"}
    assert assets[102]["deleted_at"] is not None
    company = next(record for _, record in read_kind(client, by_name["company"], ctx, report))
    assert company["name"] == "O'Neil & Sons"
    seats = next(record for _, record in read_kind(client, by_name["license"], ctx, report))["seats"]
    assert [(s["assigned_user_id"], s["assigned_asset_id"]) for s in seats] == [(4, None), (None, 101)]
    user = {record["id"]: record for _, record in read_kind(client, by_name["user"], ctx, report)}
    assert user[1]["group_ids"] == [1] and user[4]["is_active"] is False and user[4]["manager_id"] == 1
    files = [record for _, record in read_kind(client, by_name["file"], ctx, report)]
    assert [(f["id"], f["item_type"], f["item_id"], f["filename"]) for f in files] == [
        (26, "asset", 101, "receipt.pdf"), (27, "user", 4, "contract.pdf")]
    assert files[0]["note"] == "the bill"
    action = next(record for _, record in read_kind(client, by_name["action"], ctx, report))
    assert action["action_type"] == "checkout" and action["note"] == "handed & signed"
