"""Rules of ``/accessories``, ``/consumables`` and ``/components`` (API-CONTRACT.md §2, §10; reference §3.9 to
§3.11, §4.14) through the HTTP API: bad input answers clearly and changes nothing (no item, no checkout row, no
action-log row), quantities stay exact through checkouts and checkins, and the main refusals answer in both error
modes (``compat``: HTTP 200 with the error envelope; ``http``: 422 for input, 404 for an unknown or invisible id in
the path, 409 for a refused state change). A rule the kinds share is one test parametrized over the tables below;
what only components have is in ``test_api_component_rules.py``.

Users, companies, the catalogue, permissions, the nested lists under separation and the action log:
``test_api_stock_rules_scoping.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.services import USER_NOT_FOUND
from activity.models import ActionLog
from inventory.api.stock.serializers import TWO_TARGETS
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
)
from inventory.services.stock import CHECKOUT_ROW_NOT_FOUND, COMPONENT_ROW_NOT_FOUND
from tests.api_mixins import ERROR_KEYS, MISSING, error_of, http_errors, same_answer, send
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    CategoryFactory,
    CompanyFactory,
    ComponentFactory,
    ConsumableFactory,
    LocationFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, component_in

pytestmark = pytest.mark.django_db

ACCESSORIES = "/api/v1/accessories"
CONSUMABLES = "/api/v1/consumables"
COMPONENTS = "/api/v1/components"
URLS = {"accessory": ACCESSORIES, "consumable": CONSUMABLES, "component": COMPONENTS}
FACTORIES: dict[str, Callable[..., Any]] = {"accessory": AccessoryFactory, "consumable": ConsumableFactory,
                                            "component": ComponentFactory}
#: The permission section of each kind.
SECTIONS = {"accessory": "accessories", "consumable": "consumables", "component": "components"}
#: The key naming the target of a checkout and the factory of a usable target (accessories: Snipe-IT v8's
#: ``assigned_user``; consumables: a user in ``assigned_to``; components: an asset in ``assigned_to``).
TARGETS: dict[str, tuple[str, Callable[..., Any]]] = {
    "accessory": ("assigned_user", UserFactory), "consumable": ("assigned_to", UserFactory),
    "component": ("assigned_to", AssetFactory)}
#: The quantity key of a checkout.
QTY_KEYS = {"accessory": "checkout_qty", "consumable": "checkout_qty", "component": "assigned_qty"}
#: The kinds checked out to users.
USER_KINDS = ("accessory", "consumable")
ROW_MODELS = {"accessory": AccessoryCheckout, "consumable": ConsumableAssignment, "component": ComponentAssignment}


class RowKind(NamedTuple):
    """A kind checked in by the id of its assignment row (``POST <kind>/{row_id}/checkin``)."""

    #: Units of an item put out directly to a new holder (test setup).
    put_out: Callable[[Any, int], Any]
    #: The refusal of a row that does not exist, is gone, or belongs to an invisible item.
    not_found: str
    #: The key of the new row's id in a checkout's payload.
    id_key: str
    target_type: str
    checked_in: str


ROW_KINDS = {
    "accessory": RowKind(lambda item, qty: accessory_out(UserFactory(), item, qty), CHECKOUT_ROW_NOT_FOUND, "id",
                         "user", "Accessory checked in successfully."),
    "component": RowKind(lambda item, qty: component_in(AssetFactory(), item, qty), COMPONENT_ROW_NOT_FOUND,
                         "assigned_pivot_id", "asset", "Component checked in successfully."),
}
#: Status of a refusal in ``http`` mode (``compat`` answers 200 with the same body).
INVALID, NOT_FOUND, CONFLICT = 422, 404, 409
#: Reference §4.14: the kinds that may not be deleted while units are out.
DELETE_REFUSED = {
    "accessory": "This accessory cannot be deleted yet because some items are still checked out.",
    "component": "Some components of this type are still checked out. Please check them in and try again.",
}
NOT_ENOUGH_CONSUMABLES = "There are not enough consumables for this checkout. Please check the quantity left."


def not_enough_accessories(remaining: int, quantity: int) -> str:
    if remaining == 1:
        return (f"There is currently only one available accessory of this type, and you are trying to check out "
                f"{quantity}. Please adjust the checkout quantity or the total stock of this accessory and try again.")
    return (f"There are {remaining} total available accessories, and you are trying to check out {quantity}. Please "
            f"adjust the checkout quantity or the total stock of this accessory and try again.")


def not_enough(kind: str, remaining: int, quantity: int) -> str:
    """Each kind's text for a checkout of more than remains."""
    if kind == "accessory":
        return not_enough_accessories(remaining, quantity)
    if kind == "component":
        return f"Not enough components remaining: {remaining} remaining, {quantity} requested"
    return NOT_ENOUGH_CONSUMABLES


