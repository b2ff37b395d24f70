"""Rules of ``/accessories`` and ``/consumables`` (API-CONTRACT.md §2, §10; reference §3.9, §3.10, §4.14) through the
HTTP API: bad input answers clearly and changes nothing (no item, no checkout row, no action-log row), quantities
stay exact through checkouts and checkins, and the main refusals answer in both error modes (``compat``: HTTP 200
with the error envelope; ``http``: 422 for input, 404 for an unknown or invisible id in the path, 409 for a refused
state change).

Users, companies, the catalogue, permissions, the nested lists under separation and the action log:
``test_api_stock_rules_scoping.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.services import USER_NOT_FOUND
from activity.models import ActionLog
from inventory.api.stock.serializers import TWO_TARGETS
from inventory.models import Accessory, AccessoryCheckout, Consumable, ConsumableAssignment
from inventory.stock import CHECKOUT_ROW_NOT_FOUND
from tests.api_mixins import ERROR_KEYS, MISSING, error_of, http_errors, same_answer, send
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    CategoryFactory,
    CompanyFactory,
    ConsumableFactory,
    LocationFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out

pytestmark = pytest.mark.django_db

ACCESSORIES = "/api/v1/accessories"
CONSUMABLES = "/api/v1/consumables"
URLS = {"accessory": ACCESSORIES, "consumable": CONSUMABLES}
FACTORIES: dict[str, Callable[..., Any]] = {"accessory": AccessoryFactory, "consumable": ConsumableFactory}
#: The key naming the user of a checkout (accessories: Snipe-IT v8's ``assigned_user``; consumables: ``assigned_to``).
USER_KEY = {"accessory": "assigned_user", "consumable": "assigned_to"}
#: Status of a refusal in ``http`` mode (``compat`` answers 200 with the same body).
INVALID, NOT_FOUND, CONFLICT = 422, 404, 409
DELETE_REFUSED = "This accessory cannot be deleted yet because some items are still checked out."
NOT_ENOUGH_CONSUMABLES = "There are not enough consumables for this checkout. Please check the quantity left."


def not_enough_accessories(remaining: int, quantity: int) -> str:
    if remaining == 1:
        return (f"There is currently only one available accessory of this type, and you are trying to check out "
                f"{quantity}. Please adjust the checkout quantity or the total stock of this accessory and try again.")
    return (f"There are {remaining} total available accessories, and you are trying to check out {quantity}. Please "
            f"adjust the checkout quantity or the total stock of this accessory and try again.")


def state() -> tuple[Any, ...]:
    """Everything a refused request must leave as it was: items, checkout rows, users and the action log."""
    return (
        list(Accessory.objects.order_by("pk").values()),
        list(AccessoryCheckout.objects.order_by("pk").values()),
        list(Consumable.objects.order_by("pk").values()),
        list(ConsumableAssignment.objects.order_by("pk").values()),
        list(User.objects.order_by("pk").values_list("pk", "deleted_at", "is_active", "company_id")),
        list(ActionLog.objects.order_by("pk").values_list("pk", flat=True)),
    )


@pytest.fixture(params=["compat", "http"])
def mode(request, settings) -> str:
    """Both error modes of API-CONTRACT.md §2."""
    if request.param == "http":
        http_errors(settings)
    return request.param


def refusal(response, mode: str, http_status: int) -> dict[str, Any]:
    """The error envelope, with the status ``mode`` gives it (200 in ``compat``, ``http_status`` in ``http``)."""
    assert response.status_code == (200 if mode == "compat" else http_status), response.content
    body = response.json()
    assert set(body) == ERROR_KEYS and body["status"] == "error" and body["payload"] is None, body
    assert body["message"] and isinstance(body["message"], str)
    return body


def succeeded(response) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == 200 and body["status"] == "success", body
    return body


def record(client, kind: str, item) -> dict[str, Any]:
    return client.get(f"{URLS[kind]}/{item.pk}").json()


def checkout(client, kind: str, item, target, quantity: int = 1, **extra: Any):
    return client.post(f"{URLS[kind]}/{item.pk}/checkout", {USER_KEY[kind]: target.pk, "checkout_qty": quantity,
                                                           **extra}, format="json")


def create_body(kind: str, **changes: Any) -> dict[str, Any]:
    return {"name": "Stock item", "qty": 5, "category_id": CategoryFactory(category_type=kind).pk, **changes}


# --- creating and editing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize(("qty", "message"), [
    (0, "The qty must be at least 1."),
    (-1, "The qty must be at least 1."),
    (1.5, "The qty must be an integer."),
    ("abc", "The qty must be an integer."),
    (True, "The qty must be an integer."),
    ([5], "The qty must be an integer."),
    (100_001, "The qty may not be greater than 100000."),
    (None, "The qty field is required."),
])
def test_qty_is_a_whole_number_from_1_to_100000(token_client, mode, kind, qty, message):
    """On create and on update alike; nothing is written."""
    body = create_body(kind, qty=qty)
    item = FACTORIES[kind](qty=5)
    before = state()
    assert refusal(token_client.post(URLS[kind], body, format="json"), mode, INVALID)["messages"] == {"qty": [message]}
    if qty is not None:  # a PATCH that leaves qty out keeps it; an explicit null is refused differently
        patched = token_client.patch(f"{URLS[kind]}/{item.pk}", {"qty": qty}, format="json")
        assert refusal(patched, mode, INVALID)["messages"] == {"qty": [message]}
    assert state() == before


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize("qty", [1, 100_000, "7"])
def test_qty_bounds_are_accepted(token_client, kind, qty):
    body = succeeded(token_client.post(URLS[kind], create_body(kind, qty=qty), format="json"))
    assert body["payload"]["qty"] == body["payload"]["remaining"] == int(qty)


@pytest.mark.parametrize("kind", URLS)
def test_create_reports_every_missing_required_field_at_once(token_client, mode, kind):
    before = state()
    response = token_client.post(URLS[kind], {"notes": "nothing else"}, format="json")
    assert refusal(response, mode, INVALID)["messages"] == {
        "name": ["The name field is required."],
        "qty": ["The qty field is required."],
        "category_id": ["The category id field is required."],
    }
    assert state() == before


@pytest.mark.parametrize(("kind", "category_type", "message"), [
    ("accessory", "consumable", "The category must be an accessory category."),
    ("accessory", "asset", "The category must be an accessory category."),
    ("consumable", "accessory", "The category must be a consumable category."),
    ("consumable", "asset", "The category must be a consumable category."),
])
def test_a_category_of_another_type_is_refused(token_client, mode, kind, category_type, message):
    wrong = CategoryFactory(category_type=category_type)
    item = FACTORIES[kind]()
    before = state()
    created = token_client.post(URLS[kind], create_body(kind, category_id=wrong.pk), format="json")
    assert refusal(created, mode, INVALID)["messages"] == {"category_id": [message]}
    for method in ("patch", "put"):
        changed = send(token_client, method, f"{URLS[kind]}/{item.pk}", {"category_id": wrong.pk})
        assert refusal(changed, mode, INVALID)["messages"] == {"category_id": [message]}
    assert state() == before


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize(("field", "value", "message"), [
    ("name", "USB\x00dock", "Null characters are not allowed."),
    ("notes", "spare\x00", "Null characters are not allowed."),
    ("model_number", "\x00", "Null characters are not allowed."),
    ("name", "x" * 256, "The name may not be greater than 255 characters."),
    ("order_number", "x" * 256, "The order number may not be greater than 255 characters."),
])
def test_text_with_nul_bytes_or_too_long_is_refused(token_client, mode, kind, field, value, message):
    item = FACTORIES[kind]()
    before = state()
    created = token_client.post(URLS[kind], create_body(kind, **{field: value}), format="json")
    assert refusal(created, mode, INVALID)["messages"] == {field: [message]}
    patched = token_client.patch(f"{URLS[kind]}/{item.pk}", {field: value}, format="json")
    assert refusal(patched, mode, INVALID)["messages"] == {field: [message]}
    assert state() == before


@pytest.mark.parametrize("kind", URLS)
def test_a_name_of_255_characters_is_kept_whole(token_client, kind):
    body = succeeded(token_client.post(URLS[kind], create_body(kind, name="x" * 255), format="json"))
    assert body["payload"]["name"] == "x" * 255


# --- ids ---------------------------------------------------------------------------------------------------------

HUGE_IDS = ("99999999999999999999", str(2**63), str(2**62), "-1", "0", "1e3", "12abc")


@pytest.mark.parametrize(("method", "path", "message"), [
    ("get", ACCESSORIES + "/{id}", "Accessory not found"),
    ("patch", ACCESSORIES + "/{id}", "Accessory not found"),
    ("put", ACCESSORIES + "/{id}", "Accessory not found"),
    ("delete", ACCESSORIES + "/{id}", "Accessory not found"),
    ("post", ACCESSORIES + "/{id}/restore", "Accessory not found"),
    ("post", ACCESSORIES + "/{id}/checkout", "Accessory not found"),
    ("post", ACCESSORIES + "/{id}/checkin", CHECKOUT_ROW_NOT_FOUND),
    ("get", ACCESSORIES + "/{id}/checkedout", "Accessory not found"),
    ("get", CONSUMABLES + "/{id}", "Consumable not found"),
    ("patch", CONSUMABLES + "/{id}", "Consumable not found"),
    ("delete", CONSUMABLES + "/{id}", "Consumable not found"),
    ("post", CONSUMABLES + "/{id}/restore", "Consumable not found"),
    ("post", CONSUMABLES + "/{id}/checkout", "Consumable does not exist."),
    ("get", CONSUMABLES + "/{id}/users", "Consumable not found"),
    ("get", "/api/v1/users/{id}/accessories", USER_NOT_FOUND),
    ("get", "/api/v1/users/{id}/consumables", USER_NOT_FOUND),
    ("get", "/api/v1/hardware/{id}/assigned/accessories", "Asset does not exist."),
    ("get", "/api/v1/locations/{id}/assigned/accessories", "Location not found"),
])
def test_huge_or_malformed_ids_in_paths_are_not_found(token_client, mode, method, path, message):
    AccessoryFactory(), ConsumableFactory()
    body = {"name": "x", "assigned_user": UserFactory().pk, "assigned_to": UserFactory().pk}
    before = state()
    for bad_id in HUGE_IDS:
        response = send(token_client, method, path.format(id=bad_id), body)
        assert refusal(response, mode, NOT_FOUND)["message"] == message, bad_id
    assert state() == before


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize("field", ["category_id", "company_id", "manufacturer_id", "supplier_id", "location_id"])
def test_huge_ids_in_a_write_body_are_unknown_ids(token_client, mode, kind, field):
    item = FACTORIES[kind]()
    before = state()
    message = f"The selected {field.replace('_', ' ')} is invalid."
    for value in (2**63, 10**30, "99999999999999999999", -1, MISSING):
        created = token_client.post(URLS[kind], create_body(kind, **{field: value}), format="json")
        assert refusal(created, mode, INVALID)["messages"] == {field: [message]}, value
        patched = token_client.patch(f"{URLS[kind]}/{item.pk}", {field: value}, format="json")
        assert refusal(patched, mode, INVALID)["messages"] == {field: [message]}, value
    assert state() == before


@pytest.mark.parametrize(("kind", "key", "message"), [
    ("accessory", "assigned_user", "User not found"),
    ("accessory", "assigned_asset", "Asset not found"),
    ("accessory", "assigned_location", "Location not found"),
    ("consumable", "assigned_to", "User not found"),
])
def test_huge_ids_of_checkout_targets_are_unknown_targets(token_client, mode, kind, key, message):
    item = FACTORIES[kind]()
    before = state()
    for value in (2**63, 10**30, "99999999999999999999", -5, MISSING):
        response = token_client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: value}, format="json")
        body = refusal(response, mode, INVALID)
        assert body["message"] == message, value
        assert body["messages"] == {key: [f"The selected {key.replace('_', ' ')} is invalid."]}
    assert state() == before


def test_huge_quantities_are_refused(token_client, mode):
    accessory, consumable, target = AccessoryFactory(), ConsumableFactory(), UserFactory()
    row = accessory_out(UserFactory(), accessory, 2)
    before = state()
    for kind, item in (("accessory", accessory), ("consumable", consumable)):
        response = checkout(token_client, kind, item, target, quantity=2**40)
        assert refusal(response, mode, INVALID)["messages"] == {
            "checkout_qty": ["The checkout qty may not be greater than 2147483647."]}
    response = token_client.post(f"{ACCESSORIES}/{row.pk}/checkin", {"checkin_qty": 2**70}, format="json")
    assert refusal(response, mode, INVALID)["messages"] == {
        "checkin_qty": ["The checkin qty may not be greater than 2147483647."]}
    assert state() == before


# --- lists -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize("sort", [
    "name; DROP TABLE inventory_accessory", "qty desc, (SELECT 1)", "id) --", "remaining DESC", "category__name",
    "__class__", "",
])
def test_sort_injection_falls_back_to_created_at(token_client, kind, sort):
    items = [FACTORIES[kind](name=name) for name in ("Bravo", "Alpha", "Charlie")]
    response = token_client.get(URLS[kind], {"sort": sort, "order": "asc; DROP TABLE x"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["total"] == 3
    assert [row["id"] for row in body["rows"]] == [item.pk for item in reversed(items)]  # created_at desc, id desc
    assert FACTORIES[kind]._meta.model.objects.count() == 3


# --- checkout ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize(("quantity", "message"), [
    (0, "The checkout qty must be at least 1."),
    (-2, "The checkout qty must be at least 1."),
    ("abc", "The checkout qty must be an integer."),
    (1.5, "The checkout qty must be an integer."),
    (4, None),  # more than the 3 that remain
])
def test_checkout_qty_must_fit_what_remains(token_client, mode, kind, quantity, message):
    item, target = FACTORIES[kind](qty=5), UserFactory()
    succeeded(checkout(token_client, kind, item, UserFactory(), quantity=2))
    before = state()
    response = checkout(token_client, kind, item, target, quantity=quantity)
    if message is None:
        message = not_enough_accessories(3, 4) if kind == "accessory" else NOT_ENOUGH_CONSUMABLES
    assert refusal(response, mode, INVALID)["messages"] == {"checkout_qty": [message]}
    assert state() == before
    assert record(token_client, kind, item)["remaining"] == 3


def test_the_last_accessory_is_named_in_the_refusal(token_client, mode):
    accessory, target = AccessoryFactory(qty=2), UserFactory()
    succeeded(checkout(token_client, "accessory", accessory, UserFactory()))
    before = state()
    response = checkout(token_client, "accessory", accessory, target, quantity=2)
    assert refusal(response, mode, INVALID)["messages"] == {"checkout_qty": [not_enough_accessories(1, 2)]}
    assert state() == before


def _deleted_user() -> User:
    return UserFactory(deleted_at=timezone.now())


ACCESSORY_TARGET_REFUSALS = [
    pytest.param(lambda: {}, {
        "assigned_user": ["The assigned user field is required when none of assigned asset / assigned location are "
                          "present."],
        "assigned_asset": ["The assigned asset field is required when none of assigned user / assigned location are "
                           "present."],
        "assigned_location": ["The assigned location field is required when none of assigned user / assigned asset "
                              "are present."],
    }, id="no-target"),
    pytest.param(lambda: {"assigned_user": UserFactory().pk, "assigned_location": LocationFactory().pk},
                 {"assigned_location": ["Only one of assigned_user, assigned_asset or assigned_location may be "
                                        "given."]}, id="user-and-location"),
    pytest.param(lambda: {"assigned_to": UserFactory().pk, "assigned_location": LocationFactory().pk},
                 {"assigned_to": [TWO_TARGETS.format(key="assigned_location")]}, id="legacy-and-location"),
    pytest.param(lambda: {"assigned_to": UserFactory().pk, "assigned_user": UserFactory().pk},
                 {"assigned_to": [TWO_TARGETS.format(key="assigned_user")]}, id="legacy-and-another-user"),
    pytest.param(lambda: {"assigned_to": LocationFactory().pk, "checkout_to_type": "location",
                          "assigned_asset": AssetFactory().pk},
                 {"assigned_to": [TWO_TARGETS.format(key="assigned_asset")]}, id="legacy-location-and-asset"),
    pytest.param(lambda: {"assigned_user": UserFactory().pk, "checkout_to_type": "asset"},
                 {"checkout_to_type": ["The checkout to type does not match the target given (assigned_user)."]},
                 id="type-mismatch"),
    pytest.param(lambda: {"assigned_to": UserFactory().pk, "checkout_to_type": "printer"},
                 {"checkout_to_type": ["The selected checkout to type is invalid."]}, id="unknown-type"),
    pytest.param(lambda: {"assigned_user": _deleted_user().pk},
                 {"assigned_user": ["The selected assigned user is invalid."]}, id="deleted-user"),
    pytest.param(lambda: {"assigned_user": UserFactory(is_active=False).pk},
                 {"assigned_user": ["The selected assigned user is invalid."]}, id="inactive-user"),
    pytest.param(lambda: {"assigned_asset": AssetFactory(deleted_at=timezone.now()).pk},
                 {"assigned_asset": ["The selected assigned asset is invalid."]}, id="deleted-asset"),
]
CONSUMABLE_TARGET_REFUSALS = [
    pytest.param(lambda: {}, {"assigned_to": ["The assigned to field is required."]}, id="no-target"),
    pytest.param(lambda: {"assigned_asset": AssetFactory().pk}, {"assigned_to": ["The assigned to field is required."]},
                 id="asset-is-no-target"),
    pytest.param(lambda: {"assigned_to": UserFactory().pk, "assigned_user": UserFactory().pk},
                 {"assigned_to": [TWO_TARGETS.format(key="assigned_user")]}, id="two-users"),
    pytest.param(lambda: {"assigned_to": _deleted_user().pk},
                 {"assigned_to": ["The selected assigned to is invalid."]}, id="deleted-user"),
    pytest.param(lambda: {"assigned_to": UserFactory(is_active=False).pk},
                 {"assigned_to": ["The selected assigned to is invalid."]}, id="inactive-user"),
]


@pytest.mark.parametrize(("body", "messages"), ACCESSORY_TARGET_REFUSALS)
def test_accessory_checkout_needs_exactly_one_usable_target(token_client, mode, body, messages):
    accessory = AccessoryFactory()
    data = body()
    before = state()
    response = token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkout", data, format="json")
    assert refusal(response, mode, INVALID)["messages"] == messages
    assert state() == before


@pytest.mark.parametrize(("body", "messages"), CONSUMABLE_TARGET_REFUSALS)
def test_consumable_checkout_needs_exactly_one_usable_user(token_client, mode, body, messages):
    consumable = ConsumableFactory()
    data = body()
    before = state()
    response = token_client.post(f"{CONSUMABLES}/{consumable.pk}/checkout", data, format="json")
    assert refusal(response, mode, INVALID)["messages"] == messages
    assert state() == before


@pytest.mark.parametrize("kind", URLS)
def test_an_unusable_user_answers_exactly_as_an_unknown_one(token_client, mode, kind):
    item = FACTORIES[kind]()
    missing = token_client.post(f"{URLS[kind]}/{item.pk}/checkout", {USER_KEY[kind]: MISSING}, format="json")
    for user in (_deleted_user(), UserFactory(is_active=False)):
        before = state()
        response = token_client.post(f"{URLS[kind]}/{item.pk}/checkout", {USER_KEY[kind]: user.pk}, format="json")
        same_answer(response, missing)
        assert state() == before


@pytest.mark.parametrize("kind", URLS)
def test_the_same_target_twice_is_one_target(token_client, kind):
    """``assigned_to`` beside ``assigned_user`` naming the same user is not two targets (a client in transition)."""
    item, user = FACTORIES[kind](), UserFactory()
    body = {"assigned_to": user.pk, "assigned_user": str(user.pk)}
    succeeded(token_client.post(f"{URLS[kind]}/{item.pk}/checkout", body, format="json"))
    rows = AccessoryCheckout if kind == "accessory" else ConsumableAssignment
    assert list(rows.objects.values_list("assigned_user_id", flat=True)) == [user.pk]


def test_the_same_location_twice_is_one_target(token_client):
    accessory, location = AccessoryFactory(), LocationFactory()
    body = {"assigned_to": location.pk, "checkout_to_type": "location", "assigned_location": location.pk}
    succeeded(token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkout", body, format="json"))
    assert list(AccessoryCheckout.objects.values_list("assigned_location_id", flat=True)) == [location.pk]


@pytest.mark.parametrize(("kind", "key", "owner"), [
    ("accessory", "assigned_user", UserFactory),
    ("accessory", "assigned_asset", AssetFactory),
    ("consumable", "assigned_to", UserFactory),
])
def test_another_companys_target_answers_exactly_as_an_unknown_one(make_client, fmcs_on, mode, kind, key, owner):
    """Separation on (rule 4): a company user checking out their own company's item to another company's user or
    asset gets the answer of an unknown id, in both error modes; their own company's target is accepted."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    section = "accessories" if kind == "accessory" else "consumables"
    client = make_client(UserFactory(company=ours, permissions={f"{section}.checkout": 1}))
    item, target, own_target = FACTORIES[kind](company=ours), owner(company=theirs), owner(company=ours)
    before = state()
    response = client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: target.pk}, format="json")
    same_answer(response, client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: MISSING}, format="json"))
    refusal(response, mode, INVALID)
    assert state() == before
    succeeded(client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: own_target.pk}, format="json"))


