"""Every Snipe-IT API route answers here (issue 27): the walk over ``tests/compat/snipeit_routes.txt``.

Each line of the list (``METHOD /path``, Laravel ``{param}`` placeholders, v8.1.4's 242 routes plus the v8.5 additions
the issue names) is one test. A route the team has built is asked for real, as a super user with a token, with its
placeholders filled from a small set of existing objects (or ``1`` where nothing fits); it must not answer

- the unknown-endpoint 404 (``assetsvc.api.views.EndpointNotFoundView``): Django's URL resolver tells a missing route
  apart from a resource's own "not found" envelope, which is an answer;
- 405 (the path exists but not with this method);
- 500 (or any 5xx).

Routes not built yet are listed in :data:`PENDING`, by group. A pending route must still be missing (it resolves to
the unknown-endpoint view, or its view has no handler for the method): when one starts answering, its test fails
until it is taken out of the set, so the set only shrinks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import Resolver404, resolve

from accounts.services import personal_token_issue
from assetsvc.api.exceptions import ENDPOINT_NOT_FOUND
from assetsvc.api.views import EndpointNotFoundView
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    CategoryFactory,
    CompanyFactory,
    ComponentFactory,
    ConsumableFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    LicenseFactory,
    LocationFactory,
    ManufacturerFactory,
    StatusLabelFactory,
    SupplierFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, component_in

ROUTES_FILE = Path(__file__).with_name("snipeit_routes.txt")


def read_routes(path: Path = ROUTES_FILE) -> list[tuple[str, str]]:
    routes = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            method, route = line.split(" ", 1)
            routes.append((method, route))
    return routes


ROUTES = read_routes()


def _lines(text: str) -> set[str]:
    return {line.strip() for line in text.strip().splitlines() if line.strip()}


#: Routes not built yet, by group; each group says why or which issue builds it. Take a line out when it answers.
PENDING_GROUPS: dict[str, set[str]] = {}

PENDING: frozenset[tuple[str, str]] = frozenset(
    tuple(line.split(" ", 1)) for lines in PENDING_GROUPS.values() for line in lines  # type: ignore[misc]
)


def test_the_list_holds_snipeits_242_routes_and_the_v85_additions():
    assert len(ROUTES) == len(set(ROUTES)), "a route is listed twice"
    part1 = ROUTES_FILE.read_text().split("# ---- Part 2")[0]
    assert len(read_routes_text(part1)) == 242
    assert ("GET", "/maintenances/{id}/history") in ROUTES
    assert ("DELETE", "/locations/{id}/files/{file_id}/delete") in ROUTES


def read_routes_text(text: str) -> list[str]:
    return [line for line in (raw.strip() for raw in text.splitlines()) if line and not line.startswith("#")]


def test_every_pending_route_is_on_the_list():
    """A typo in PENDING would make a route look pending forever."""
    assert PENDING <= set(ROUTES), sorted(PENDING - set(ROUTES))


# --- filling the placeholders ----------------------------------------------------------------------------------

#: Path segment before a placeholder → key of the object whose id fills it.
RESOURCE_OF_SEGMENT = {
    "hardware": "asset", "assets": "asset", "accessories": "accessory", "categories": "category",
    "companies": "company", "components": "component", "consumables": "consumable", "fields": "field",
    "fieldsets": "fieldset", "groups": "group", "licenses": "license", "locations": "location",
    "manufacturers": "manufacturer", "models": "model", "statuslabels": "statuslabel", "suppliers": "supplier",
    "users": "user", "seats": "seat", "personal-access-tokens": "token",
}


@pytest.fixture
def objects(db, superuser):
    from accounts.models import PermissionGroup

    asset = AssetFactory(serial="SER-1")
    component = ComponentFactory()
    accessory = AccessoryFactory()
    license = LicenseFactory()
    fieldset = CustomFieldsetFactory()
    token, _raw = personal_token_issue(user=superuser, name="walked")
    return {
        "asset": asset, "accessory": accessory, "category": CategoryFactory(), "company": CompanyFactory(),
        "component": component, "consumable": ConsumableFactory(), "field": CustomFieldFactory(),
        "fieldset": fieldset, "group": PermissionGroup.objects.create(name="Walkers"), "license": license,
        "location": LocationFactory(), "manufacturer": ManufacturerFactory(), "model": asset.model,
        "statuslabel": StatusLabelFactory(), "supplier": SupplierFactory(), "user": UserFactory(),
        "seat": license.seat_rows.order_by("pk").first(),
        "token": token,
        # Check-in routes take the checkout row's id (reference §1.5).
        "accessory_checkout": accessory_out(UserFactory(), accessory=accessory),
        "component_assignment": component_in(asset, component=component),
    }


def fill(route: str, objects: dict) -> str:
    """The URL of ``route`` with each placeholder replaced by a value the route can take."""
    segments = route.strip("/").split("/")
    out: list[str] = []
    for index, segment in enumerate(segments):
        match = re.fullmatch(r"\{(\w+)\}", segment)
        if match is None:
            out.append(segment)
            continue
        name, before = match.group(1), segments[index - 1] if index else ""
        out.append(str(_value(name, before, route, objects)))
    return "/api/v1/" + "/".join(out)


def _value(name: str, before: str, route: str, objects: dict):
    if before in ("bytag", "byserial") and "asset" in objects:
        return objects["asset"].asset_tag if before == "bytag" else objects["asset"].serial
    fixed = {"action": "audits", "upcoming_status": "due", "item_type": "asset", "status": "active",
             "name": "default", "file": "backup.zip", "file_id": 1}
    if name in fixed:
        return fixed[name]
    if route.startswith("/accessories/{accessory}/checkin") and "accessory_checkout" in objects:
        return objects["accessory_checkout"].pk
    if route.startswith("/components/{id}/checkin") and "component_assignment" in objects:
        return objects["component_assignment"].pk
    key = RESOURCE_OF_SEGMENT.get(before)
    found = objects.get(key) if key else None
    if found is None and name == "model":  # fieldsets/{fieldset}/fields/{model}
        found = objects.get("model")
    return getattr(found, "pk", 1) if found is not None else 1


# --- the walk ----------------------------------------------------------------------------------------------------

def route_is_missing(method: str, url: str) -> bool:
    """Whether no view here takes ``method`` on ``url``: it reaches the unknown-endpoint view, or a view without a
    handler for the method (which answers 405)."""
    try:
        match = resolve(url)
    except Resolver404:
        return True
    view = getattr(match.func, "cls", None)
    if view is None or view is EndpointNotFoundView:
        return view is EndpointNotFoundView
    actions = getattr(match.func, "actions", None)
    if actions is not None:
        return method.lower() not in actions
    return not hasattr(view, method.lower())


def _id(route: tuple[str, str]) -> str:
    return " ".join(route)


@pytest.mark.parametrize("route", [r for r in ROUTES if r not in PENDING], ids=_id)
def test_route_answers(route, token_client, objects):
    method, path = route
    url = fill(path, objects)
    assert not route_is_missing(method, url), f"{method} {url} reaches no view (404-route or 405)"
    body = {} if method in ("POST", "PUT", "PATCH") else None
    response = getattr(token_client, method.lower())(url, body, format="json") if body is not None else \
        getattr(token_client, method.lower())(url)
    assert response.status_code != 405, f"{method} {url}: 405"
    assert response.status_code < 500, f"{method} {url}: {response.status_code} {response.content[:300]!r}"
    # Under API_ERROR_STATUS=compat a resource's "not found" is a 200 envelope: a 404 with the unknown-endpoint
    # text comes from the fallback (or Django's handler404), unless the view fixes 404 for its own not-found.
    if response.status_code == 404 and not getattr(resolve(url).func.cls, "not_found_status", None):
        assert response.json().get("message") != ENDPOINT_NOT_FOUND, f"{method} {url}: the unknown-endpoint 404"


def test_the_walk_tells_missing_routes_apart():
    assert route_is_missing("GET", "/api/v1/no-such-thing")
    assert route_is_missing("PUT", "/api/v1/users/me")  # routed, but not for PUT: 405
    assert route_is_missing("POST", "/api/v1/hardware/1")
    assert not route_is_missing("GET", "/api/v1/hardware/99999")  # a missing object is the view's answer


@pytest.mark.parametrize("route", sorted(PENDING), ids=_id)
def test_pending_route_is_still_missing(route):
    """When a pending route starts answering, take it out of PENDING (the set only shrinks)."""
    method, path = route
    url = fill(path, {})
    assert route_is_missing(method, url), f"{method} {path} answers now: take it out of PENDING"

