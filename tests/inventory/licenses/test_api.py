"""``/licenses`` on the shared API test mixins (``tests/api_mixins.py``): CRUD, restore, select list, permissions
(the seat routes included: reads need ``licenses.view``, a seat ``PATCH``/``PUT`` ``licenses.checkout``), query
budget; company separation through ``SCOPED_RESOURCES``. Seats are checked out and in by ``PATCH`` of a seat, which
the checkout mixins do not fit: those tests are written out below, each through the HTTP API with the database and
the action log checked."""

from __future__ import annotations

from typing import Any

import pytest

from activity.models import ActionLog
from inventory.api.licenses.views import LicenseViewSet
from inventory.models import License, LicenseSeat
from inventory.services.licenses import LICENSE_NOT_FOUND, SEAT_NOT_FOUND, SEAT_OF_ANOTHER_LICENSE, SEAT_UNAVAILABLE
from tests.api_mixins import (
    MISSING,
    CrudAPITests,
    PermissionTests,
    QueryBudgetTests,
    RestoreTests,
    SelectListTests,
    error_of,
    http_errors,
)
from tests.factories import AssetFactory, CategoryFactory, LicenseFactory, LocationFactory, UserFactory
from tests.factories.inventory import seat_out

pytestmark = pytest.mark.django_db

URL = "/api/v1/licenses"


def seats_of(license_: License) -> list[LicenseSeat]:
    return list(LicenseSeat.objects.filter(license=license_).order_by("pk"))


def seat_path(license_: License, seat: LicenseSeat | int) -> str:
    return f"{URL}/{license_.pk}/seats/{getattr(seat, 'pk', seat)}"


def ok(response) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == 200 and body["status"] == "success", body
    return body


def state() -> tuple[Any, ...]:
    """What a refused request must leave as it was: licenses, seats and the action log."""
    return (list(License.objects.order_by("pk").values()), list(LicenseSeat.objects.order_by("pk").values()),
            list(ActionLog.objects.order_by("pk").values_list("pk", flat=True)))


class TestLicensesAPI(CrudAPITests, RestoreTests, SelectListTests, PermissionTests, QueryBudgetTests):
    url = URL
    viewset = LicenseViewSet
    section = "licenses"
    model = License
    factory = LicenseFactory
    item_type = "license"
    scoped = True
    soft_deletes = True
    custom_verbs = ("checkout",)
    record_keys = {"product_key", "seats", "free_seats_count", "remaining", "category", "company", "manufacturer",
                   "supplier", "license_name", "license_email", "reassignable", "maintained", "expiration_date",
                   "termination_date", "purchase_order", "purchase_cost", "user_can_checkout", "deleted_at"}
    selectlist_key = "licenses.create"

    not_found_message = "License not found"
    created_message = "License created successfully."
    updated_message = "License updated successfully."
    delete_message = "The license was deleted successfully."
    restore_message = "License restored successfully."
    not_deleted_message = "The license was not deleted and therefore cannot be restored"

    def create_payload(self) -> dict[str, Any]:
        return {"name": "Office 365", "seats": 3, "category_id": CategoryFactory(category_type="license").pk}

    def object_requests(self, verb, company=None, viewer_company=None):
        """``view`` also reads the seats of a license and one seat."""
        calls = super().object_requests(verb, company, viewer_company)
        if verb == "view":
            license_ = self.make(**self.owner_kwargs(company))
            calls += [(license_, "get", f"{self.url}/{{id}}/seats", {}),
                      (license_, "get", f"{self.url}/{{id}}/seats/{seats_of(license_)[0].pk}", {})]
        return calls

    def custom_requests(self, verb, owner, viewer_company):
        """A seat checkout to a user (PATCH and PUT), to an asset, and a checkin (both targets null)."""
        if verb != "checkout":
            raise NotImplementedError(verb)
        calls = []
        for method, body in (("patch", lambda: {"assigned_to": UserFactory(company=viewer_company).pk}),
                             ("put", lambda: {"asset_id": AssetFactory(company=viewer_company).pk})):
            license_ = self.make(**owner)
            calls.append((license_, method, f"{self.url}/{{id}}/seats/{seats_of(license_)[0].pk}", body()))
        license_ = self.make(**owner)
        seat = seat_out(UserFactory(company=owner.get("company")), license_)
        calls.append((license_, "patch", f"{self.url}/{{id}}/seats/{seat.pk}", {"assigned_to": None,
                                                                                 "asset_id": None}))
        return calls

    def db_state(self):
        return state()

    def make_listed(self) -> None:
        license_ = self.make(seats=3)
        seat_out(UserFactory(), license_)
        seat_out(AssetFactory(), license_)