def state() -> tuple[Any, ...]:
    """Everything a refused request must leave as it was: items, checkout rows, users, assets and the action log."""
    return (
        *(list(model.objects.order_by("pk").values()) for model in (
            Accessory, AccessoryCheckout, Consumable, ConsumableAssignment, Component, ComponentAssignment)),
        list(User.objects.order_by("pk").values_list("pk", "deleted_at", "is_active", "company_id")),
        list(Asset.objects.order_by("pk").values_list("pk", "deleted_at", "assigned_asset_id", "updated_at")),
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


def checkout(client, kind: str, item, target=None, quantity: Any = 1, **extra: Any):
    """A checkout of ``quantity`` units of ``item`` to ``target`` (a new usable target of the kind by default)."""
    key, make_target = TARGETS[kind]
    target = target if target is not None else make_target()
    return client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: target.pk, QTY_KEYS[kind]: quantity, **extra},
                       format="json")


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
    ("component", "accessory", "The category must be a component category."),
    ("component", "asset", "The category must be a component category."),
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


#: Each kind's "not found" of an item in the path.
ITEM_NOT_FOUND = {"accessory": "Accessory not found", "consumable": "Consumable not found",
                  "component": "Component not found"}


@pytest.mark.parametrize(("method", "path", "message"), [
    *((method, URLS[kind] + suffix, ITEM_NOT_FOUND[kind]) for kind in URLS
      for method, suffix in (("get", "/{id}"), ("patch", "/{id}"), ("put", "/{id}"), ("delete", "/{id}"),
                             ("post", "/{id}/restore"))),
    ("post", ACCESSORIES + "/{id}/checkout", "Accessory not found"),
    ("post", ACCESSORIES + "/{id}/checkin", CHECKOUT_ROW_NOT_FOUND),
    ("get", ACCESSORIES + "/{id}/checkedout", "Accessory not found"),
    ("post", CONSUMABLES + "/{id}/checkout", "Consumable does not exist."),
    ("get", CONSUMABLES + "/{id}/users", "Consumable not found"),
    ("post", COMPONENTS + "/{id}/checkout", "Component does not exist."),
    ("post", COMPONENTS + "/{id}/checkin", COMPONENT_ROW_NOT_FOUND),
    ("get", COMPONENTS + "/{id}/assets", "Component not found"),
    ("get", "/api/v1/users/{id}/accessories", USER_NOT_FOUND),
    ("get", "/api/v1/users/{id}/consumables", USER_NOT_FOUND),
    ("get", "/api/v1/hardware/{id}/assigned/accessories", "Asset does not exist."),
    ("get", "/api/v1/hardware/{id}/components", "Asset does not exist."),
    ("get", "/api/v1/locations/{id}/assigned/accessories", "Location not found"),
])
def test_huge_or_malformed_ids_in_paths_are_not_found(token_client, mode, method, path, message):
    AccessoryFactory(), ConsumableFactory(), ComponentFactory()
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
    ("component", "assigned_to", "Asset not found"),
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


