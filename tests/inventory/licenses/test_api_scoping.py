"""Licenses around the rest of the service (API-CONTRACT.md §7, §10; reference §3.12, §4.14, §6.3, §12), through the
HTTP API: the product key is a secret (shown only to callers with ``licenses.keys``, ``.create`` or ``.edit``, in
every answer, and never in the action log), rule 7, seats under company separation, the users and assets that hold
seats (their lists, the user-delete guard, an asset delete), the companies and catalogue records that count licenses,
and the action log. Input rules: ``test_api_licenses_rules.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accounts.models import User
from activity.models import ActionLog
from inventory.models import License, LicenseSeat
from inventory.services.licenses import HIDDEN_KEY
from tests.api_mixins import MISSING, http_errors, same_answer
from tests.factories import (
    AssetFactory,
    CategoryFactory,
    CompanyFactory,
    LicenseFactory,
    UserFactory,
)
from tests.factories.inventory import seat_out

pytestmark = pytest.mark.django_db

URL = "/api/v1/licenses"
KEY = "XKCD-7F3A-SECRET-KEY"
#: Everything a reader needs around licenses, but no key-showing permission.
READER_KEYS = {"licenses.view": 1, "licenses.checkout": 1, "licenses.delete": 1, "users.view": 1,
               "assets.view": 1, "reports.view": 1}


def ok(response) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == 200 and body["status"] == "success", body
    return body


def first_seat(license_: License) -> LicenseSeat:
    return LicenseSeat.objects.filter(license=license_).order_by("pk").first()


# --- the product key ----------------------------------------------------------------------------------------------


def key_scene(token_client) -> dict[str, Any]:
    """A license with a key, one seat out to a user and one to an asset (through the API), its key changed once."""
    holder, host = UserFactory(), AssetFactory()
    category = CategoryFactory(category_type="license", name="Office suites")
    license_id = ok(token_client.post(URL, {"name": "Office", "seats": 3, "category_id": category.pk,
                                            "serial": "OLD-KEY-0000"}, format="json"))["payload"]["id"]
    ok(token_client.patch(f"{URL}/{license_id}", {"serial": KEY}, format="json"))
    seats = list(LicenseSeat.objects.filter(license_id=license_id).order_by("pk"))
    ok(token_client.patch(f"{URL}/{license_id}/seats/{seats[0].pk}", {"assigned_to": holder.pk}, format="json"))
    ok(token_client.patch(f"{URL}/{license_id}/seats/{seats[1].pk}", {"asset_id": host.pk}, format="json"))
    return {"id": license_id, "holder": holder, "host": host, "seat": seats[0]}


def every_answer(client, scene: dict[str, Any]) -> dict[str, Any]:
    """Every read that shows a license, one of its seats or its log rows, by name."""
    license_id = scene["id"]
    reads = {
        "record": client.get(f"{URL}/{license_id}"),
        "list": client.get(URL),
        "search by name": client.get(URL, {"search": "office"}),
        "search by key": client.get(URL, {"search": KEY[:9]}),
        "filter by key": client.get(URL, {"product_key": KEY}),
        "sort by key": client.get(URL, {"sort": "serial"}),
        "seats": client.get(f"{URL}/{license_id}/seats"),
        "seat": client.get(f"{URL}/{license_id}/seats/{scene['seat'].pk}"),
        "selectlist": client.get(f"{URL}/selectlist"),
        "selectlist by key": client.get(f"{URL}/selectlist", {"search": KEY[:9]}),
        "user's licenses": client.get(f"/api/v1/users/{scene['holder'].pk}/licenses"),
        "asset's licenses": client.get(f"/api/v1/hardware/{scene['host'].pk}/licenses"),
        "activity": client.get("/api/v1/reports/activity", {"item_type": "license", "item_id": license_id}),
        "activity search": client.get("/api/v1/reports/activity", {"search": KEY[:9]}),
        "asset history": client.get(f"/api/v1/hardware/{scene['host'].pk}/history"),
    }
    for name, response in reads.items():
        assert response.status_code == 200, (name, response.content)
    return {name: response.json() for name, response in reads.items()}


def test_a_caller_with_only_licenses_view_never_sees_the_key(token_client, make_client):
    scene = key_scene(token_client)
    answers = every_answer(make_client(UserFactory(permissions=READER_KEYS)), scene)
    for name, body in answers.items():
        text = json.dumps(body)
        assert KEY not in text and "OLD-KEY" not in text, name
    assert answers["record"]["product_key"] == HIDDEN_KEY
    assert {row["product_key"] for row in answers["list"]["rows"]} == {HIDDEN_KEY}
    assert answers["search by name"]["total"] == 1
    assert answers["search by key"]["total"] == answers["filter by key"]["total"] == 0
    assert answers["selectlist by key"]["total_count"] == 0
    assert [row["product_key"] for row in answers["user's licenses"]["rows"]] == [HIDDEN_KEY]
    assert [row["product_key"] for row in answers["asset's licenses"]["rows"]] == [HIDDEN_KEY]
    assert {row["item"]["serial"] for row in answers["activity"]["rows"]} == {HIDDEN_KEY}
    assert answers["activity"]["total"] == 4  # create, update and two checkouts: the rows are listed, not hidden


@pytest.mark.parametrize("key", ["licenses.keys", "licenses.create", "licenses.edit", "superuser"])
def test_keys_create_or_edit_show_the_key(token_client, make_client, key):
    scene = key_scene(token_client)
    user = UserFactory(superuser=True) if key == "superuser" else UserFactory(permissions={**READER_KEYS, key: 1})
    answers = every_answer(make_client(user), scene)
    assert answers["record"]["product_key"] == KEY
    assert answers["search by key"]["total"] == answers["filter by key"]["total"] == 1
    assert [row["product_key"] for row in answers["user's licenses"]["rows"]] == [KEY]
    assert {row["item"]["serial"] for row in answers["activity"]["rows"]} == {KEY}
    # Never in the log itself: the update says the key changed, not what it was or became.
    update = next(row for row in answers["activity"]["rows"] if row["action_type"] == "update")
    assert update["log_meta"] == {"serial": {"old": HIDDEN_KEY, "new": HIDDEN_KEY}}
    assert answers["activity search"]["total"] == 0


def test_the_action_log_never_holds_the_key(token_client):
    scene = key_scene(token_client)
    rows = ActionLog.objects.filter(item_type="license", item_id=scene["id"]).order_by("pk")
    assert [row.action_type for row in rows] == ["create", "update", "checkout", "checkout"]
    assert rows[1].log_meta == {"serial": {"old": HIDDEN_KEY, "new": HIDDEN_KEY}}
    stored = json.dumps(list(ActionLog.objects.values()), default=str)
    assert KEY not in stored and "OLD-KEY" not in stored


def test_sorting_by_key_is_for_key_holders_only(token_client, make_client):
    LicenseFactory(name="First", serial="ZZZ")
    LicenseFactory(name="Second", serial="AAA")
    params = {"sort": "product_key", "order": "asc"}
    assert [row["name"] for row in token_client.get(URL, params).json()["rows"]] == ["Second", "First"]
    reader = make_client(UserFactory(permissions={"licenses.view": 1}))
    # For a reader the key is no sort: it falls back to created_at, in the order asked.
    assert [row["name"] for row in reader.get(URL, params).json()["rows"]] == ["First", "Second"]
    assert [row["name"] for row in reader.get(URL, {"sort": "serial"}).json()["rows"]] == ["Second", "First"]


# --- companies ----------------------------------------------------------------------------------------------------


def test_rule_7_gives_a_new_license_the_callers_company(make_client, fmcs_on):
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions={"licenses.create": 1, "licenses.edit": 1,
                                                                "licenses.view": 1}))
    body = ok(client.post(URL, {"name": "Ours", "seats": 1, "company_id": theirs.pk,
                                "category_id": CategoryFactory(category_type="license").pk}, format="json"))
    assert body["payload"]["company"]["id"] == ours.pk
    ok(client.patch(f"{URL}/{body['payload']['id']}", {"company_id": theirs.pk}, format="json"))
    assert License.objects.get(pk=body["payload"]["id"]).company == ours


@pytest.mark.parametrize("mode", ["compat", "http"])
@pytest.mark.parametrize(("key", "maker"), [("assigned_to", UserFactory), ("asset_id", AssetFactory)])
def test_another_companys_user_or_asset_is_an_unknown_target(make_client, fmcs_on, settings, mode, key, maker):
    if mode == "http":
        http_errors(settings)
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions=READER_KEYS))
    license_ = LicenseFactory(company=ours)
    path = f"{URL}/{license_.pk}/seats/{first_seat(license_).pk}"
    before = list(LicenseSeat.objects.values()), ActionLog.objects.count()
    same_answer(client.patch(path, {key: maker(company=theirs).pk}, format="json"),
                client.patch(path, {key: MISSING}, format="json"))
    assert (list(LicenseSeat.objects.values()), ActionLog.objects.count()) == before
    ok(client.patch(path, {key: maker(company=ours).pk}, format="json"))


def test_a_seat_of_another_companys_license_is_not_found(make_client, fmcs_on):
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions=READER_KEYS))
    mine, other = LicenseFactory(company=ours), LicenseFactory(company=theirs)
    hidden = client.get(f"{URL}/{mine.pk}/seats/{first_seat(other).pk}")
    missing = client.get(f"{URL}/{mine.pk}/seats/{MISSING}")
    same_answer(hidden, missing)
    assert hidden.json()["message"] == "Seat not found"


def test_a_holder_of_another_company_is_hidden_in_the_seats(make_client, token_client, fmcs_on):
    ours, theirs = CompanyFactory(), CompanyFactory()
    license_ = LicenseFactory(company=ours)
    seat_out(UserFactory(company=theirs), license_)  # by a super user, who may
    client = make_client(UserFactory(company=ours, permissions=READER_KEYS))
    row = client.get(f"{URL}/{license_.pk}/seats").json()["rows"][0]
    assert row["assigned_user"] is None and row["location"] is None and row["user_can_checkout"] is False
    assert token_client.get(f"{URL}/{license_.pk}/seats").json()["rows"][0]["assigned_user"] is not None


def test_company_counts_and_rule_9_include_licenses(token_client):
    company = CompanyFactory(name="Counted")
    LicenseFactory.create_batch(2, company=company)
    LicenseFactory(company=company, deleted_at="2026-01-01T00:00:00Z")
    assert token_client.get(f"/api/v1/companies/{company.pk}").json()["licenses_count"] == 2
    assert token_client.delete(f"/api/v1/companies/{company.pk}").json()["status"] == "error"


def test_a_category_holding_licenses_counts_them_and_cannot_be_deleted(token_client):
    category = CategoryFactory(category_type="license")
    LicenseFactory(category=category)
    assert token_client.get(f"/api/v1/categories/{category.pk}").json()["licenses_count"] == 1
    assert token_client.delete(f"/api/v1/categories/{category.pk}").json()["status"] == "error"


# --- users and assets that hold seats -----------------------------------------------------------------------------


def test_a_user_holding_seats_cannot_be_deleted_until_they_are_back(token_client):
    holder = UserFactory()
    license_ = LicenseFactory(seats=3)
    seats = [seat_out(holder, license_), seat_out(holder, license_)]
    assert token_client.get(f"/api/v1/users/{holder.pk}").json()["licenses_count"] == 2
    before = list(User.objects.values_list("pk", "deleted_at")), ActionLog.objects.count()
    body = token_client.delete(f"/api/v1/users/{holder.pk}").json()
    message = "This user still has 2 license seats assigned. Please check them in first."
    assert (body["status"], body["message"], body["messages"]) == ("error", message,
                                                                    {"assigned_licenses": [message]})
    assert (list(User.objects.values_list("pk", "deleted_at")), ActionLog.objects.count()) == before
    for seat in seats:
        ok(token_client.patch(f"{URL}/{license_.pk}/seats/{seat.pk}", {"assigned_to": None}, format="json"))
    ok(token_client.delete(f"/api/v1/users/{holder.pk}"))


def test_deleting_an_asset_checks_its_seats_in(token_client, superuser):
    host = AssetFactory()
    license_ = LicenseFactory(seats=2)
    seat = seat_out(host, license_)
    kept = seat_out(UserFactory(), license_)
    ok(token_client.delete(f"/api/v1/hardware/{host.pk}"))
    seat.refresh_from_db()
    kept.refresh_from_db()
    assert not seat.is_assigned and kept.is_assigned
    assert token_client.get(f"{URL}/{license_.pk}").json()["free_seats_count"] == 1
    log = ActionLog.objects.get(item_type="license", item_id=license_.pk, action_type="checkin from")
    assert (log.target_type, log.target_id, log.note, log.created_by) == ("asset", host.pk, "Checkin on delete",
                                                                          superuser)


def test_users_and_hardware_licenses_lists(token_client, make_client, fmcs_on, settings):
    ours, theirs = CompanyFactory(), CompanyFactory()
    holder, host = UserFactory(company=ours), AssetFactory(company=ours)
    office, theirs_license = LicenseFactory(name="Office", seats=3, company=ours), LicenseFactory(company=theirs)
    first, second = seat_out(holder, office), seat_out(holder, office)
    seat_out(holder, theirs_license)  # by a super user: another company's seat held by our user
    seat_out(host, office)
    client = make_client(UserFactory(company=ours, permissions=READER_KEYS))
    rows = client.get(f"/api/v1/users/{holder.pk}/licenses").json()
    assert rows["total"] == 2 and {row["assigned_pivot_id"] for row in rows["rows"]} == {first.pk, second.pk}
    assert {row["name"] for row in rows["rows"]} == {"Office"}
    assert client.get(f"/api/v1/users/{holder.pk}").json()["licenses_count"] == 2
    assert token_client.get(f"/api/v1/users/{holder.pk}/licenses").json()["total"] == 3
    assert client.get(f"/api/v1/hardware/{host.pk}/licenses").json()["total"] == 1
    # Unknown, another company's or deleted: "not found", as for a missing id.
    other_user, other_asset = UserFactory(company=theirs), AssetFactory(company=theirs)
    same_answer(client.get(f"/api/v1/users/{other_user.pk}/licenses"), client.get(f"/api/v1/users/{MISSING}/licenses"))
    same_answer(client.get(f"/api/v1/hardware/{other_asset.pk}/licenses"),
                client.get(f"/api/v1/hardware/{MISSING}/licenses"))
    http_errors(settings)
    assert client.get(f"/api/v1/hardware/{MISSING}/licenses").status_code == 404


@pytest.mark.parametrize(("path", "needs"), [("users/{holder}/licenses", "users.view"),
                                             ("hardware/{host}/licenses", "assets.view")])
def test_holdings_lists_need_both_sections(make_client, path, needs):
    holder, host = UserFactory(), AssetFactory()
    url = "/api/v1/" + path.format(holder=holder.pk, host=host.pk)
    for keys, status in (({"licenses.view": 1}, 403), ({needs: 1}, 403), ({"licenses.view": 1, needs: 1}, 200)):
        assert make_client(UserFactory(permissions=keys)).get(url).status_code == status, keys


def test_the_activity_report_filters_license_rows(token_client):
    license_ = ok(token_client.post(URL, {"name": "Visio", "seats": 1,
                                          "category_id": CategoryFactory(category_type="license").pk},
                                    format="json"))["payload"]
    holder = UserFactory(first_name="Grace", last_name="Hopper")
    seat = first_seat(License.objects.get(pk=license_["id"]))
    path = f"{URL}/{license_['id']}/seats/{seat.pk}"
    ok(token_client.patch(path, {"assigned_to": holder.pk, "notes": "out"}, format="json"))
    ok(token_client.patch(path, {"assigned_to": None, "notes": "in"}, format="json"))
    LicenseFactory()  # another license's rows are not listed
    rows = token_client.get("/api/v1/reports/activity", {"item_type": "license", "item_id": license_["id"]}
                            ).json()["rows"]
    assert [(row["action_type"], row["item"]["type"], row["item"]["name"], row["note"],
             row["target"] and row["target"]["name"]) for row in rows] == [
        ("checkin from", "license", "Visio", "in", "Grace Hopper"),
        ("checkout", "license", "Visio", "out", "Grace Hopper"),
        ("create new", "license", "Visio", None, None)]
    by_user = token_client.get("/api/v1/reports/activity", {"target_type": "user", "target_id": holder.pk}).json()
    assert by_user["total"] == 2