# --- checkin -----------------------------------------------------------------------------------------------------


def test_checkin_of_a_row_already_checked_in_is_not_found(token_client, mode):
    row = accessory_out(UserFactory(), AccessoryFactory(), 2)
    succeeded(token_client.post(f"{ACCESSORIES}/{row.pk}/checkin", {}, format="json"))
    before = state()
    response = token_client.post(f"{ACCESSORIES}/{row.pk}/checkin", {}, format="json")
    assert refusal(response, mode, NOT_FOUND)["message"] == CHECKOUT_ROW_NOT_FOUND
    assert state() == before


def test_checkin_of_another_companys_row_answers_exactly_as_a_missing_row(make_client, fmcs_on, mode):
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions={"accessories.checkin": 1}))
    row = accessory_out(UserFactory(company=theirs), AccessoryFactory(company=theirs), 2)
    before = state()
    response = client.post(f"{ACCESSORIES}/{row.pk}/checkin", {}, format="json")
    same_answer(response, client.post(f"{ACCESSORIES}/{MISSING}/checkin", {}, format="json"))
    assert refusal(response, mode, NOT_FOUND)["message"] == CHECKOUT_ROW_NOT_FOUND
    assert state() == before
    mine = accessory_out(UserFactory(company=ours), AccessoryFactory(company=ours), 1)
    succeeded(client.post(f"{ACCESSORIES}/{mine.pk}/checkin", {}, format="json"))