# --- the record --------------------------------------------------------------------------------------------------


def test_create_makes_the_seats_and_answers_the_record(token_client, superuser):
    category = CategoryFactory(category_type="license")
    body = ok(token_client.post(URL, {
        "name": "Visio", "seats": 4, "category_id": category.pk, "serial": "ABCD-EFGH", "license_name": "Ada",
        "license_email": "ada@example.com", "reassignable": False, "maintained": "true",
        "expiration_date": "2027-01-31", "termination_date": "2027-02-28", "purchase_date": "2026-01-02",
        "purchase_order": "PO-9", "order_number": "ON-1", "purchase_cost": "1234.5", "min_amt": 1, "notes": "n",
    }, format="json"))
    record = body["payload"]
    assert {key: record[key] for key in ("seats", "free_seats_count", "remaining", "product_key", "license_name",
                                         "license_email", "reassignable", "maintained", "expiration_date",
                                         "termination_date", "purchase_date", "purchase_order", "order_number",
                                         "purchase_cost", "purchase_cost_numeric", "min_amt", "notes",
                                         "category", "category_id", "depreciation", "user_can_checkout")} == {
        "seats": 4, "free_seats_count": 4, "remaining": 4, "product_key": "ABCD-EFGH", "license_name": "Ada",
        "license_email": "ada@example.com", "reassignable": False, "maintained": True,
        "expiration_date": "2027-01-31", "termination_date": "2027-02-28", "purchase_date": "2026-01-02",
        "purchase_order": "PO-9", "order_number": "ON-1", "purchase_cost": "1234.50",
        "purchase_cost_numeric": "1234.50", "min_amt": 1, "notes": "n",
        "category": {"id": category.pk, "name": category.name}, "category_id": category.pk, "depreciation": None,
        "user_can_checkout": True}
    license_ = License.objects.get(pk=record["id"])
    assert LicenseSeat.objects.filter(license=license_).free().count() == 4
    assert {seat.created_by for seat in seats_of(license_)} == {superuser}
    assert ActionLog.objects.filter(item_type="license", item_id=license_.pk).count() == 1


def test_reassignable_defaults_to_true(token_client):
    body = ok(token_client.post(URL, {"name": "Default", "seats": 1,
                                      "category_id": CategoryFactory(category_type="license").pk}, format="json"))
    assert body["payload"]["reassignable"] is True and body["payload"]["maintained"] is False


def test_free_seats_count_and_actions_follow_the_seats(token_client):
    license_ = LicenseFactory(seats=3)
    seat_out(UserFactory(), license_)
    seat_out(AssetFactory(), license_)
    record = token_client.get(f"{URL}/{license_.pk}").json()
    assert (record["seats"], record["free_seats_count"], record["remaining"]) == (3, 1, 1)
    assert record["user_can_checkout"] is True
    assert record["available_actions"] == {"checkout": True, "checkin": True, "clone": True, "update": True,
                                           "delete": False, "restore": False}
    seat_out(UserFactory(), license_)
    record = token_client.get(f"{URL}/{license_.pk}").json()
    assert (record["free_seats_count"], record["user_can_checkout"]) == (0, False)
    assert record["available_actions"]["checkout"] is False
    rows = token_client.get(URL, {"sort": "free_seats_count", "order": "asc"}).json()["rows"]
    assert [row["id"] for row in rows] == [license_.pk]


