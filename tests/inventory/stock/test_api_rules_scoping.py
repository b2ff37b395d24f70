"""Accessories, consumables and components around the rest of the service (API-CONTRACT.md §7, §10; reference
§4.14, §6.3, §12), through the HTTP API: the users who hold them, the companies and catalogue records that count them
and may not be deleted under them, rule 7, the permission key of every endpoint, the nested lists under company
separation, and the action log. Refusals change nothing (items, checkout rows, users, companies, catalogue rows,
action log) and are checked in both error modes. Input and quantity rules: ``test_api_stock_rules.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.permissions import ITEM_SECTIONS
from activity.models import ActionLog
from companies.models import Company
from inventory.models import (
    Accessory,
    Category,
    Component,
    Consumable,
    ConsumableAssignment,
    Location,
    Manufacturer,
    Supplier,
)
from tests.api_mixins import MISSING, http_errors, same_answer, send
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    CategoryFactory,
    CompanyFactory,
    ComponentFactory,
    ConsumableFactory,
    LocationFactory,
    ManufacturerFactory,
    SupplierFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, component_in
from tests.inventory.stock.test_api_rules import (
    ACCESSORIES,
    COMPONENTS,
    CONFLICT,
    CONSUMABLES,
    FACTORIES,
    NOT_FOUND,
    ROW_KINDS,
    SECTIONS,
    URLS,
    checkout,
    record,
    refusal,
    state,
    succeeded,
)

pytestmark = pytest.mark.django_db

USERS = "/api/v1/users"
COMPANIES = "/api/v1/companies"
#: Every key of the three sections, and the views a company user needs around them.
STOCK_KEYS = {f"{section}.{verb}": 1 for section in SECTIONS.values() for verb in ITEM_SECTIONS[section]}
VIEW_KEYS = {**STOCK_KEYS, "users.view": 1, "assets.view": 1, "locations.view": 1, "companies.view": 1,
             "categories.view": 1, "manufacturers.view": 1, "suppliers.view": 1, "reports.view": 1}


@pytest.fixture(params=["compat", "http"])
def mode(request, settings) -> str:
    """Both error modes of API-CONTRACT.md §2."""
    if request.param == "http":
        http_errors(settings)
    return request.param


def consumed(consumable, user, qty: int) -> ConsumableAssignment:
    """Units of ``consumable`` handed to ``user``, written directly: test setup only."""
    return ConsumableAssignment.objects.create(consumable=consumable, assigned_user=user, assigned_qty=qty)


def wider_state() -> tuple[Any, ...]:
    """:func:`state` plus the companies and catalogue rows a refused delete must leave."""
    return (state(), *(list(model.objects.order_by("pk").values())
                       for model in (Company, Category, Manufacturer, Supplier, Location)))


# --- users who hold them (reference §6.3) --------------------------------------------------------------------------


@pytest.mark.parametrize(("units", "message"), [
    ((1,), "This user still has an accessory checked out. Please check it in first."),
    ((2, 1), "This user still has 3 accessories checked out. Please check them in first."),
])
def test_a_user_holding_accessories_cannot_be_deleted_until_they_are_back(token_client, mode, units, message):
    """The refusal names the accessories and counts their units; it changes nothing; checking them in (through the
    API) lets the delete through."""
    holder = UserFactory()
    rows = [succeeded(checkout(token_client, "accessory", AccessoryFactory(qty=5), holder, quantity=qty))
            for qty in units]
    before = state()
    response = token_client.delete(f"{USERS}/{holder.pk}")
    assert refusal(response, mode, CONFLICT)["messages"] == {"assigned_accessories": [message]}
    assert response.json()["message"] == message
    assert state() == before
    for row in rows:
        succeeded(token_client.post(f"{ACCESSORIES}/{row['payload']['id']}/checkin", {}, format="json"))
    assert succeeded(token_client.delete(f"{USERS}/{holder.pk}"))["messages"] == "User was successfully deleted."
    holder.refresh_from_db()
    assert holder.deleted_at is not None


def test_the_user_record_counts_units(token_client):
    holder = UserFactory(username="holder")
    for qty in (2, 3):
        accessory_out(holder, AccessoryFactory(qty=5), qty)
    for qty in (3, 4):
        consumed(ConsumableFactory(), holder, qty)
    accessory_out(LocationFactory(), AccessoryFactory(), 4)  # units out elsewhere are not the user's
    shown = token_client.get(f"{USERS}/{holder.pk}").json()
    assert (shown["accessories_count"], shown["consumables_count"]) == (5, 7)
    listed = token_client.get(USERS, {"username": "holder"}).json()["rows"]
    assert [(row["accessories_count"], row["consumables_count"]) for row in listed] == [(5, 7)]


def test_the_user_record_counts_only_what_the_caller_may_see(token_client, make_client, fmcs_on):
    """Another company's items held by a user of ours (checked out by a super user) are neither listed nor counted
    for a company user (API-CONTRACT.md §7: "never shown, never counted"); a super user counts them all."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    holder = UserFactory(company=ours)
    accessory_out(holder, AccessoryFactory(company=ours), 1)
    accessory_out(holder, AccessoryFactory(company=theirs), 2)
    consumed(ConsumableFactory(company=ours), holder, 3)
    consumed(ConsumableFactory(company=theirs), holder, 4)
    client = make_client(UserFactory(company=ours, permissions=VIEW_KEYS))
    for shown in (client.get(f"{USERS}/{holder.pk}").json(),
                  next(row for row in client.get(USERS).json()["rows"] if row["id"] == holder.pk)):
        assert (shown["accessories_count"], shown["consumables_count"]) == (1, 3)
    assert client.get(f"{USERS}/{holder.pk}/accessories").json()["total"] == 1
    assert client.get(f"{USERS}/{holder.pk}/consumables").json()["total"] == 1
    shown = token_client.get(f"{USERS}/{holder.pk}").json()
    assert (shown["accessories_count"], shown["consumables_count"]) == (3, 7)