def test_an_accessory_id_is_not_a_checkout_row_id(token_client, mode):
    """``accessories/{id}/checkin`` takes the checkout row's id (Snipe-IT's route): the accessory's own id names no
    row and checks nothing in."""
    accessory = AccessoryFactory(qty=5)
    row = accessory_out(UserFactory(), accessory, 2)
    if row.pk == accessory.pk:  # make the ids differ, so the request below cannot name the row by chance
        row.delete()
        row = accessory_out(UserFactory(), accessory, 2)
    assert row.pk != accessory.pk and not AccessoryCheckout.objects.filter(pk=accessory.pk).exists()
    before = state()
    response = token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkin", {}, format="json")
    assert refusal(response, mode, NOT_FOUND)["message"] == CHECKOUT_ROW_NOT_FOUND
    assert state() == before


def test_checkin_qty_returns_part_of_a_row_and_logs_it(token_client, superuser, mode):
    holder = UserFactory()
    accessory = AccessoryFactory(qty=5)
    row_id = succeeded(checkout(token_client, "accessory", accessory, holder, quantity=3))["payload"]["id"]
    path = f"{ACCESSORIES}/{row_id}/checkin"

    body = succeeded(token_client.post(path, {"checkin_qty": 1, "note": "one back"}, format="json"))
    assert body["messages"] == "Accessory checked in successfully."
    assert AccessoryCheckout.objects.get(pk=row_id).assigned_qty == 2
    assert record(token_client, "accessory", accessory)["remaining"] == 3
    log = ActionLog.objects.filter(item_type="accessory", item_id=accessory.pk, action_type="checkin from").get()
    assert (log.target_type, log.target_id, log.note, log.created_by) == ("user", holder.pk, "one back", superuser)
    assert log.log_meta == {"checkin_qty": {"old": None, "new": 1}, "assigned_qty": {"old": 3, "new": 2}}

    before = state()
    for quantity, message in ((3, "The checkin qty may not be greater than 2."),
                              (0, "The checkin qty must be at least 1."),
                              ("abc", "The checkin qty must be an integer."),
                              (1.5, "The checkin qty must be an integer.")):
        response = token_client.post(path, {"checkin_qty": quantity}, format="json")
        assert refusal(response, mode, INVALID)["messages"] == {"checkin_qty": [message]}, quantity
    assert state() == before

    succeeded(token_client.post(path, {"checkin_qty": 2}, format="json"))
    assert not AccessoryCheckout.objects.filter(pk=row_id).exists()
    assert record(token_client, "accessory", accessory)["remaining"] == 5