@pytest.mark.parametrize(("params", "expected"), [
    ({"maintained": "true"}, ["Kept"]), ({"maintained": "false"}, ["Other"]),
    ({"expires": "true"}, ["Kept"]), ({"expires": "false"}, ["Other"]),
    ({"license_name": "ada lovelace"}, ["Kept"]), ({"purchase_order": "po-1"}, ["Kept"]),
    ({"sort": "termination_date", "order": "desc"}, ["Kept", "Other"]),
    ({"sort": "termination_date", "order": "asc"}, ["Other", "Kept"]), ({"sort": "seats"}, ["Kept", "Other"]),
])
def test_filters_and_sorts(token_client, params, expected):
    """(Sorting by a column some rows leave empty puts those rows first on PostgreSQL and last on SQLite and
    MySQL when descending: the shared sort does not say where nulls go, so these rows all have a value.)"""
    LicenseFactory(name="Kept", maintained=True, expiration_date="2027-01-01", license_name="Ada Lovelace",
                   purchase_order="PO-1", seats=5, termination_date="2028-01-01")
    LicenseFactory(name="Other", termination_date="2027-06-30")
    assert [row["name"] for row in token_client.get(URL, params).json()["rows"]] == expected


# --- seats: reading ---------------------------------------------------------------------------------------------


def test_seats_list_in_id_order_with_holders(token_client):
    desk = LocationFactory(name="Desk")
    license_ = LicenseFactory(seats=3, reassignable=False)
    user = UserFactory(first_name="Grace", last_name="Hopper", email="grace@example.com", location=desk)
    asset = AssetFactory(name="", asset_tag="HOST-1")
    first, second, third = seats_of(license_)
    seat_out(user, license_)
    seat_out(asset, license_)
    body = token_client.get(f"{URL}/{license_.pk}/seats").json()
    assert body["total"] == 3 and [row["id"] for row in body["rows"]] == [first.pk, second.pk, third.pk]
    row = body["rows"][0]
    assert row["license_id"] == license_.pk and row["reassignable"] is False
    assert row["assigned_user"] == {"id": user.pk, "name": "Grace Hopper", "email": "grace@example.com",
                                    "department": None, "created_at": row["assigned_user"]["created_at"]}
    assert row["assigned_asset"] is None and row["location"]["name"] == "Desk"
    assert row["user_can_checkout"] is False
    assert row["available_actions"] == {"checkout": False, "checkin": True, "clone": False, "update": True,
                                        "delete": False}
    assert body["rows"][1]["assigned_asset"]["name"] == "HOST-1" and body["rows"][1]["assigned_user"] is None
    assert body["rows"][2]["user_can_checkout"] is True and body["rows"][2]["available_actions"]["checkout"]
    paged = token_client.get(f"{URL}/{license_.pk}/seats", {"limit": 1, "offset": 2}).json()
    assert paged["total"] == 3 and [row["id"] for row in paged["rows"]] == [third.pk]
    single = token_client.get(seat_path(license_, second)).json()
    assert single == body["rows"][1]