# --- companies (rule 9, API-CONTRACT.md §3 and §10) ----------------------------------------------------------------


COMPANY_COUNTS = ("accessories_count", "consumables_count", "components_count")


def counts(body: dict[str, Any]) -> tuple[int, ...]:
    return tuple(body[key] for key in COMPANY_COUNTS)


def test_company_records_count_live_accessories_consumables_and_components(token_client):
    """Installed components count once per component record, not per unit (Snipe-IT's ``components_count``)."""
    company = CompanyFactory(name="Counted")
    AccessoryFactory.create_batch(2, company=company)
    AccessoryFactory(company=company, deleted_at=timezone.now())
    ConsumableFactory(company=company)
    ConsumableFactory(company=company, deleted_at=timezone.now())
    installed = ComponentFactory(company=company, qty=9)
    component_in(AssetFactory(), installed, qty=4)
    ComponentFactory.create_batch(2, company=company)
    ComponentFactory(company=company, deleted_at=timezone.now())
    AccessoryFactory(company=CompanyFactory()), AccessoryFactory(), ComponentFactory(company=CompanyFactory())
    listed = next(row for row in token_client.get(COMPANIES).json()["rows"] if row["id"] == company.pk)
    shown = token_client.get(f"{COMPANIES}/{company.pk}").json()
    for body in (listed, shown):
        assert counts(body) == (2, 1, 3)
    for key in ("accessories_count", "components_count"):
        ordered = token_client.get(COMPANIES, {"sort": key, "order": "desc"}).json()["rows"]
        assert ordered[0]["id"] == company.pk


def test_a_company_user_sees_only_their_company_and_its_counts(make_client, fmcs_on):
    ours, theirs = CompanyFactory(name="Ours"), CompanyFactory(name="Theirs")
    AccessoryFactory(company=ours), ConsumableFactory.create_batch(2, company=ours)
    ComponentFactory.create_batch(3, company=ours)
    AccessoryFactory.create_batch(3, company=theirs), ConsumableFactory(company=theirs)
    ComponentFactory(company=theirs)
    client = make_client(UserFactory(company=ours, permissions=VIEW_KEYS))
    body = client.get(COMPANIES).json()
    assert body["total"] == 1
    assert [(row["id"], *counts(row)) for row in body["rows"]] == [(ours.pk, 1, 2, 3)]
    assert counts(client.get(f"{COMPANIES}/{ours.pk}").json()) == (1, 2, 3)
    same_answer(client.get(f"{COMPANIES}/{theirs.pk}"), client.get(f"{COMPANIES}/{MISSING}"))
    for kind, model in (("accessory", Accessory), ("component", Component)):
        assert {row["id"] for row in client.get(URLS[kind]).json()["rows"]} == set(
            model.objects.filter(company=ours).values_list("pk", flat=True))


@pytest.mark.parametrize(("items", "what", "which"), [
    ({"accessory": 1}, "1 accessory", "accessories"),
    ({"consumable": 2}, "2 consumables", "consumables"),
    ({"accessory": 2, "consumable": 1}, "2 accessories and 1 consumable", "accessories and consumables"),
    ({"component": 1}, "1 component", "components"),
    ({"component": 2, "accessory": 1, "consumable": 3}, "1 accessory, 3 consumables and 2 components",
     "accessories, consumables and components"),
])
def test_rule_9_a_company_with_live_stock_items_cannot_be_deleted(token_client, mode, items, what, which):
    company = CompanyFactory()
    made = [FACTORIES[kind](company=company) for kind, count in items.items() for _ in range(count)]
    before = wider_state()
    message = (f"This company is currently associated with {what} and cannot be deleted. Please update your {which} "
               f"to no longer reference this company and try again.")
    body = token_client.delete(f"{COMPANIES}/{company.pk}")
    assert body.status_code == (200 if mode == "compat" else CONFLICT)
    assert body.json() == {"status": "error", "message": message, "messages": message,
                           "payload": None}  # issue 25 item 15: null on errors, counts in the message
    assert wider_state() == before
    kinds = {Accessory: "accessory", Consumable: "consumable", Component: "component"}
    for item in made:  # soft-deleted items no longer hold it (they are detached)
        succeeded(token_client.delete(f"{URLS[kinds[type(item)]]}/{item.pk}"))
    succeeded(token_client.delete(f"{COMPANIES}/{company.pk}"))
    assert not Company.objects.filter(pk=company.pk).exists()
    for item in made:
        item.refresh_from_db()
        assert item.company_id is None and item.deleted_at is not None