# --- quantities ----------------------------------------------------------------------------------------------------


def test_remaining_stays_exact_through_checkouts_and_checkins(token_client):
    accessory = AccessoryFactory(qty=10)
    user, asset, location = UserFactory(), AssetFactory(), LocationFactory()
    to_user = succeeded(checkout(token_client, "accessory", accessory, user, quantity=3))["payload"]["id"]
    succeeded(token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkout",
                                {"assigned_asset": asset.pk, "checkout_qty": 2}, format="json"))
    to_location = succeeded(token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkout",
                                              {"assigned_location": location.pk}, format="json"))["payload"]["id"]
    assert record(token_client, "accessory", accessory)["remaining"] == 4
    succeeded(token_client.post(f"{ACCESSORIES}/{to_user}/checkin", {"checkin_qty": 1}, format="json"))
    succeeded(token_client.post(f"{ACCESSORIES}/{to_location}/checkin", {}, format="json"))

    shown = record(token_client, "accessory", accessory)
    assert (shown["qty"], shown["remaining"], shown["remaining_qty"], shown["checkouts_count"]) == (10, 6, 6, 4)
    listed = next(row for row in token_client.get(ACCESSORIES).json()["rows"] if row["id"] == accessory.pk)
    assert listed["remaining"] == 6 and listed["checkouts_count"] == 4
    rows = token_client.get(f"{ACCESSORIES}/{accessory.pk}/checkedout").json()
    assert rows["total"] == 2 and sum(row["checkout_qty"] for row in rows["rows"]) == 4

    succeeded(checkout(token_client, "accessory", accessory, UserFactory(), quantity=6))
    shown = record(token_client, "accessory", accessory)
    assert shown["remaining"] == 0 and shown["user_can_checkout"] is False
    assert shown["available_actions"]["checkout"] is False
    assert "checkout_qty" in error_of(checkout(token_client, "accessory", accessory, user))