def test_seat_reads_refuse_unknown_licenses_and_seats(token_client, settings):
    license_, other = LicenseFactory(), LicenseFactory()
    deleted = LicenseFactory(deleted_at="2026-01-01T00:00:00Z")
    cases = [
        (f"{URL}/{MISSING}/seats", LICENSE_NOT_FOUND), (f"{URL}/abc/seats", LICENSE_NOT_FOUND),
        (f"{URL}/{deleted.pk}/seats", LICENSE_NOT_FOUND),
        (seat_path(license_, MISSING), SEAT_NOT_FOUND), (seat_path(license_, "abc"), SEAT_NOT_FOUND),
        (seat_path(license_, seats_of(other)[0]), SEAT_OF_ANOTHER_LICENSE),
        (seat_path(license_, seats_of(deleted)[0]), SEAT_NOT_FOUND),
    ]
    for path, message in cases:
        for method in ("get",) if path.endswith("/seats") else ("get", "patch", "put"):
            body = {} if method == "get" else {"assigned_to": None}
            response = getattr(token_client, method)(path, body, format="json")
            assert response.status_code == 200 and response.json()["message"] == message, (method, path)
    http_errors(settings)
    for path, message in cases:
        response = token_client.get(path)
        assert response.status_code == 404 and response.json()["message"] == message, path


# --- seats: checkout and checkin --------------------------------------------------------------------------------


def test_checkout_to_a_user_then_an_asset_and_checkin(token_client, superuser):
    license_ = LicenseFactory(seats=2)
    first, second = seats_of(license_)
    user, asset = UserFactory(location=LocationFactory()), AssetFactory()
    body = ok(token_client.patch(seat_path(license_, first), {"assigned_to": user.pk, "notes": "for Grace"},
                                 format="json"))
    assert body["messages"] == "License updated successfully."
    assert body["payload"]["assigned_user"]["id"] == user.pk and body["payload"]["notes"] == "for Grace"
    ok(token_client.put(seat_path(license_, second), {"asset_id": str(asset.pk)}, format="json"))
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.assigned_user, first.assigned_asset, second.assigned_user, second.assigned_asset) == (
        user, None, None, asset)
    assert token_client.get(f"{URL}/{license_.pk}").json()["free_seats_count"] == 0
    logs = ActionLog.objects.filter(item_type="license", item_id=license_.pk).order_by("pk")
    assert [(log.action_type, log.target_type, log.target_id, log.note, log.location_id, log.created_by)
            for log in logs] == [("checkout", "user", user.pk, "for Grace", user.location_id, superuser),
                                 ("checkout", "asset", asset.pk, "", None, superuser)]

    body = ok(token_client.patch(seat_path(license_, first), {"assigned_to": None, "asset_id": None,
                                                               "notes": "back"}, format="json"))
    assert body["payload"]["assigned_user"] is None and body["payload"]["notes"] == "back"
    log = ActionLog.objects.filter(item_type="license", item_id=license_.pk).latest("pk")
    assert (log.action_type, log.target_type, log.target_id, log.note) == ("checkin from", "user", user.pk, "back")
    assert token_client.get(f"{URL}/{license_.pk}").json()["free_seats_count"] == 1


@pytest.mark.parametrize(("holder", "body", "checked_in"), [
    ("user", {"assigned_to": None}, True),
    ("user", {"asset_id": None}, False),  # the user still holds it: nothing to do (Snipe-IT's isDirty rule)
    ("asset", {"asset_id": ""}, True),
    ("asset", {"assigned_to": None}, False),
    ("user", {"notes": "only notes"}, False),
    ("user", {}, False),
])
def test_which_null_checks_a_seat_in(token_client, holder, body, checked_in):
    license_ = LicenseFactory()
    seat = seat_out(UserFactory() if holder == "user" else AssetFactory(), license_)
    before = state()
    ok(token_client.patch(seat_path(license_, seat), body, format="json"))
    seat.refresh_from_db()
    assert seat.is_assigned is not checked_in
    if not checked_in:
        assert state() == before


def test_checking_in_a_free_seat_or_out_to_its_holder_changes_nothing(token_client):
    license_ = LicenseFactory(reassignable=False)
    user = UserFactory()
    held = seat_out(user, license_)
    free = LicenseSeat.objects.filter(license=license_).free().get()
    before = state()
    ok(token_client.patch(seat_path(license_, free), {"assigned_to": None, "asset_id": None}, format="json"))
    ok(token_client.patch(seat_path(license_, held), {"assigned_to": user.pk}, format="json"))
    assert state() == before