@pytest.mark.parametrize("kind", URLS)
def test_huge_quantities_are_refused(token_client, mode, kind):
    item = FACTORIES[kind]()
    row = ROW_KINDS[kind].put_out(item, 2) if kind in ROW_KINDS else None
    target = TARGETS[kind][1]()
    before = state()
    field = QTY_KEYS[kind]
    response = checkout(token_client, kind, item, target, quantity=2**40)
    assert refusal(response, mode, INVALID)["messages"] == {
        field: [f"The {field.replace('_', ' ')} may not be greater than 2147483647."]}
    if row is not None:
        response = token_client.post(f"{URLS[kind]}/{row.pk}/checkin", {"checkin_qty": 2**70}, format="json")
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
    (0, "The {field} must be at least 1."),
    (-2, "The {field} must be at least 1."),
    ("abc", "The {field} must be an integer."),
    (1.5, "The {field} must be an integer."),
    (4, None),  # more than the 3 that remain
])
def test_checkout_quantity_must_fit_what_remains(token_client, mode, kind, quantity, message):
    """``checkout_qty`` (accessories, consumables) or ``assigned_qty`` (components): a field error on that key."""
    item, target, field = FACTORIES[kind](qty=5), TARGETS[kind][1](), QTY_KEYS[kind]
    succeeded(checkout(token_client, kind, item, quantity=2))
    before = state()
    response = checkout(token_client, kind, item, target, quantity=quantity)
    message = not_enough(kind, 3, 4) if message is None else message.format(field=field.replace("_", " "))
    assert refusal(response, mode, INVALID)["messages"] == {field: [message]}
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
REQUIRED = {"assigned_to": ["The assigned to field is required."]}
INVALID_TARGET = {"assigned_to": ["The selected assigned to is invalid."]}
#: Consumables (a user) and components (an asset): one target, ``assigned_to`` or the shared key of its type.
SINGLE_TARGET_REFUSALS = [
    pytest.param("consumable", lambda: {}, REQUIRED, id="consumable-no-target"),
    pytest.param("consumable", lambda: {"assigned_asset": AssetFactory().pk}, REQUIRED,
                 id="consumable-asset-is-no-target"),
    pytest.param("consumable", lambda: {"assigned_to": UserFactory().pk, "assigned_user": UserFactory().pk},
                 {"assigned_to": [TWO_TARGETS.format(key="assigned_user")]}, id="consumable-two-users"),
    pytest.param("consumable", lambda: {"assigned_to": _deleted_user().pk}, INVALID_TARGET,
                 id="consumable-deleted-user"),
    pytest.param("consumable", lambda: {"assigned_to": UserFactory(is_active=False).pk}, INVALID_TARGET,
                 id="consumable-inactive-user"),
    pytest.param("component", lambda: {}, REQUIRED, id="component-no-asset"),
    pytest.param("component", lambda: {"assigned_to": None, "assigned_qty": 1}, REQUIRED, id="component-null-asset"),
    pytest.param("component", lambda: {"assigned_user": UserFactory().pk}, REQUIRED, id="component-user-is-no-target"),
    pytest.param("component", lambda: {"assigned_to": "abc"}, {"assigned_to": ["The assigned to must be an integer."]},
                 id="component-text-id"),
    pytest.param("component", lambda: {"assigned_to": AssetFactory().pk, "assigned_asset": AssetFactory().pk},
                 {"assigned_to": [TWO_TARGETS.format(key="assigned_asset")]}, id="component-two-assets"),
    pytest.param("component", lambda: {"assigned_to": MISSING}, INVALID_TARGET, id="component-unknown-asset"),
    pytest.param("component", lambda: {"assigned_to": AssetFactory(deleted_at=timezone.now()).pk}, INVALID_TARGET,
                 id="component-deleted-asset"),
]


@pytest.mark.parametrize(("body", "messages"), ACCESSORY_TARGET_REFUSALS)
def test_accessory_checkout_needs_exactly_one_usable_target(token_client, mode, body, messages):
    accessory = AccessoryFactory()
    data = body()
    before = state()
    response = token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkout", data, format="json")
    assert refusal(response, mode, INVALID)["messages"] == messages
    assert state() == before


@pytest.mark.parametrize(("kind", "body", "messages"), SINGLE_TARGET_REFUSALS)
def test_a_single_target_checkout_needs_exactly_one_usable_target(token_client, mode, kind, body, messages):
    item = FACTORIES[kind]()
    data = body()
    before = state()
    response = token_client.post(f"{URLS[kind]}/{item.pk}/checkout", data, format="json")
    assert refusal(response, mode, INVALID)["messages"] == messages
    assert state() == before


#: Targets that exist but may not be used: they answer exactly as an unknown id.
UNUSABLE_TARGETS: dict[str, tuple[Callable[[], Any], ...]] = {
    "accessory": (_deleted_user, lambda: UserFactory(is_active=False)),
    "consumable": (_deleted_user, lambda: UserFactory(is_active=False)),
    "component": (lambda: AssetFactory(deleted_at=timezone.now()),),
}


@pytest.mark.parametrize("kind", URLS)
def test_an_unusable_target_answers_exactly_as_an_unknown_one(token_client, mode, kind):
    item, key = FACTORIES[kind](), TARGETS[kind][0]
    missing = token_client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: MISSING}, format="json")
    for make_target in UNUSABLE_TARGETS[kind]:
        target = make_target()
        before = state()
        response = token_client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: target.pk}, format="json")
        same_answer(response, missing)
        assert state() == before