# --- catalogue records (reference §3.5 to §3.8, §4.14) -------------------------------------------------------------


def test_catalogue_records_count_accessories_consumables_and_components(token_client, make_client, fmcs_on):
    """Live items only, of the companies the caller may see; a location counts the units checked out to it."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    accessories_category = CategoryFactory(category_type="accessory")
    consumables_category = CategoryFactory(category_type="consumable")
    components_category = CategoryFactory(category_type="component")
    manufacturer, supplier, location = ManufacturerFactory(), SupplierFactory(), LocationFactory()
    common = {"manufacturer": manufacturer, "supplier": supplier, "location": location}
    mine = AccessoryFactory(company=ours, category=accessories_category, qty=10, **common)
    AccessoryFactory(company=theirs, category=accessories_category, **common)
    AccessoryFactory(company=ours, category=accessories_category, deleted_at=timezone.now(), **common)
    ConsumableFactory(company=ours, category=consumables_category, manufacturer=manufacturer, supplier=supplier)
    ConsumableFactory.create_batch(2, company=theirs, category=consumables_category, manufacturer=manufacturer,
                                   supplier=supplier)
    component_in(AssetFactory(), ComponentFactory(company=ours, category=components_category, **common), qty=3)
    ComponentFactory.create_batch(3, company=theirs, category=components_category, **common)
    ComponentFactory(company=ours, category=components_category, deleted_at=timezone.now(), **common)
    accessory_out(location, mine, 3)
    accessory_out(location, mine, 2)
    accessory_out(location, AccessoryFactory(company=theirs, qty=9), 4)
    paths = {
        "categories": (accessories_category, consumables_category, components_category),
        "manufacturers": (manufacturer,),
        "suppliers": (supplier,), "locations": (location,),
    }
    for client, (accessories, consumables, components, assigned) in (
            (token_client, (2, 3, 4, 9)),
            (make_client(UserFactory(company=ours, permissions=VIEW_KEYS)), (1, 1, 1, 5))):
        got: dict[tuple[str, int], dict[str, Any]] = {}
        for path, entries in paths.items():
            for entry in entries:
                shown = client.get(f"/api/v1/{path}/{entry.pk}").json()
                listed = next(row for row in client.get(f"/api/v1/{path}").json()["rows"] if row["id"] == entry.pk)
                assert {k: v for k, v in listed.items() if k.endswith("_count")} == {
                    k: v for k, v in shown.items() if k.endswith("_count")}
                got[(path, entry.pk)] = shown
        assert got[("categories", accessories_category.pk)]["accessories_count"] == accessories
        assert got[("categories", consumables_category.pk)]["consumables_count"] == consumables
        assert got[("categories", components_category.pk)]["components_count"] == components
        for path, entry in (("manufacturers", manufacturer), ("suppliers", supplier)):
            assert counts(got[(path, entry.pk)]) == (accessories, consumables, components)
        place = got[("locations", location.pk)]
        assert (place["accessories_count"], place["assigned_accessories_count"]) == (accessories, assigned)


CATEGORY_IN_USE = ("This category is currently associated with at least one {type} and cannot be deleted. Please "
                   "update your {type}  to no longer reference this category and try again. ")
SUPPLIER_IN_USE = ("This supplier is currently associated with {count} {kind}(s) and cannot be deleted. Please update "
                   "your {kinds} to no longer reference this supplier and try again. ")
MANUFACTURER_IN_USE = ("This manufacturer is currently associated with at least one model and cannot be deleted. "
                       "Please update your models to no longer reference this manufacturer and try again. ")
LOCATION_IN_USE = ("This location is not currently deletable because it is the location of record for at least one "
                   "asset or user, has assets assigned to it, or is the parent location of another location. Please "
                   "update your records to no longer reference this location and try again ")


def _located(location) -> None:
    AccessoryFactory(location=location)


def _assigned(location) -> None:
    accessory_out(location, AccessoryFactory(qty=3), 2)


@pytest.mark.parametrize(("path", "make_entry", "use", "message"), [
    pytest.param("categories", lambda: CategoryFactory(category_type="accessory"),
                 lambda entry: AccessoryFactory(category=entry), CATEGORY_IN_USE.format(type="accessory"),
                 id="category-accessory"),
    pytest.param("categories", lambda: CategoryFactory(category_type="consumable"),
                 lambda entry: ConsumableFactory(category=entry), CATEGORY_IN_USE.format(type="consumable"),
                 id="category-consumable"),
    pytest.param("categories", lambda: CategoryFactory(category_type="accessory"),
                 lambda entry: AccessoryFactory(category=entry, deleted_at=timezone.now()),
                 CATEGORY_IN_USE.format(type="accessory"), id="category-deleted-accessory"),
    pytest.param("suppliers", SupplierFactory, lambda entry: AccessoryFactory(supplier=entry),
                 SUPPLIER_IN_USE.format(count=1, kind="accessory", kinds="accessories"), id="supplier-accessory"),
    pytest.param("suppliers", SupplierFactory, lambda entry: ConsumableFactory.create_batch(2, supplier=entry),
                 SUPPLIER_IN_USE.format(count=2, kind="consumable", kinds="consumables"), id="supplier-consumables"),
    pytest.param("suppliers", SupplierFactory,
                 lambda entry: (AccessoryFactory(supplier=entry), AssetFactory.create_batch(2, supplier=entry)),
                 SUPPLIER_IN_USE.format(count=2, kind="asset", kinds="assets"), id="supplier-assets-first"),
    pytest.param("manufacturers", ManufacturerFactory, lambda entry: AccessoryFactory(manufacturer=entry),
                 MANUFACTURER_IN_USE, id="manufacturer-accessory"),
    pytest.param("manufacturers", ManufacturerFactory, lambda entry: ConsumableFactory(manufacturer=entry),
                 MANUFACTURER_IN_USE, id="manufacturer-consumable"),
    pytest.param("locations", LocationFactory, _located, LOCATION_IN_USE, id="location-of-accessory"),
    pytest.param("locations", LocationFactory, _assigned, LOCATION_IN_USE, id="location-holding-units"),
    pytest.param("categories", lambda: CategoryFactory(category_type="component"),
                 lambda entry: ComponentFactory(category=entry), CATEGORY_IN_USE.format(type="component"),
                 id="category-component"),
    pytest.param("categories", lambda: CategoryFactory(category_type="component"),
                 lambda entry: ComponentFactory(category=entry, deleted_at=timezone.now()),
                 CATEGORY_IN_USE.format(type="component"), id="category-deleted-component"),
    pytest.param("suppliers", SupplierFactory, lambda entry: ComponentFactory.create_batch(3, supplier=entry),
                 SUPPLIER_IN_USE.format(count=3, kind="component", kinds="components"), id="supplier-components"),
    pytest.param("manufacturers", ManufacturerFactory, lambda entry: ComponentFactory(manufacturer=entry),
                 MANUFACTURER_IN_USE, id="manufacturer-component"),
    pytest.param("locations", LocationFactory, lambda entry: ComponentFactory(location=entry), LOCATION_IN_USE,
                 id="location-of-component"),
])
def test_a_catalogue_entry_used_by_stock_items_cannot_be_deleted(token_client, mode, path,
                                                                                make_entry, use, message):
    entry = make_entry()
    use(entry)
    assert token_client.get(f"/api/v1/{path}/{entry.pk}").json()["available_actions"]["delete"] is False
    before = wider_state()
    response = token_client.delete(f"/api/v1/{path}/{entry.pk}")
    assert refusal(response, mode, CONFLICT) == {"status": "error", "message": message, "messages": message,
                                                 "payload": None}
    assert wider_state() == before


# --- rule 7 ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", URLS)
def test_rule_7_a_company_users_item_gets_their_company(make_client, fmcs_on, kind):
    """Whatever ``company_id`` says (another company, an unknown id, none, text): a new item gets the caller's
    company, and an update never moves it (the value is not even validated, so ids cannot be probed)."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    section = SECTIONS[kind]
    client = make_client(UserFactory(company=ours, permissions={f"{section}.create": 1, f"{section}.edit": 1,
                                                                f"{section}.view": 1}))
    category = CategoryFactory(category_type=kind)
    for value in (theirs.pk, MISSING, None, "abc", ours.pk):
        body = {"name": f"Item {value}", "qty": 2, "category_id": category.pk, "company_id": value}
        payload = succeeded(client.post(URLS[kind], body, format="json"))["payload"]
        assert payload["company"] == {"id": ours.pk, "name": ours.name} and payload["company_id"] == ours.pk
    item = FACTORIES[kind](company=ours)
    for value in (theirs.pk, None, MISSING):
        for method in ("patch", "put"):
            payload = succeeded(send(client, method, f"{URLS[kind]}/{item.pk}", {"company_id": value}))["payload"]
            assert payload["company_id"] == ours.pk
    item.refresh_from_db()
    assert item.company_id == ours.pk
    assert not ActionLog.objects.filter(item_type=kind, item_id=item.pk, action_type="update").exists()


