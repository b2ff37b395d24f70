"""Rules of ``/licenses`` and their seats (API-CONTRACT.md §2, §10; reference §3.12, §4.12, §4.14) through the HTTP
API: bad input answers clearly and changes nothing (no license, no seat change, no action-log row), in both error
modes (``compat``: HTTP 200 with the error envelope; ``http``: 422 for input, 404 for an unknown or invisible id in
the path, 409 for a refused state change).

Companies, users, the product key and the action log: ``test_api_licenses_scoping.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.api.licenses.serializers import BOTH_TARGETS
from inventory.models import License, LicenseSeat
from inventory.services.licenses import NOT_FOUND, SEAT_OF_ANOTHER_LICENSE, TARGET_NOT_FOUND
from tests.api_mixins import http_errors
from tests.factories import AssetFactory, CategoryFactory, LicenseFactory, UserFactory
from tests.factories.inventory import seat_out
from tests.inventory.stock.test_api_rules import refusal

pytestmark = pytest.mark.django_db

URL = "/api/v1/licenses"
INVALID, NOT_FOUND_STATUS = 422, 404


def state() -> tuple[Any, ...]:
    return (list(License.objects.order_by("pk").values()), list(LicenseSeat.objects.order_by("pk").values()),
            list(ActionLog.objects.order_by("pk").values_list("pk", flat=True)))


@pytest.fixture(params=["compat", "http"])
def mode(request, settings) -> str:
    """Both error modes of API-CONTRACT.md §2."""
    if request.param == "http":
        http_errors(settings)
    return request.param


def create_body(**changes: Any) -> dict[str, Any]:
    return {"name": "Office", "seats": 2, "category_id": CategoryFactory(category_type="license").pk, **changes}


def first_seat(license_: License) -> LicenseSeat:
    return LicenseSeat.objects.filter(license=license_).order_by("pk").first()


# --- creating and editing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "message"), [
    (0, "The seats must be at least 1."),
    (-1, "The seats must be at least 1."),
    (1.5, "The seats must be an integer."),
    ("abc", "The seats must be an integer."),
    (True, "The seats must be an integer."),
    ([2], "The seats must be an integer."),
    (100_001, "The seats may not be greater than 100000."),
    (None, "The seats field is required."),
])
def test_seats_is_a_whole_number_from_1_to_100000(token_client, mode, seats, message):
    """On create and on update alike; nothing is written."""
    license_ = LicenseFactory(seats=2)
    before = state()
    response = token_client.post(URL, create_body(seats=seats), format="json")
    assert refusal(response, mode, INVALID)["messages"] == {"seats": [message]}
    if seats is not None:
        patched = token_client.patch(f"{URL}/{license_.pk}", {"seats": seats}, format="json")
        assert refusal(patched, mode, INVALID)["messages"] == {"seats": [message]}
    assert state() == before


@pytest.mark.parametrize("seats", [1, "7", 100_000])
def test_seats_bounds_are_accepted(token_client, seats):
    body = token_client.post(URL, create_body(seats=seats), format="json").json()
    assert body["status"] == "success", body
    assert body["payload"]["seats"] == body["payload"]["free_seats_count"] == int(seats)
    assert LicenseSeat.objects.filter(license_id=body["payload"]["id"]).count() == int(seats)


def test_create_reports_every_missing_required_field_at_once(token_client, mode):
    before = state()
    response = token_client.post(URL, {"notes": "nothing else"}, format="json")
    assert refusal(response, mode, INVALID)["messages"] == {
        "name": ["The name field is required."],
        "seats": ["The seats field is required."],
        "category_id": ["The category id field is required."],
    }
    assert state() == before


@pytest.mark.parametrize("category_type", ["asset", "accessory", "consumable", "component"])
def test_a_category_of_another_type_is_refused(token_client, mode, category_type):
    wrong = CategoryFactory(category_type=category_type)
    license_ = LicenseFactory()
    before = state()
    expected = {"category_id": ["The category must be a license category."]}
    assert refusal(token_client.post(URL, create_body(category_id=wrong.pk), format="json"), mode,
                   INVALID)["messages"] == expected
    for method in ("patch", "put"):
        changed = getattr(token_client, method)(f"{URL}/{license_.pk}", {"category_id": wrong.pk}, format="json")
        assert refusal(changed, mode, INVALID)["messages"] == expected
    assert state() == before


@pytest.mark.parametrize(("field", "value", "message"), [
    ("expiration_date", "2023-02-30", "The expiration date is not a valid date."),
    ("termination_date", "2023-02-30", "The termination date is not a valid date."),
    ("purchase_date", "2023-13-01", "The purchase date is not a valid date."),
    ("expiration_date", "next year", "The expiration date does not match the format YYYY-MM-DD."),
    ("serial", "k" * 70_000, "The serial may not be greater than 65535 characters."),
    ("serial", "KEY\x00", "Null characters are not allowed."),
    ("serial", ["KEY"], "The serial must be a string."),
    ("license_name", "x" * 101, "The license name may not be greater than 100 characters."),
    ("license_email", "not an address", "The license email must be a valid email address."),
    ("license_email", "a" * 60 + "@" + "b" * 60 + ".com", "The license email may not be greater than 120 characters."),
    ("purchase_order", "x" * 256, "The purchase order may not be greater than 255 characters."),
    ("purchase_cost", "-1", "The purchase cost must be at least 0."),
    ("purchase_cost", "abc", "The purchase cost must be a number."),
    ("reassignable", "maybe", "The reassignable field must be true or false."),
    ("min_amt", -1, "The min amt must be at least 0."),
    ("name", "x" * 256, "The name may not be greater than 255 characters."),
])
def test_bad_values_are_refused_on_create_and_update(token_client, mode, field, value, message):
    license_ = LicenseFactory(serial="KEPT")
    before = state()
    created = token_client.post(URL, create_body(**{field: value}), format="json")
    assert refusal(created, mode, INVALID)["messages"] == {field: [message]}
    patched = token_client.patch(f"{URL}/{license_.pk}", {field: value}, format="json")
    assert refusal(patched, mode, INVALID)["messages"] == {field: [message]}
    assert state() == before


def test_a_product_key_of_65535_characters_is_kept_whole(token_client):
    body = token_client.post(URL, create_body(serial="k" * 65_535), format="json").json()
    assert body["status"] == "success" and body["payload"]["product_key"] == "k" * 65_535


def test_empty_dates_and_email_clear_them(token_client):
    license_ = LicenseFactory(expiration_date="2027-01-01", license_email="a@example.com")
    body = token_client.patch(f"{URL}/{license_.pk}", {"expiration_date": "", "license_email": None},
                              format="json").json()
    assert (body["payload"]["expiration_date"], body["payload"]["license_email"]) == (None, None)


@pytest.mark.parametrize("bad_id", ["99999999999999999999", str(2**63), "-1", "0", "1e3", "12abc"])
def test_impossible_license_ids_are_not_found(token_client, mode, bad_id):
    for method, path in (("get", f"{URL}/{bad_id}"), ("patch", f"{URL}/{bad_id}"), ("delete", f"{URL}/{bad_id}"),
                         ("post", f"{URL}/{bad_id}/restore")):
        response = getattr(token_client, method)(path, {}, format="json")
        assert refusal(response, mode, NOT_FOUND_STATUS)["message"] == NOT_FOUND, (method, path)


# --- seat checkout and checkin ------------------------------------------------------------------------------------


def seat_patch(client, license_: License, body: dict[str, Any], seat: LicenseSeat | None = None):
    seat = seat or first_seat(license_)
    return client.patch(f"{URL}/{license_.pk}/seats/{seat.pk}", body, format="json")


def test_a_user_and_an_asset_together_are_refused(token_client, mode):
    license_ = LicenseFactory()
    before = state()
    body = refusal(seat_patch(token_client, license_, {"assigned_to": UserFactory().pk,
                                                        "asset_id": AssetFactory().pk}), mode, INVALID)
    assert body["messages"] == {"assigned_to": [BOTH_TARGETS], "asset_id": [BOTH_TARGETS]}
    assert state() == before


def unusable_users() -> dict[str, Any]:
    return {
        "unknown": lambda: 999_999,
        "deleted": lambda: UserFactory(deleted_at=timezone.now()).pk,
        "inactive": lambda: UserFactory(is_active=False).pk,
        "huge": lambda: 2**63,
    }


@pytest.mark.parametrize("case", list(unusable_users()))
def test_an_unusable_user_is_an_unknown_target(token_client, mode, case):
    license_ = LicenseFactory()
    user_id = unusable_users()[case]()
    before = state()
    body = refusal(seat_patch(token_client, license_, {"assigned_to": user_id}), mode, INVALID)
    assert body["message"] == TARGET_NOT_FOUND
    assert body["messages"] == {"assigned_to": ["The selected assigned to is invalid."]}
    assert state() == before


@pytest.mark.parametrize("case", ["unknown", "deleted"])
def test_an_unusable_asset_is_an_unknown_target(token_client, mode, case):
    license_ = LicenseFactory()
    asset_id = 999_999 if case == "unknown" else AssetFactory(deleted_at=timezone.now()).pk
    before = state()
    body = refusal(seat_patch(token_client, license_, {"asset_id": asset_id}), mode, INVALID)
    assert (body["message"], body["messages"]) == (TARGET_NOT_FOUND,
                                                   {"asset_id": ["The selected asset id is invalid."]})
    assert state() == before


@pytest.mark.parametrize(("body", "messages"), [
    ({"assigned_to": "abc"}, {"assigned_to": ["The assigned to must be an integer."]}),
    ({"assigned_to": 1.5}, {"assigned_to": ["The assigned to must be an integer."]}),
    ({"asset_id": [1]}, {"asset_id": ["The asset id must be an integer."]}),
    ({"assigned_to": True}, {"assigned_to": ["The assigned to must be an integer."]}),
    ({"notes": "x" * 65_536}, {"notes": ["The notes may not be greater than 65535 characters."]}),
])
def test_malformed_seat_input_is_refused(token_client, mode, body, messages):
    license_ = LicenseFactory()
    seat_out(UserFactory(), license_)
    before = state()
    for seat in LicenseSeat.objects.filter(license=license_):
        assert refusal(seat_patch(token_client, license_, body, seat), mode, INVALID)["messages"] == messages
    assert state() == before


def test_a_seat_of_another_license_is_refused(token_client, mode):
    mine, other = LicenseFactory(), LicenseFactory()
    before = state()
    response = seat_patch(token_client, mine, {"assigned_to": UserFactory().pk}, first_seat(other))
    assert refusal(response, mode, NOT_FOUND_STATUS)["message"] == SEAT_OF_ANOTHER_LICENSE
    assert state() == before


def test_a_seat_of_a_deleted_license_cannot_be_checked_out(token_client, mode):
    license_ = LicenseFactory(deleted_at=timezone.now())
    before = state()
    response = seat_patch(token_client, license_, {"assigned_to": UserFactory().pk})
    assert refusal(response, mode, NOT_FOUND_STATUS)["message"] == (
        "License does not exist or you do not have permission to view it.")
    assert state() == before


def test_a_required_note_is_required_for_seat_checkouts_and_checkins(token_client, site_settings, mode):
    site_settings.require_checkinout_notes = True
    site_settings.save()
    license_ = LicenseFactory()
    held = seat_out(UserFactory(), license_)
    free = LicenseSeat.objects.filter(license=license_).free().get()
    before = state()
    for seat, body in ((free, {"assigned_to": UserFactory().pk}), (held, {"assigned_to": None})):
        response = seat_patch(token_client, license_, body, seat)
        assert refusal(response, mode, INVALID)["messages"] == {"note": ["The note field is required."]}
    assert state() == before
    assert seat_patch(token_client, license_, {"assigned_to": None, "notes": "back"}, held).json()["status"] == \
        "success"