def test_consumed_units_count_against_remaining_but_never_block_deletes(token_client):
    """Consumables are used up: their units lower ``remaining`` for good and keep ``qty`` from going below them, but
    neither the consumable nor the user who took them is kept from being deleted (API-CONTRACT.md §10)."""
    consumable = ConsumableFactory(qty=10)
    taker, other = UserFactory(), UserFactory()
    succeeded(checkout(token_client, "consumable", consumable, taker, quantity=3))
    succeeded(checkout(token_client, "consumable", consumable, other, quantity=4))
    assert record(token_client, "consumable", consumable)["remaining"] == 3
    holders = token_client.get(f"{CONSUMABLES}/{consumable.pk}/users").json()
    assert holders["total"] == 2 and sorted(row["checkout_qty"] for row in holders["rows"]) == [3, 4]
    assert "checkout_qty" in error_of(checkout(token_client, "consumable", consumable, taker, quantity=4))

    body = succeeded(token_client.delete(f"/api/v1/users/{taker.pk}"))
    assert body["messages"] == "User was successfully deleted."
    taker.refresh_from_db()
    assert taker.deleted_at is not None
    assert record(token_client, "consumable", consumable)["remaining"] == 3  # consumed for good

    succeeded(token_client.delete(f"{CONSUMABLES}/{consumable.pk}"))
    restored = succeeded(token_client.post(f"{CONSUMABLES}/{consumable.pk}/restore"))["payload"]
    assert restored["remaining"] == 3 and ConsumableAssignment.objects.filter(consumable=consumable).count() == 2


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize("method", ["patch", "put"])
def test_qty_never_goes_below_what_is_out(token_client, mode, kind, method):
    """Units out (accessories) and consumed (consumables) hold ``qty`` up; PUT is as partial as PATCH."""
    item = FACTORIES[kind](qty=5)
    succeeded(checkout(token_client, kind, item, UserFactory(), quantity=2))
    succeeded(checkout(token_client, kind, item, UserFactory(), quantity=1))
    before = state()
    response = send(token_client, method, f"{URLS[kind]}/{item.pk}", {"qty": 2, "name": "Renamed"})
    assert refusal(response, mode, INVALID)["messages"] == {"qty": ["The qty must be at least 3: 3 are checked out."]}
    assert state() == before
    body = succeeded(send(token_client, method, f"{URLS[kind]}/{item.pk}", {"qty": 3}))
    assert body["payload"]["qty"] == 3 and body["payload"]["remaining"] == 0


def test_an_accessory_with_units_out_cannot_be_deleted(token_client, mode):
    accessory = AccessoryFactory(qty=5)
    row_id = succeeded(checkout(token_client, "accessory", accessory, UserFactory(), quantity=2))["payload"]["id"]
    assert record(token_client, "accessory", accessory)["available_actions"]["delete"] is False
    before = state()
    response = token_client.delete(f"{ACCESSORIES}/{accessory.pk}")
    assert refusal(response, mode, CONFLICT) == {"status": "error", "message": DELETE_REFUSED,
                                                 "messages": DELETE_REFUSED, "payload": None}
    assert state() == before
    succeeded(token_client.post(f"{ACCESSORIES}/{row_id}/checkin", {}, format="json"))
    assert succeeded(token_client.delete(f"{ACCESSORIES}/{accessory.pk}"))["messages"] == (
        "The accessory was deleted successfully.")