@pytest.mark.parametrize("kind", URLS)
@pytest.mark.parametrize("caller", ["super", "separation-off"])
def test_callers_that_choose_the_company(make_client, site_settings, kind, caller):
    ours, theirs = CompanyFactory(), CompanyFactory()
    if caller == "super":
        site_settings.full_multiple_companies_support = True
        site_settings.save()
        user = UserFactory(superuser=True, company=ours)
    else:
        user = UserFactory(company=ours, permissions=STOCK_KEYS)
    client = make_client(user)
    body = {"name": "Chosen", "qty": 2, "category_id": CategoryFactory(category_type=kind).pk, "company_id": theirs.pk}
    created = succeeded(client.post(URLS[kind], body, format="json"))["payload"]
    assert created["company_id"] == theirs.pk
    moved = succeeded(client.patch(f"{URLS[kind]}/{created['id']}", {"company_id": ours.pk}, format="json"))
    assert moved["payload"]["company_id"] == ours.pk


# --- permissions (reference §7.3) ---------------------------------------------------------------------------------


@pytest.fixture
def holdings(db) -> dict[str, Any]:
    """One of everything the endpoints below read or change."""
    user, asset, location = UserFactory(), AssetFactory(), LocationFactory()
    accessory, consumable, component = AccessoryFactory(qty=5), ConsumableFactory(), ComponentFactory(qty=5)
    accessory_out(user, accessory, 1)
    accessory_out(asset, accessory, 1)
    accessory_out(location, accessory, 1)
    consumed(consumable, user, 1)
    return {"user": user, "asset": asset, "location": location, "accessory": accessory, "consumable": consumable,
            "row": accessory_out(user, accessory, 1), "component": component,
            "installed": component_in(asset, component, 2)}