#: The target key of each kind's type beside ``assigned_to``, and the factory of such a target.
SHARED_KEYS: dict[str, tuple[str, Callable[..., Any]]] = {
    "accessory": ("assigned_user", UserFactory), "consumable": ("assigned_user", UserFactory),
    "component": ("assigned_asset", AssetFactory)}


@pytest.mark.parametrize("kind", URLS)
def test_the_same_target_twice_is_one_target(token_client, kind):
    """``assigned_to`` beside ``assigned_user`` (``assigned_asset`` for components) naming the same target is not two
    targets (a client in transition)."""
    key, make_target = SHARED_KEYS[kind]
    item, target = FACTORIES[kind](), make_target()
    body = {"assigned_to": target.pk, key: str(target.pk)}
    succeeded(token_client.post(f"{URLS[kind]}/{item.pk}/checkout", body, format="json"))
    assert list(ROW_MODELS[kind].objects.values_list(f"{key}_id", flat=True)) == [target.pk]


def test_the_same_location_twice_is_one_target(token_client):
    accessory, location = AccessoryFactory(), LocationFactory()
    body = {"assigned_to": location.pk, "checkout_to_type": "location", "assigned_location": location.pk}
    succeeded(token_client.post(f"{ACCESSORIES}/{accessory.pk}/checkout", body, format="json"))
    assert list(AccessoryCheckout.objects.values_list("assigned_location_id", flat=True)) == [location.pk]