def test_a_reassignable_seat_logs_a_checkin_and_a_checkout(token_client):
    license_ = LicenseFactory(seats=1, reassignable=True)
    before, after = UserFactory(), AssetFactory()
    seat = seat_out(before, license_)
    ok(token_client.patch(seat_path(license_, seat), {"asset_id": after.pk}, format="json"))
    seat.refresh_from_db()
    assert (seat.assigned_user, seat.assigned_asset) == (None, after)
    logs = ActionLog.objects.filter(item_type="license", item_id=license_.pk).order_by("pk")
    assert [(log.action_type, log.target_type, log.target_id) for log in logs] == [
        ("checkin from", "user", before.pk), ("checkout", "asset", after.pk)]


def test_an_assigned_seat_of_a_non_reassignable_license_is_refused(token_client, settings):
    license_ = LicenseFactory(seats=1, reassignable=False)
    holder = UserFactory()
    seat = seat_out(holder, license_)
    before = state()
    for target in ({"assigned_to": UserFactory().pk}, {"asset_id": AssetFactory().pk}):
        response = token_client.patch(seat_path(license_, seat), target, format="json")
        assert response.status_code == 200 and response.json()["message"] == SEAT_UNAVAILABLE
    http_errors(settings)
    assert token_client.patch(seat_path(license_, seat), {"assigned_to": UserFactory().pk},
                              format="json").status_code == 409
    assert state()[:2] == before[:2] and state()[2] == before[2]
    # Checking it in is always allowed, and the free seat can be assigned again.
    ok(token_client.patch(seat_path(license_, seat), {"assigned_to": None}, format="json"))
    ok(token_client.patch(seat_path(license_, seat), {"assigned_to": UserFactory().pk}, format="json"))


def test_seats_follow_the_seats_count(token_client, superuser):
    license_ = LicenseFactory(seats=2)
    kept = seat_out(UserFactory(), license_)
    body = ok(token_client.patch(f"{URL}/{license_.pk}", {"seats": 5}, format="json"))
    assert (body["payload"]["seats"], body["payload"]["free_seats_count"]) == (5, 4)
    assert len(seats_of(license_)) == 5
    body = ok(token_client.patch(f"{URL}/{license_.pk}", {"seats": 1}, format="json"))
    assert (body["payload"]["seats"], body["payload"]["free_seats_count"]) == (1, 0)
    assert seats_of(license_) == [kept]
    log = ActionLog.objects.filter(item_type="license", item_id=license_.pk, action_type="update").latest("pk")
    assert log.log_meta == {"seats": {"old": 5, "new": 1}}


def test_seats_never_go_below_the_assigned_ones(token_client, settings):
    license_ = LicenseFactory(seats=4)
    seat_out(UserFactory(), license_)
    seat_out(AssetFactory(), license_)
    before = state()
    assert error_of(token_client.patch(f"{URL}/{license_.pk}", {"seats": 1, "name": "Renamed"}, format="json"),
                    "seats") == ["The seats must be at least 2: 2 are assigned."]
    http_errors(settings)
    response = token_client.put(f"{URL}/{license_.pk}", {"seats": 1}, format="json")
    assert response.status_code == 422 and response.json()["messages"] == {
        "seats": ["The seats must be at least 2: 2 are assigned."]}
    assert state() == before
    ok(token_client.patch(f"{URL}/{license_.pk}", {"seats": 2}, format="json"))
    assert LicenseSeat.objects.filter(license=license_).free().count() == 0