#: (method, path, body, the keys it needs): every key is needed, none alone is enough.
ENDPOINT_KEYS: list[tuple[str, str, Callable[[dict[str, Any]], dict[str, Any]], frozenset[str]]] = [
    ("get", ACCESSORIES + "/{accessory}/checkedout", lambda h: {}, frozenset({"accessories.view"})),
    ("post", ACCESSORIES + "/{accessory}/checkout", lambda h: {"assigned_user": h["user"].pk},
     frozenset({"accessories.checkout"})),
    ("post", ACCESSORIES + "/{row}/checkin", lambda h: {}, frozenset({"accessories.checkin"})),
    ("post", CONSUMABLES + "/{consumable}/checkout", lambda h: {"assigned_to": h["user"].pk},
     frozenset({"consumables.checkout"})),
    ("get", CONSUMABLES + "/{consumable}/users", lambda h: {}, frozenset({"consumables.view"})),
    ("get", USERS + "/{user}/accessories", lambda h: {}, frozenset({"accessories.view", "users.view"})),
    ("get", USERS + "/{user}/consumables", lambda h: {}, frozenset({"consumables.view", "users.view"})),
    ("get", "/api/v1/hardware/{asset}/assigned/accessories", lambda h: {},
     frozenset({"accessories.view", "assets.view"})),
    ("get", "/api/v1/locations/{location}/assigned/accessories", lambda h: {},
     frozenset({"accessories.view", "locations.view"})),
    ("post", COMPONENTS + "/{component}/checkout", lambda h: {"assigned_to": h["asset"].pk},
     frozenset({"components.checkout"})),
    ("post", COMPONENTS + "/{installed}/checkin", lambda h: {"checkin_qty": 1}, frozenset({"components.checkin"})),
    ("get", COMPONENTS + "/{component}/assets", lambda h: {}, frozenset({"components.view", "assets.view"})),
    ("get", "/api/v1/hardware/{asset}/components", lambda h: {}, frozenset({"components.view", "assets.view"})),
]


@pytest.mark.parametrize(("method", "path", "body", "keys"), ENDPOINT_KEYS,
                         ids=[f"{method}-{path.split('/', 3)[3]}" for method, path, _b, _k in ENDPOINT_KEYS])
def test_each_endpoint_needs_its_keys(make_client, holdings, method, path, body, keys):
    url = path.format(**{name: obj.pk for name, obj in holdings.items()})
    others = {key: 1 for key in STOCK_KEYS | {"users.view": 1, "assets.view": 1, "locations.view": 1}
              if key not in keys}
    for missing in sorted(keys):
        client = make_client(UserFactory(permissions={**others, **{key: 1 for key in keys if key != missing}}))
        before = state()
        response = send(client, method, url, body(holdings))
        assert response.status_code == 403, (missing, response.content)
        assert response.json()["message"] == "Insufficient permissions."
        assert state() == before
    response = send(make_client(UserFactory(permissions=dict.fromkeys(keys, 1))), method, url, body(holdings))
    assert response.status_code == 200 and response.json().get("status") != "error", response.content


@pytest.mark.parametrize("key", [f"{section}.{verb}" for section in SECTIONS.values()
                                 for verb in ITEM_SECTIONS[section]])
