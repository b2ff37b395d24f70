"""The Snipe-IT stand-in answers like Snipe-IT v8.1.4: shapes of its transformers, paging, 401, 429, drift.

Expected key lists are copied from `app/Http/Transformers/*.php` (commit 5aa5c480, v8.1.4), in their order.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.snipeit.conftest import SNIPEIT_TOKEN
from tests.snipeit.dataset import generate
from tests.snipeit.standin import SnipeitStandin

ASSET_KEYS = [
    "id", "name", "asset_tag", "serial", "model", "byod", "requestable", "model_number", "eol", "asset_eol_date",
    "status_label", "category", "manufacturer", "supplier", "notes", "order_number", "company", "location",
    "rtd_location", "image", "qr", "alt_barcode", "assigned_to", "warranty_months", "warranty_expires", "created_by",
    "created_at", "updated_at", "last_audit_date", "next_audit_date", "deleted_at", "purchase_date", "age",
    "last_checkout", "last_checkin", "expected_checkin", "purchase_cost", "checkin_counter", "checkout_counter",
    "requests_counter", "user_can_checkout", "book_value", "custom_fields", "available_actions",
]
USER_KEYS = [
    "id", "avatar", "name", "first_name", "last_name", "username", "remote", "locale", "employee_num", "manager",
    "jobtitle", "vip", "phone", "website", "address", "city", "state", "country", "zip", "email", "department",
    "location", "notes", "permissions", "activated", "autoassign_licenses", "ldap_import", "two_factor_enrolled",
    "two_factor_optin", "assets_count", "licenses_count", "accessories_count", "consumables_count",
    "manages_users_count", "manages_locations_count", "company", "created_by", "created_at", "updated_at",
    "start_date", "end_date", "last_login", "deleted_at", "available_actions", "groups",
]
FIELD_KEYS = [
    "id", "name", "db_column_name", "format", "field_values", "field_values_array", "type", "required",
    "display_in_user_view", "auto_add_to_fieldsets", "show_in_listview", "display_checkin", "display_checkout",
    "display_audit", "created_at", "updated_at",
]
SEAT_KEYS = [
    "id", "license_id", "updated_at", "assigned_user", "assigned_asset", "location", "reassignable", "notes",
    "user_can_checkout", "available_actions",
]


def get(standin: SnipeitStandin, path: str, token: str | None = SNIPEIT_TOKEN) -> tuple[int, dict[str, str], Any]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(standin.url + path, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            status, head, body = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, head, body = error.code, dict(error.headers), error.read()
    is_json = head.get("Content-Type", "").startswith("application/json")
    return status, head, json.loads(body) if is_json else body


def read_all(standin: SnipeitStandin, route: str, limit: int = 50, sort: str = "id", order: str = "asc") -> list:
    rows, offset = [], 0
    while True:
        sep = "&" if "?" in route else "?"
        _, _, page = get(standin, f"{route}{sep}limit={limit}&offset={offset}&sort={sort}&order={order}")
        rows += page["rows"]
        offset += limit
        if offset >= page["total"]:
            return rows


# -- the data set --------------------------------------------------------------------------------------------


def test_dataset_is_deterministic_per_seed():
    assert generate(seed=3, assets=30, log_rows=100).rows == generate(seed=3, assets=30, log_rows=100).rows
    assert generate(seed=4, assets=30, log_rows=100).rows != generate(seed=3, assets=30, log_rows=100).rows


def test_ids_have_gaps_and_start_odd(snipeit_dataset):
    for kind in ("companies", "users", "hardware", "activity"):
        ids = sorted(snipeit_dataset.rows[kind])
        assert ids[0] % 2 == 1, kind
        assert ids[-1] - ids[0] + 1 > len(ids), f"{kind} ids are consecutive"


def test_dataset_holds_every_case_the_importer_must_handle(snipeit_dataset):
    ds = snipeit_dataset
    assets = ds.raw["hardware"].values()
    assert {a["assigned_type"] for a in assets} == {None, "user", "asset", "location"}
    assert any(a["deleted_at"] for a in assets)
    assert any(a["expected_checkin"] for a in assets) and any(a["next_audit_date"] for a in assets)
    assert {s["type"] for s in ds.raw["statuslabels"].values()} == {"deployable", "pending", "archived", "undeployable"}
    assert {c["category_type"] for c in ds.raw["categories"].values()} == {"asset", "accessory", "consumable",
                                                                          "component", "license"}
    fields = ds.raw["fields"].values()
    assert any(f["field_encrypted"] for f in fields) and any(f["is_unique"] for f in fields)
    assert any(f["required"] for f in fields)
    assert any(loc["parent_id"] for loc in ds.raw["locations"].values())
    assert any(u["manager_id"] for u in ds.raw["users"].values())
    assert any(not u["activated"] for u in ds.raw["users"].values())
    assert any(len(u["group_ids"]) > 1 for u in ds.raw["users"].values())
    seats = ds.raw["license_seats"].values()
    assert any(s["assigned_to"] for s in seats) and any(s["asset_id"] for s in seats)
    assert {c["assigned_type"] for c in ds.raw["accessory_checkouts"].values()} == {"user", "location", "asset"}
    assert ds.raw["components_assets"] and ds.raw["consumable_assignments"] and ds.raw["maintenances"]
    kit_lists = {name for (kind, _, name) in ds.sub if kind == "kits"}
    assert kit_lists >= {"models", "licenses", "consumables", "accessories"}
    assert {kind for kind, _, _ in ds.files} == {"hardware", "users"}
    assert len(ds.rows["activity"]) >= 1000
    assert {r["action_type"] for r in ds.rows["activity"].values()} >= {"checkout", "checkin from", "audit",
                                                                       "update", "create new", "uploaded"}


# -- shapes ---------------------------------------------------------------------------------------------------


def test_asset_shape_escaping_dates_and_custom_fields_by_label(snipeit_standin, snipeit_dataset):
    raw = snipeit_dataset.raw
    owners_note = next(f["db_column"] for f in raw["fields"].values() if f["name"] == "Owner's Note")
    asset = next(a for a in raw["hardware"].values() if a["name"] and '"' in a["name"] and owners_note in a["custom"])
    status, _, body = get(snipeit_standin, f"/api/v1/hardware/{asset['id']}")
    assert status == 200
    assert list(body) == ASSET_KEYS
    assert body["name"] == asset["name"].replace('"', "&quot;")
    assert body["rtd_location"]["name"].count("&#039;") == raw["locations"][asset["rtd_location_id"]]["name"].count("'")
    assert body["created_at"]["datetime"] == asset["created_at"].strftime("%Y-%m-%d %H:%M:%S")
    assert body["created_at"]["formatted"] == asset["created_at"].strftime("%Y-%m-%d %I:%M %p")
    fields = {f["db_column"]: f for f in raw["fields"].values()}
    labels = {fields[c]["name"] for c in asset["custom"]}
    assert set(body["custom_fields"]) == labels  # keyed by the label, unescaped ("Owner's Note")
    note = body["custom_fields"]["Owner's Note"]
    assert note["field"].startswith("_snipeit_owners_note_") and note["element"] == "textarea"
    url = body["custom_fields"]["Asset URL"]
    assert url["value"].endswith("?x=1&amp;y=2") and url["field_format"] == "URL"
    when = body["custom_fields"]["Warranty Start"]
    assert when["value"] == asset["custom"][when["field"]]  # DATE values in the display format (Y-m-d)
    secret = next(f for f in fields.values() if f["field_encrypted"])
    assert body["custom_fields"][secret["name"]]["value"] == asset["custom"][secret["db_column"]]  # a super user


def test_checkouts_of_each_kind_render_as_snipeit_does(snipeit_standin, snipeit_dataset):
    rows = snipeit_dataset.rows["hardware"]
    by_type = {r["assigned_to"]["type"]: r for r in rows.values() if r["assigned_to"]}
    assert list(by_type["user"]["assigned_to"]) == ["id", "username", "name", "first_name", "last_name", "email",
                                                   "employee_number", "type"]
    assert list(by_type["asset"]["assigned_to"]) == ["id", "name", "type"]
    assert by_type["location"]["status_label"]["status_meta"] == "deployed"
    _, _, body = get(snipeit_standin, f"/api/v1/hardware/{by_type['asset']['id']}")
    assert " - " in body["assigned_to"]["name"]  # "<name> (<tag>) - <model>"


def test_user_field_and_seat_shapes(snipeit_standin, snipeit_dataset):
    _, _, me = get(snipeit_standin, "/api/v1/users/me")
    assert list(me) == USER_KEYS and me["permissions"] == {"superuser": "1"}
    assert me["id"] == snipeit_dataset.superuser_id and me["assets_count"] == 0  # Snipe-IT loads no counts here
    _, _, fields = get(snipeit_standin, "/api/v1/fields")
    assert all(list(f) == FIELD_KEYS for f in fields["rows"])
    assert "field_encrypted" not in fields["rows"][0]  # Snipe-IT's API never shows the flag
    license_id = next(iter(snipeit_dataset.rows["licenses"]))
    _, _, seats = get(snipeit_standin, f"/api/v1/licenses/{license_id}/seats")
    assert seats["total"] == snipeit_dataset.raw["licenses"][license_id]["seats"]
    assert all(list(s) == SEAT_KEYS for s in seats["rows"])
    stamps = [s["updated_at"]["datetime"] for s in seats["rows"]]
    assert stamps == sorted(stamps, reverse=True)  # seats sort by updated_at only, whatever `sort` says
    _, _, past_end = get(snipeit_standin, f"/api/v1/licenses/{license_id}/seats?offset={seats['total']}")
    assert past_end["rows"] == seats["rows"]  # Snipe-IT starts again at 0: stop on `total`, not on an empty page


def test_sub_lists_and_files(snipeit_standin, snipeit_dataset):
    ds = snipeit_dataset
    acc = next(i for i in ds.rows["accessories"] if ds.sub[("accessories", i, "checkedout")])
    _, _, outs = get(snipeit_standin, f"/api/v1/accessories/{acc}/checkedout")
    assert outs["total"] == ds.rows["accessories"][acc]["checkouts_count"]
    con = next(iter(ds.rows["consumables"]))
    _, _, users = get(snipeit_standin, f"/api/v1/consumables/{con}/users")
    assert users["rows"][0]["name"].startswith('<a href="https://snipe.example.com/users/')
    comp = next(iter(ds.rows["components"]))
    _, _, installed = get(snipeit_standin, f"/api/v1/components/{comp}/assets")
    assert installed["rows"][0]["type"] == "asset" and "assigned_pivot_id" in installed["rows"][0]
    kit = next(iter(ds.rows["kits"]))
    for element in ("models", "licenses", "consumables", "accessories"):
        _, _, rows = get(snipeit_standin, f"/api/v1/kits/{kit}/{element}")
        assert rows["rows"] and set(rows["rows"][0]) >= {"id", "pivot_id", "owner_id", "quantity", "name"}
    (kind, item, file_id), (filename, content) = next(iter(ds.files.items()))
    _, _, listing = get(snipeit_standin, f"/api/v1/{kind}/{item}/files")
    assert file_id in [f["id"] for f in listing["rows"]]
    status, head, body = get(snipeit_standin, f"/api/v1/{kind}/{item}/file/{file_id}")
    assert status == 200 and body == content and filename in head["Content-Disposition"]
    assert get(snipeit_standin, f"/api/v1/{kind}/{item}/file/999999")[0] == 404


# -- paging, filters, errors ------------------------------------------------------------------------------------


def test_paging_by_id_reads_every_listed_record_once(snipeit_standin, snipeit_dataset):
    users = snipeit_dataset.rows["users"]
    rows = read_all(snipeit_standin, "/api/v1/users", limit=7)
    assert [r["id"] for r in rows] == sorted(i for i, u in users.items() if not u["deleted_at"])
    deleted = read_all(snipeit_standin, "/api/v1/users?deleted=true", limit=7)
    assert deleted and all(r["deleted_at"] for r in deleted)
    actors = {r["created_by"]["id"] for r in snipeit_dataset.rows["activity"].values() if r["created_by"]}
    assert actors & {r["id"] for r in deleted}  # the log names people the user list no longer shows
    log = read_all(snipeit_standin, "/api/v1/reports/activity", limit=500)
    assert len(log) == len(snipeit_dataset.rows["activity"])


def test_limit_is_capped_and_offset_clamped_like_snipeit(snipeit_dataset):
    with SnipeitStandin(snipeit_dataset, token="t", max_results=20) as standin:
        _, _, page = get(standin, "/api/v1/users?limit=1000", token="t")
        assert len(page["rows"]) == 20 and page["total"] == len(snipeit_dataset.rows["users"]) - 2  # 2 deleted
        _, _, page = get(standin, "/api/v1/users?limit=abc", token="t")
        assert len(page["rows"]) == 20
        _, _, page = get(standin, "/api/v1/users?offset=100000", token="t")
        assert page["rows"] == [] and page["total"] == len(snipeit_dataset.rows["users"]) - 2


def test_default_sort_is_created_at_descending(snipeit_standin, snipeit_dataset):
    _, _, page = get(snipeit_standin, "/api/v1/companies")
    stamps = [r["created_at"]["datetime"] for r in page["rows"]]
    assert stamps == sorted(stamps, reverse=True)


def test_hardware_hides_deleted_and_archived_unless_asked(snipeit_standin, snipeit_dataset):
    rows = snipeit_dataset.rows["hardware"]
    listed = {r["id"] for r in read_all(snipeit_standin, "/api/v1/hardware", limit=500)}
    deleted = {i for i, r in rows.items() if r["deleted_at"]}
    archived = {i for i, r in rows.items() if r["status_label"]["status_type"] == "archived" and not r["deleted_at"]}
    assert deleted and archived
    assert listed == set(rows) - deleted - archived
    assert {r["id"] for r in read_all(snipeit_standin, "/api/v1/hardware?status=Deleted", limit=500)} == deleted
    assert {r["id"] for r in read_all(snipeit_standin, "/api/v1/hardware?status=Archived", limit=500)} == archived
    _, _, shown = get(snipeit_standin, f"/api/v1/hardware/{min(deleted)}")  # show includes deleted ones
    assert shown["deleted_at"] is not None


def test_not_found_unknown_route_and_other_verbs(snipeit_standin):
    status, _, body = get(snipeit_standin, "/api/v1/hardware/999999")
    assert (status, body) == (200, {"status": "error", "messages": "Asset does not exist.", "payload": None})
    status, _, body = get(snipeit_standin, "/api/v1/companies/999999")
    assert body["messages"] == "Company not found"
    status, _, body = get(snipeit_standin, "/api/v1/nothing-here")
    assert status == 404 and body["message"].startswith("404 endpoint not found")
    request = urllib.request.Request(snipeit_standin.url + "/api/v1/hardware", method="POST", data=b"{}")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request)
    assert error.value.code == 405


def test_missing_or_wrong_token_is_401(snipeit_standin):
    for token in (None, "wrong"):
        status, _, body = get(snipeit_standin, "/api/v1/hardware", token=token)
        assert (status, body) == (401, {"error": "Unauthorized or unauthenticated."})


def test_every_nth_request_is_rate_limited(snipeit_dataset):
    with SnipeitStandin(snipeit_dataset, token="t", rate_limit_every=3, retry_after=2) as standin:
        answers = [get(standin, "/api/v1/companies", token="t") for _ in range(6)]
        assert [a[0] for a in answers] == [200, 200, 429, 200, 200, 429]
        assert answers[2][1]["Retry-After"] == "2"
        assert answers[2][2] == {"status": "error", "messages": "Too many requests", "payload": None}
        assert get(standin, "/api/v1/companies", token="bad")[0] == 401  # auth first, not counted
    with SnipeitStandin(snipeit_dataset, token="t", rate_limit_every=1, retry_after=None) as standin:
        status, head, _ = get(standin, "/api/v1/companies", token="t")
        assert status == 429 and "Retry-After" not in head  # what a real Snipe-IT sends


def test_drift_shifts_offset_pages_but_not_id_pages(snipeit_dataset):
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN, drift=True) as standin:
        before = len(snipeit_dataset.rows["users"])
        by_date = read_all(standin, "/api/v1/users", limit=10, sort="created_at", order="desc")
        ids = [r["id"] for r in by_date]
        assert len(ids) != len(set(ids))  # a record seen twice: the new one pushed it to the next page
        assert standin.drifted["users"]
    with SnipeitStandin(snipeit_dataset, token=SNIPEIT_TOKEN, drift=True) as standin:
        by_id = [r["id"] for r in read_all(standin, "/api/v1/users", limit=10)]
        assert len(by_id) == len(set(by_id))
        live = {i for i, u in snipeit_dataset.rows["users"].items() if not u["deleted_at"]}
        assert set(by_id) == live | set(standin.drifted["users"])
        assert len(by_id) > before
    assert len(snipeit_dataset.rows["users"]) == before  # the shared data set is untouched


def test_requests_are_counted_per_route(snipeit_standin, snipeit_dataset):
    asset_id = next(iter(snipeit_dataset.rows["hardware"]))
    get(snipeit_standin, "/api/v1/hardware?limit=1")
    get(snipeit_standin, f"/api/v1/hardware/{asset_id}")
    get(snipeit_standin, f"/api/v1/hardware/{asset_id}")
    assert snipeit_standin.hits["GET hardware"] == 1
    assert snipeit_standin.hits["GET hardware/{id}"] == 2
    assert snipeit_standin.log[-1] == (f"/api/v1/hardware/{asset_id}", 200)


def test_strings_are_html_escaped_like_laravel_e(snipeit_standin, snipeit_dataset):
    company_id = next(i for i, c in snipeit_dataset.raw["companies"].items() if c["name"].startswith("O'Brien"))
    _, _, body = get(snipeit_standin, f"/api/v1/companies/{company_id}")
    assert body["name"] == "O&#039;Brien &amp; Sons Company 0"
    assert body["notes"] == "Owner&#039;s note &amp; more"
    assert body["users_count"] == 0 < snipeit_dataset.rows["companies"][company_id]["users_count"]  # show: no counts
    location = next(r for r in snipeit_dataset.rows["locations"].values() if "R&amp;D" in r["name"])
    assert location["name"].startswith("R&amp;D &lt;lab&gt;")