def test_delete_is_refused_while_a_seat_is_assigned_and_seats_come_back_on_restore(token_client, settings):
    license_ = LicenseFactory(seats=3)
    seat = seat_out(UserFactory(), license_)
    assert token_client.get(f"{URL}/{license_.pk}").json()["available_actions"]["delete"] is False
    before = state()
    message = ("This license is currently checked out to a user and cannot be deleted. Please check the license in "
               "first, and then try deleting again. ")
    assert token_client.delete(f"{URL}/{license_.pk}").json() == {"status": "error", "message": message,
                                                                  "messages": message, "payload": None}
    http_errors(settings)
    assert token_client.delete(f"{URL}/{license_.pk}").status_code == 409
    assert state() == before
    ok(token_client.patch(seat_path(license_, seat), {"assigned_to": None}, format="json"))
    ok(token_client.delete(f"{URL}/{license_.pk}"))
    assert len(seats_of(license_)) == 3  # kept, hidden with the license
    assert token_client.get(f"{URL}/{license_.pk}/seats").status_code == 404
    assert token_client.get(URL, {"deleted": "true"}).json()["rows"][0]["available_actions"]["restore"] is True
    ok(token_client.post(f"{URL}/{license_.pk}/restore"))
    assert token_client.get(f"{URL}/{license_.pk}/seats").json()["total"] == 3


# --- product_key as a write alias of serial (issue 25 item 18) -------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "multipart"])
def test_product_key_is_written_as_the_serial_on_create_and_update(token_client, fmt):
    """Two real clients write the key under the name they read it under; Snipe-IT drops it silently."""
    category = CategoryFactory(category_type="license")
    created = ok(token_client.post(URL, {"name": "Visio", "seats": 2, "category_id": category.pk,
                                         "product_key": " AAAA-BBBB "}, format=fmt))
    license_ = License.objects.get(pk=created["payload"]["id"])
    assert license_.serial == "AAAA-BBBB" and created["payload"]["product_key"] == "AAAA-BBBB"
    updated = ok(token_client.patch(f"{URL}/{license_.pk}", {"product_key": "CCCC-DDDD"}, format=fmt))
    license_.refresh_from_db()
    assert license_.serial == "CCCC-DDDD" and updated["payload"]["product_key"] == "CCCC-DDDD"
    log = ActionLog.objects.filter(item_type="license", item_id=license_.pk, action_type="update").get()
    assert set(log.log_meta) == {"serial"}  # logged as the serial changing (the key itself is never in the log)


@pytest.mark.parametrize(("serial", "product_key"), [("AAAA", "AAAA"), ("AAAA", " AAAA "), ("", None),
                                                     (None, "")])
def test_serial_and_product_key_agreeing_are_one_key(token_client, serial, product_key):
    license_ = LicenseFactory(serial="OLD")
    ok(token_client.patch(f"{URL}/{license_.pk}", {"serial": serial, "product_key": product_key}, format="json"))
    license_.refresh_from_db()
    assert license_.serial == (serial or "")


@pytest.mark.parametrize("mode", ["compat", "http"])
def test_serial_and_product_key_disagreeing_are_refused_and_nothing_changes(token_client, settings, mode):
    if mode == "http":
        http_errors(settings)
    category = CategoryFactory(category_type="license")
    license_ = LicenseFactory(serial="OLD")
    before = state()
    message = "The product key field must match serial."
    created = token_client.post(URL, {"name": "Visio", "seats": 2, "category_id": category.pk, "serial": "AAAA",
                                      "product_key": "BBBB"}, format="json")
    patched = token_client.patch(f"{URL}/{license_.pk}", {"serial": "AAAA", "product_key": "BBBB"}, format="json")
    for response in (created, patched):
        assert response.status_code == (200 if mode == "compat" else 422), response.content
        assert response.json() == {"status": "error", "message": message, "messages": {"product_key": [message]},
                                   "payload": None}
    assert state() == before


def test_product_key_is_checked_like_the_serial(token_client):
    license_ = LicenseFactory(serial="OLD")
    before = state()
    body = token_client.patch(f"{URL}/{license_.pk}", {"product_key": "k" * 65_536}, format="json")
    assert error_of(body, "product_key")
    assert state() == before