def test_nobody_grants_themselves_stock_keys(make_client, key):
    """The escalation rules of the users API (API-CONTRACT.md §7) cover the new sections: nobody changes their own
    permissions, and a caller grants others only the keys they hold."""
    manager = UserFactory(permissions={"users.view": 1, "users.edit": 1})
    client = make_client(manager)
    other = UserFactory()
    before = (dict(manager.permissions), dict(other.permissions), ActionLog.objects.count())
    for target in (manager, other):
        response = client.patch(f"{USERS}/{target.pk}", {"permissions": {**target.permissions, key: 1}},
                                format="json")
        assert response.status_code == 403 and response.json()["message"] == "Insufficient permissions."
    manager.refresh_from_db(), other.refresh_from_db()
    assert (manager.permissions, other.permissions, ActionLog.objects.count()) == before
    holder = make_client(UserFactory(permissions={"users.view": 1, "users.edit": 1, key: 1}))
    succeeded(holder.patch(f"{USERS}/{other.pk}", {"permissions": {key: 1}}, format="json"))
    other.refresh_from_db()
    assert other.permissions == {key: 1}


# --- nested lists under separation (rules 1 to 6) ------------------------------------------------------------------


@pytest.fixture
def two_companies(db, make_client, fmcs_on) -> dict[str, Any]:
    """Companies A (the caller's) and B, each with a user, an asset, an accessory, a consumable and a component; a
    shared location holding units of both accessories; A's user holding units of both companies' items and each
    company's asset holding both companies' components (checked out when separation was off, or by a super
    user)."""
    world: dict[str, Any] = {"location": LocationFactory()}
    for name in ("a", "b"):
        company = CompanyFactory(name=f"Company {name.upper()}")
        world[name] = {"company": company, "user": UserFactory(company=company),
                       "asset": AssetFactory(company=company),
                       "accessory": AccessoryFactory(company=company, qty=20),
                       "consumable": ConsumableFactory(company=company, qty=20),
                       "component": ComponentFactory(company=company, qty=20)}
    a, b = world["a"], world["b"]
    world["rows"] = {
        "a-location": accessory_out(world["location"], a["accessory"], 2),
        "b-location": accessory_out(world["location"], b["accessory"], 3),
        "a-asset": accessory_out(a["asset"], a["accessory"], 1),
        "b-asset": accessory_out(b["asset"], b["accessory"], 1),
        "a-user-a": accessory_out(a["user"], a["accessory"], 1),
        "a-user-b": accessory_out(a["user"], b["accessory"], 4),
        "b-user-b": accessory_out(b["user"], b["accessory"], 1),
        "a-in-a": component_in(a["asset"], a["component"], 2),
        "a-in-b": component_in(b["asset"], a["component"], 4),
        "b-in-a": component_in(a["asset"], b["component"], 5),
        "b-in-b": component_in(b["asset"], b["component"], 3),
    }
    consumed(a["consumable"], a["user"], 2)
    consumed(b["consumable"], a["user"], 5)
    consumed(b["consumable"], b["user"], 1)
    world["client"] = make_client(UserFactory(company=a["company"], permissions=VIEW_KEYS))
    return world


@pytest.mark.parametrize(("path", "owner_key"), [
    (ACCESSORIES + "/{id}/checkedout", "accessory"),
    (CONSUMABLES + "/{id}/users", "consumable"),
    (USERS + "/{id}/accessories", "user"),
    (USERS + "/{id}/consumables", "user"),
    ("/api/v1/hardware/{id}/assigned/accessories", "asset"),
    (COMPONENTS + "/{id}/assets", "component"),
    ("/api/v1/hardware/{id}/components", "asset"),
])
def test_another_companys_nested_list_is_not_found(two_companies, mode, path, owner_key):
    client = two_companies["client"]
    theirs = two_companies["b"][owner_key]
    response = client.get(path.format(id=theirs.pk))
    same_answer(response, client.get(path.format(id=MISSING)))
    refusal(response, mode, NOT_FOUND)
    assert client.get(path.format(id=two_companies["a"][owner_key].pk)).status_code == 200


def test_nested_lists_show_only_the_own_companys_rows(two_companies):
    client, a, rows = two_companies["client"], two_companies["a"], two_companies["rows"]
    location = client.get(f"/api/v1/locations/{two_companies['location'].pk}/assigned/accessories").json()
    assert (location["total"], [row["id"] for row in location["rows"]]) == (1, [rows["a-location"].pk])
    assert client.get(f"/api/v1/locations/{two_companies['location'].pk}").json()["assigned_accessories_count"] == 2
    held = client.get(f"{USERS}/{a['user'].pk}/accessories").json()
    assert held["total"] == 1
    assert [(row["id"], row["assigned_pivot_id"], row["checkout_qty"]) for row in held["rows"]] == [
        (a["accessory"].pk, rows["a-user-a"].pk, 1)]
    taken = client.get(f"{USERS}/{a['user'].pk}/consumables").json()
    assert [(row["id"], row["checkout_qty"]) for row in taken["rows"]] == [(a["consumable"].pk, 2)]
    on_asset = client.get(f"/api/v1/hardware/{a['asset'].pk}/assigned/accessories").json()
    assert [row["id"] for row in on_asset["rows"]] == [rows["a-asset"].pk]
    checked_out = client.get(f"{ACCESSORIES}/{a['accessory'].pk}/checkedout").json()
    assert {row["id"] for row in checked_out["rows"]} == {rows["a-location"].pk, rows["a-asset"].pk,
                                                           rows["a-user-a"].pk}
    # A's component installed in B's asset: the units are out (remaining counts them), the asset is not listed.
    installed = client.get(f"{COMPONENTS}/{a['component'].pk}/assets").json()
    assert [(row["id"], row["assigned_pivot_id"], row["qty"]) for row in installed["rows"]] == [
        (a["asset"].pk, rows["a-in-a"].pk, 2)]
    assert installed["total"] == 1
    assert client.get(f"{COMPONENTS}/{a['component'].pk}").json()["remaining"] == 14
    # B's component installed in A's asset: not listed under the asset.
    in_asset = client.get(f"/api/v1/hardware/{a['asset'].pk}/components").json()
    assert [(row["id"], row["assigned_pivot_id"], row["checkout_qty"]) for row in in_asset["rows"]] == [
        (a["component"].pk, rows["a-in-a"].pk, 2)]
    assert in_asset["total"] == 1
    assert {row["id"] for row in client.get(COMPONENTS).json()["rows"]} == {a["component"].pk}