@pytest.mark.parametrize(("kind", "key", "owner"), [
    ("accessory", "assigned_user", UserFactory),
    ("accessory", "assigned_asset", AssetFactory),
    ("consumable", "assigned_to", UserFactory),
    ("component", "assigned_to", AssetFactory),
    ("component", "assigned_asset", AssetFactory),
])
def test_another_companys_target_answers_exactly_as_an_unknown_one(make_client, fmcs_on, mode, kind, key, owner):
    """Separation on (rule 4): a company user checking out their own company's item to another company's user or
    asset gets the answer of an unknown id, in both error modes; their own company's target is accepted."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions={f"{SECTIONS[kind]}.checkout": 1}))
    item, target, own_target = FACTORIES[kind](company=ours), owner(company=theirs), owner(company=ours)
    before = state()
    response = client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: target.pk}, format="json")
    same_answer(response, client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: MISSING}, format="json"))
    refusal(response, mode, INVALID)
    assert state() == before
    succeeded(client.post(f"{URLS[kind]}/{item.pk}/checkout", {key: own_target.pk}, format="json"))


# --- checkin -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ROW_KINDS)
def test_checkin_of_a_row_already_checked_in_is_not_found(token_client, mode, kind):
    """The row is gone once all its units are back: a second checkin is "not found" (404), not a conflict."""
    row = ROW_KINDS[kind].put_out(FACTORIES[kind](), 2)
    succeeded(token_client.post(f"{URLS[kind]}/{row.pk}/checkin", {}, format="json"))
    before = state()
    response = token_client.post(f"{URLS[kind]}/{row.pk}/checkin", {}, format="json")
    assert refusal(response, mode, NOT_FOUND)["message"] == ROW_KINDS[kind].not_found
    assert state() == before


@pytest.mark.parametrize("kind", ROW_KINDS)
def test_checkin_of_another_companys_row_answers_exactly_as_a_missing_row(make_client, fmcs_on, mode, kind):
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions={f"{SECTIONS[kind]}.checkin": 1}))
    row = ROW_KINDS[kind].put_out(FACTORIES[kind](company=theirs), 2)
    before = state()
    response = client.post(f"{URLS[kind]}/{row.pk}/checkin", {}, format="json")
    same_answer(response, client.post(f"{URLS[kind]}/{MISSING}/checkin", {}, format="json"))
    assert refusal(response, mode, NOT_FOUND)["message"] == ROW_KINDS[kind].not_found
    assert state() == before
    mine = ROW_KINDS[kind].put_out(FACTORIES[kind](company=ours), 1)
    succeeded(client.post(f"{URLS[kind]}/{mine.pk}/checkin", {}, format="json"))


@pytest.mark.parametrize("kind", ROW_KINDS)
def test_an_item_id_is_not_a_row_id(token_client, mode, kind):
    """``<kind>/{id}/checkin`` takes the assignment row's id (Snipe-IT's route): the item's own id names no row and
    checks nothing in."""
    item = FACTORIES[kind](qty=5)
    row = ROW_KINDS[kind].put_out(item, 2)
    if row.pk == item.pk:  # make the ids differ, so the request below cannot name the row by chance
        row.delete()
        row = ROW_KINDS[kind].put_out(item, 2)
    assert row.pk != item.pk and not ROW_MODELS[kind].objects.filter(pk=item.pk).exists()
    before = state()
    response = token_client.post(f"{URLS[kind]}/{item.pk}/checkin", {}, format="json")
    assert refusal(response, mode, NOT_FOUND)["message"] == ROW_KINDS[kind].not_found
    assert state() == before


@pytest.mark.parametrize("kind", ROW_KINDS)
def test_checkin_qty_returns_part_of_a_row_and_logs_it(token_client, superuser, mode, kind):
    """The row keeps the rest; the log row says what came back (``checkin_qty``) and what the row held before and
    after (``assigned_qty``); more than the row holds is a field error and changes nothing."""
    holder, row_kind = TARGETS[kind][1](), ROW_KINDS[kind]
    item = FACTORIES[kind](qty=5)
    row_id = succeeded(checkout(token_client, kind, item, holder, quantity=3))["payload"][row_kind.id_key]
    path = f"{URLS[kind]}/{row_id}/checkin"

    body = succeeded(token_client.post(path, {"checkin_qty": 1, "note": "one back"}, format="json"))
    assert body["messages"] == row_kind.checked_in
    assert ROW_MODELS[kind].objects.get(pk=row_id).assigned_qty == 2
    assert record(token_client, kind, item)["remaining"] == 3
    log = ActionLog.objects.filter(item_type=kind, item_id=item.pk, action_type="checkin from").get()
    assert (log.target_type, log.target_id, log.note, log.created_by) == (row_kind.target_type, holder.pk,
                                                                          "one back", superuser)
    assert log.log_meta == {"checkin_qty": {"old": None, "new": 1}, "assigned_qty": {"old": 3, "new": 2}}

    before = state()
    for quantity, message in ((3, "The checkin qty may not be greater than 2."),
                              (0, "The checkin qty must be at least 1."),
                              (-1, "The checkin qty must be at least 1."),
                              ("abc", "The checkin qty must be an integer."),
                              (1.5, "The checkin qty must be an integer.")):
        response = token_client.post(path, {"checkin_qty": quantity}, format="json")
        assert refusal(response, mode, INVALID)["messages"] == {"checkin_qty": [message]}, quantity
    assert state() == before

    succeeded(token_client.post(path, {"checkin_qty": 2}, format="json"))
    assert not ROW_MODELS[kind].objects.filter(pk=row_id).exists()
    assert record(token_client, kind, item)["remaining"] == 5


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
    """Units out (accessories), consumed (consumables) and installed (components) hold ``qty`` up; PUT is as
    partial as PATCH."""
    item = FACTORIES[kind](qty=5)
    succeeded(checkout(token_client, kind, item, quantity=2))
    succeeded(checkout(token_client, kind, item, quantity=1))
    before = state()
    response = send(token_client, method, f"{URLS[kind]}/{item.pk}", {"qty": 2, "name": "Renamed"})
    assert refusal(response, mode, INVALID)["messages"] == {"qty": ["The qty must be at least 3: 3 are checked out."]}
    assert state() == before
    body = succeeded(send(token_client, method, f"{URLS[kind]}/{item.pk}", {"qty": 3}))
    assert body["payload"]["qty"] == 3 and body["payload"]["remaining"] == 0


@pytest.mark.parametrize("kind", DELETE_REFUSED)
def test_an_item_with_units_out_cannot_be_deleted(token_client, mode, kind):
    """Reference §4.14's texts (409 in ``http`` mode); once the units are back the delete goes through."""
    item = FACTORIES[kind](qty=5)
    row_id = succeeded(checkout(token_client, kind, item, quantity=2))["payload"][ROW_KINDS[kind].id_key]
    assert record(token_client, kind, item)["available_actions"]["delete"] is False
    before = state()
    response = token_client.delete(f"{URLS[kind]}/{item.pk}")
    message = DELETE_REFUSED[kind]
    assert refusal(response, mode, CONFLICT) == {"status": "error", "message": message, "messages": message,
                                                 "payload": None}
    assert state() == before
    succeeded(token_client.post(f"{URLS[kind]}/{row_id}/checkin", {}, format="json"))
    assert record(token_client, kind, item)["available_actions"]["delete"] is True
    assert succeeded(token_client.delete(f"{URLS[kind]}/{item.pk}"))["messages"] == (
        f"The {kind} was deleted successfully.")