def test_a_super_user_sees_every_companys_rows(two_companies, token_client):
    location = token_client.get(f"/api/v1/locations/{two_companies['location'].pk}/assigned/accessories").json()
    assert location["total"] == 2
    assert token_client.get(f"{USERS}/{two_companies['a']['user'].pk}/accessories").json()["total"] == 2
    assert token_client.get(f"{USERS}/{two_companies['a']['user'].pk}/consumables").json()["total"] == 2
    a = two_companies["a"]
    assert token_client.get(f"{COMPONENTS}/{a['component'].pk}/assets").json()["total"] == 2
    assert token_client.get(f"/api/v1/hardware/{a['asset'].pk}/components").json()["total"] == 2


# --- action log (reference §12) ------------------------------------------------------------------------------------


def activity(client, kind: str, item_id: int) -> list[dict[str, Any]]:
    body = client.get("/api/v1/reports/activity", {"item_type": kind, "item_id": item_id, "sort": "id",
                                                   "order": "asc", "limit": 500}).json()
    assert body["total"] == len(body["rows"])
    return body["rows"]


def checkin_meta(returned: int, held: int) -> dict[str, Any]:
    """A checkin's ``log_meta``: the units that came back, and the row's units before and after."""
    return {"checkin_qty": {"old": None, "new": returned}, "assigned_qty": {"old": held, "new": held - returned}}


def lifecycle(client, kind: str, create: dict[str, Any], update: dict[str, Any], checkouts: list[dict[str, Any]],
              checkins: list[tuple[int, dict[str, Any]]]) -> int:
    """Through the API: create an item, update it, check out each of ``checkouts``, check in (row index, body) each of
    ``checkins``, delete and restore it; every request must succeed. Another item of the kind exists beside it, so
    its rows would show if the report's filter were wrong. Returns the item's id."""
    url = URLS[kind]
    item_id = succeeded(client.post(url, create, format="json"))["payload"]["id"]
    FACTORIES[kind]()
    succeeded(client.patch(f"{url}/{item_id}", update, format="json"))
    id_key = ROW_KINDS[kind].id_key if kind in ROW_KINDS else "id"
    rows = [succeeded(client.post(f"{url}/{item_id}/checkout", body, format="json"))["payload"][id_key]
            for body in checkouts]
    for index, body in checkins:
        succeeded(client.post(f"{url}/{rows[index]}/checkin", body, format="json"))
    succeeded(client.delete(f"{url}/{item_id}"))
    succeeded(client.post(f"{url}/{item_id}/restore"))
    return item_id


def test_every_accessory_change_is_in_the_activity_report(token_client, superuser):
    holder, location = UserFactory(), LocationFactory()
    accessory_id = lifecycle(
        token_client, "accessory",
        {"name": "Dock", "qty": 5, "category_id": CategoryFactory(category_type="accessory").pk},
        {"name": "Dock 2", "qty": 6},
        [{"assigned_user": holder.pk, "checkout_qty": 3, "note": "desk"}, {"assigned_location": location.pk}],
        [(0, {"checkin_qty": 1, "note": "one"}), (0, {}), (1, {})])

    rows = activity(token_client, "accessory", accessory_id)
    assert [(row["action_type"], row["target"] and row["target"]["type"], row["note"], row["log_meta"])
            for row in rows] == [
        ("create new", None, None, None),
        ("update", None, None, {"name": {"old": "Dock", "new": "Dock 2"}, "qty": {"old": 5, "new": 6}}),
        ("checkout", "user", "desk", {"checkout_qty": {"old": None, "new": 3}}),
        ("checkout", "location", None, {"checkout_qty": {"old": None, "new": 1}}),
        ("checkin from", "user", "one", checkin_meta(1, held=3)),
        ("checkin from", "user", None, checkin_meta(2, held=2)),
        ("checkin from", "location", None, checkin_meta(1, held=1)),
        ("delete", None, None, None),
        ("restore", None, None, None),
    ]
    assert {row["item"]["id"] for row in rows} == {accessory_id}
    assert {row["item"]["type"] for row in rows} == {"accessory"}
    assert {row["admin"]["id"] for row in rows} == {superuser.pk}
    assert rows[2]["target"] == {"id": holder.pk, "name": holder.full_name, "type": "user"}


def test_every_consumable_change_is_in_the_activity_report(token_client):
    taker = UserFactory()
    consumable_id = lifecycle(
        token_client, "consumable",
        {"name": "Toner", "qty": 5, "category_id": CategoryFactory(category_type="consumable").pk}, {"item_no": "T-1"},
        [{"assigned_to": taker.pk, "checkout_qty": 2, "note": "printer"}], [])

    rows = activity(token_client, "consumable", consumable_id)
    assert [(row["action_type"], row["target"], row["note"], row["log_meta"]) for row in rows] == [
        ("create new", None, None, None),
        ("update", None, None, {"item_no": {"old": "", "new": "T-1"}}),
        ("checkout", {"id": taker.pk, "name": taker.full_name, "type": "user"}, "printer",
         {"checkout_qty": {"old": None, "new": 2}}),
        ("delete", None, None, None),
        ("restore", None, None, None),
    ]
    assert {row["item"]["type"] for row in rows} == {"consumable"}


def test_every_component_change_is_in_the_activity_report(token_client, superuser):
    """Checkouts log ``assigned_qty`` (the units installed) against the asset; checkins what came out
    (``checkin_qty``) and what the row held before and after (``assigned_qty``)."""
    host, spare = AssetFactory(name="Host"), AssetFactory()
    component_id = lifecycle(
        token_client, "component",
        {"name": "16 GB DDR5", "qty": 8, "category_id": CategoryFactory(category_type="component").pk},
        {"serial": "SN-1", "qty": 6},
        [{"assigned_to": host.pk, "assigned_qty": 3, "note": "slot 1"}, {"assigned_to": spare.pk}],
        [(0, {"checkin_qty": 1, "note": "one"}), (0, {}), (1, {})])

    rows = activity(token_client, "component", component_id)
    assert [(row["action_type"], row["target"] and row["target"]["id"], row["note"], row["log_meta"])
            for row in rows] == [
        ("create new", None, None, None),
        ("update", None, None, {"qty": {"old": 8, "new": 6}, "serial": {"old": "", "new": "SN-1"}}),
        ("checkout", host.pk, "slot 1", {"assigned_qty": {"old": None, "new": 3}}),
        ("checkout", spare.pk, None, {"assigned_qty": {"old": None, "new": 1}}),
        ("checkin from", host.pk, "one", checkin_meta(1, held=3)),
        ("checkin from", host.pk, None, checkin_meta(2, held=2)),
        ("checkin from", spare.pk, None, checkin_meta(1, held=1)),
        ("delete", None, None, None),
        ("restore", None, None, None),
    ]
    assert {row["item"]["type"] for row in rows} == {"component"}
    assert {row["admin"]["id"] for row in rows} == {superuser.pk}
    assert rows[2]["target"] == {"id": host.pk, "name": "Host", "type": "asset"}


def test_refusals_write_no_log_row(token_client):
    """The action log only ever records what happened: a batch of refused requests adds no row."""
    accessory, consumable, holder = AccessoryFactory(qty=2), ConsumableFactory(qty=2), UserFactory()
    row = accessory_out(holder, accessory, 2)
    component, host = ComponentFactory(qty=2), AssetFactory()
    installed = component_in(host, component, 2)
    before = ActionLog.objects.count()
    refused = [
        ("post", f"{ACCESSORIES}/{accessory.pk}/checkout", {"assigned_user": holder.pk}),
        ("post", f"{CONSUMABLES}/{consumable.pk}/checkout", {"assigned_to": holder.pk, "checkout_qty": 3}),
        ("patch", f"{ACCESSORIES}/{accessory.pk}", {"qty": 1}),
        ("delete", f"{ACCESSORIES}/{accessory.pk}", {}),
        ("post", f"{ACCESSORIES}/{row.pk}/checkin", {"checkin_qty": 3}),
        ("delete", f"{USERS}/{holder.pk}", {}),
        ("post", f"{ACCESSORIES}/{accessory.pk}/restore", {}),
        ("post", f"{COMPONENTS}/{component.pk}/checkout", {"assigned_to": host.pk}),
        ("patch", f"{COMPONENTS}/{component.pk}", {"qty": 1}),
        ("delete", f"{COMPONENTS}/{component.pk}", {}),
        ("post", f"{COMPONENTS}/{installed.pk}/checkin", {"checkin_qty": 3}),
        ("post", f"{COMPONENTS}/{component.pk}/restore", {}),
    ]
    for method, path, body in refused:
        assert send(token_client, method, path, body).json()["status"] == "error", (method, path)
    assert ActionLog.objects.count() == before
    assert User.objects.get(pk=holder.pk).deleted_at is None and record(token_client, "accessory", accessory)[
        "remaining"] == 0
