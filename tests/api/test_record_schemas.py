"""The OpenAPI schema describes what the API answers (issue 9): for users, companies, groups and hardware, each real
answer -- list, single read, create, update, restore, delete -- is checked against the 200 response that the
generated schema declares for its operation. Every object's keys must be exactly the schema's properties, and every
value must have the declared JSON type, format and nullability, so a key added to a record builder without its
serializer field (or the other way round) fails here."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from inventory.models import AccessoryCheckout, ComponentAssignment
from tests.factories import CompanyFactory, UserFactory
from tests.factories.accounts import PermissionGroupFactory
from tests.factories.inventory import (
    AssetFactory,
    LocationFactory,
    StatusLabelFactory,
    SupplierFactory,
    checked_out_asset,
)

# --- the checker ------------------------------------------------------------------------------------------------

JSON_TYPES: dict[str, Any] = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def _format_ok(fmt: str | None, value: str) -> bool:
    try:
        if fmt == "date":
            date.fromisoformat(value)
        elif fmt == "date-time":
            return bool(ISO_UTC.match(value)) and bool(datetime.fromisoformat(value.replace("Z", "+00:00")))
        elif fmt == "decimal":
            Decimal(value)
    except (ValueError, InvalidOperation):
        return False
    return True


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$ref`` and single-item ``allOf`` (drf-spectacular's nullable or read-only reference)
    replaced by what they point at; the outer keywords (``nullable``) win."""
    while "$ref" in schema or len(schema.get("allOf", ())) == 1:
        if "$ref" in schema:
            target = document
            for part in schema["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        else:
            outer = {k: v for k, v in schema.items() if k != "allOf"}
            schema = {**resolve(schema["allOf"][0], document), **outer}
    return schema


def mismatches(value: Any, schema: dict[str, Any], document: dict[str, Any], where: str = "$") -> list[str]:
    """Every way ``value`` (a decoded JSON answer) disagrees with ``schema`` (an OpenAPI 3.0 schema object of
    ``document``); empty when it agrees."""
    schema = resolve(schema, document)
    if value is None:
        return [] if schema.get("nullable") else [f"{where}: null, but the schema does not allow null"]
    if "anyOf" in schema:  # a 200 is the success shape or, in compat mode, the error envelope
        alternatives = [mismatches(value, s, document, where) for s in schema["anyOf"]]
        return [] if any(not errors for errors in alternatives) else alternatives[0]
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not mismatches(value, s, document, where)]
        if len(matching) != 1:
            return [f"{where}: matches {len(matching)} of the oneOf schemas, not exactly one: {value!r}"]
        return []
    kind = schema.get("type")
    if kind is None:
        return [f"{where}: the schema declares no type"]
    if not JSON_TYPES[kind](value):
        return [f"{where}: {type(value).__name__} {value!r}, but the schema says {kind}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if kind == "string" and not _format_ok(schema.get("format"), value):
        errors.append(f"{where}: {value!r} is not a {schema['format']}")
    if kind == "object":
        properties = schema.get("properties")
        if properties is not None:
            missing, extra = sorted(set(properties) - set(value)), sorted(set(value) - set(properties))
            if missing or extra:
                errors.append(f"{where}: keys the answer lacks: {missing}; keys the schema lacks: {extra}")
            for key in set(properties) & set(value):
                errors += mismatches(value[key], properties[key], document, f"{where}.{key}")
        elif not isinstance(schema.get("additionalProperties"), dict):
            errors.append(f"{where}: an object schema without properties or additionalProperties")
        if isinstance(schema.get("additionalProperties"), dict):
            for key, item in value.items():
                errors += mismatches(item, schema["additionalProperties"], document, f"{where}.{key}")
    if kind == "array":
        for index, item in enumerate(value):
            errors += mismatches(item, schema["items"], document, f"{where}[{index}]")
    return errors


def test_checker_reports_each_kind_of_disagreement():
    document = {"components": {"schemas": {"Brief": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}}}}}}
    schema = {"type": "object", "properties": {
        "id": {"type": "integer"},
        "brief": {"allOf": [{"$ref": "#/components/schemas/Brief"}], "nullable": True},
        "at": {"type": "string", "format": "date-time"},
        "flags": {"type": "object", "additionalProperties": {"type": "boolean"}},
    }}
    good = {"id": 1, "brief": None, "at": "2026-03-01T14:05:00Z", "flags": {"a": True}}
    assert mismatches(good, schema, document) == []
    assert mismatches({**good, "brief": {"id": 1, "name": "x"}}, schema, document) == []
    assert mismatches({**good, "extra": 1}, schema, document) == [
        "$: keys the answer lacks: []; keys the schema lacks: ['extra']"]
    assert mismatches({**good, "id": "1"}, schema, document) == ["$.id: str '1', but the schema says integer"]
    assert mismatches({**good, "id": True}, schema, document) == ["$.id: bool True, but the schema says integer"]
    assert mismatches({**good, "id": None}, schema, document) == [
        "$.id: null, but the schema does not allow null"]
    assert mismatches({**good, "brief": {"id": 1}}, schema, document) == [
        "$.brief: keys the answer lacks: ['name']; keys the schema lacks: []"]
    assert mismatches({**good, "at": "2026-03-01 14:05:00"}, schema, document) == [
        "$.at: '2026-03-01 14:05:00' is not a date-time"]
    assert mismatches({**good, "flags": {"a": 1}}, schema, document) == [
        "$.flags.a: int 1, but the schema says boolean"]


# --- the schema and the answers -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openapi(django_db_setup, django_db_blocker) -> dict[str, Any]:
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def declared_response(openapi: dict[str, Any], method: str, path: str, status: int = 200) -> dict[str, Any]:
    """The JSON schema of the ``status`` answer of ``method path`` (``path`` as templated in the schema, trailing
    slash or not)."""
    operations = [ops for template, ops in openapi["paths"].items() if template.rstrip("/") == path]
    assert len(operations) == 1, f"no single operation for {path}"
    operation = operations[0][method.lower()]
    responses = operation["responses"]
    assert str(status) in responses, f"{method} {path} documents {sorted(responses)}, answers {status}"
    content = responses[str(status)].get("content")
    assert content, f"{method} {path}: the {status} response has no body in the schema"
    return content["application/json"]["schema"]


def assert_described(openapi, response, method: str, path: str) -> dict[str, Any]:
    """The answer is described by its operation's schema, key for key and type for type; returns the body."""
    body = response.json()
    declared = declared_response(openapi, method, path, response.status_code)
    errors = mismatches(body, declared, openapi)
    assert not errors, f"{method} {path} answer disagrees with its schema:\n" + "\n".join(errors)
    return body


def record_properties(openapi, method: str, path: str, *keys: str) -> set[str]:
    """The property names of the record component found under ``keys`` (``rows``/``payload``) of a response."""
    schema = declared_response(openapi, method, path)
    schema = resolve(schema["anyOf"][0] if "anyOf" in schema else schema, openapi)  # the success shape
    for key in keys:
        if "oneOf" in schema:  # a list: Snipe-IT's ``{total, rows}`` first, then the cursor page's envelope
            schema = resolve(schema["oneOf"][0], openapi)
        schema = resolve(schema["properties"][key], openapi)
        if schema.get("type") == "array":
            schema = resolve(schema["items"], openapi)
    return set(schema["properties"])


@pytest.fixture
def world(db, company):
    now = timezone.now()
    location = LocationFactory(company=company)
    group = PermissionGroupFactory(name="Helpdesk", notes="desk")
    person = UserFactory(username="holder", company=company, location=location, employee_num="E-1",
                         jobtitle="Engineer", phone="555-0100", notes="n", last_login=now,
                         permissions={"assets.view": 1, "users.edit": -1})
    person.groups.add(group)
    UserFactory(username="gone", deleted_at=now)
    rich = AssetFactory(company=company, supplier=SupplierFactory(), location=location, rtd_location=location,
                        purchase_cost=Decimal("1234.50"), purchase_date=date(2025, 1, 31), warranty_months=13,
                        last_audit_date=now, next_audit_date=date.today() - timedelta(days=1),
                        order_number="PO-1", notes="note")
    checked_out_asset(person, expected_checkin=date.today(), last_checkout=now)
    checked_out_asset(rich)
    checked_out_asset(location)
    AssetFactory(deleted_at=now, asset_tag="GONE-1")
    return {"company": company, "location": location, "group": group, "person": person, "rich": rich}


# --- users --------------------------------------------------------------------------------------------------------


def test_user_reads_match_the_schema(openapi, token_client, world):
    body = assert_described(openapi, token_client.get("/api/v1/users", {"all": "true"}), "GET", "/api/v1/users")
    assert body["total"] >= 3 and any(row["groups"] for row in body["rows"])
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/users", "rows")
    assert_described(openapi, token_client.get("/api/v1/users", {"deleted": "true"}), "GET", "/api/v1/users")
    for user in (world["person"], token_client.user):
        record = assert_described(openapi, token_client.get(f"/api/v1/users/{user.pk}"), "GET",
                                  "/api/v1/users/{id}")
        assert set(record) == record_properties(openapi, "GET", "/api/v1/users/{id}")
    assert_described(openapi, token_client.get("/api/v1/users/me"), "GET", "/api/v1/users/me")


def test_user_writes_match_the_schema(openapi, token_client, world):
    created = assert_described(openapi, token_client.post("/api/v1/users", {
        "first_name": "Ada", "last_name": "Lovelace", "username": "ada", "password": "analytical-engine",
        "email": "ada@example.com", "company_id": world["company"].pk, "groups": [world["group"].pk],
    }, format="json"), "POST", "/api/v1/users")
    assert created["status"] == "success" and created["payload"]["groups"]["total"] == 1
    assert set(created["payload"]) == record_properties(openapi, "POST", "/api/v1/users", "payload")
    user_id = created["payload"]["id"]
    for method in ("PATCH", "PUT"):
        response = getattr(token_client, method.lower())(f"/api/v1/users/{user_id}", {"jobtitle": method},
                                                         format="json")
        assert_described(openapi, response, method, "/api/v1/users/{id}")
    assert_described(openapi, token_client.delete(f"/api/v1/users/{user_id}"), "DELETE", "/api/v1/users/{id}")
    assert_described(openapi, token_client.post(f"/api/v1/users/{user_id}/restore"), "POST",
                     "/api/v1/users/{id}/restore")


# --- companies ----------------------------------------------------------------------------------------------------


def test_company_answers_match_the_schema(openapi, token_client, world):
    CompanyFactory(name="Empty", phone="5550100", email="e@example.com", tag_color="#abc")
    body = assert_described(openapi, token_client.get("/api/v1/companies"), "GET", "/api/v1/companies")
    assert body["total"] == 2
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/companies", "rows")
    company_id = world["company"].pk
    record = assert_described(openapi, token_client.get(f"/api/v1/companies/{company_id}"), "GET",
                              "/api/v1/companies/{id}")
    assert set(record) == record_properties(openapi, "GET", "/api/v1/companies/{id}")
    created = assert_described(openapi, token_client.post("/api/v1/companies", {"name": "New"}, format="json"),
                               "POST", "/api/v1/companies")
    assert set(created["payload"]) == record_properties(openapi, "POST", "/api/v1/companies", "payload")
    new_id = created["payload"]["id"]
    for method in ("PATCH", "PUT"):
        response = getattr(token_client, method.lower())(f"/api/v1/companies/{new_id}", {"notes": method},
                                                         format="json")
        assert_described(openapi, response, method, "/api/v1/companies/{id}")
    assert_described(openapi, token_client.delete(f"/api/v1/companies/{new_id}"), "DELETE",
                     "/api/v1/companies/{id}")


# --- groups -------------------------------------------------------------------------------------------------------


def test_group_answers_match_the_schema(openapi, token_client, world):
    PermissionGroupFactory(name="Empty", permissions={"assets.view": 1})
    body = assert_described(openapi, token_client.get("/api/v1/groups"), "GET", "/api/v1/groups")
    assert body["total"] == 2
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/groups", "rows")
    record = assert_described(openapi, token_client.get(f"/api/v1/groups/{world['group'].pk}"), "GET",
                              "/api/v1/groups/{id}")
    assert set(record) == record_properties(openapi, "GET", "/api/v1/groups/{id}")
    created = assert_described(openapi, token_client.post("/api/v1/groups", {
        "name": "New", "permissions": {"assets.view": 1}}, format="json"), "POST", "/api/v1/groups")
    assert set(created["payload"]) == record_properties(openapi, "POST", "/api/v1/groups", "payload")
    new_id = created["payload"]["id"]
    for method in ("PATCH", "PUT"):
        response = getattr(token_client, method.lower())(f"/api/v1/groups/{new_id}", {"notes": method},
                                                         format="json")
        assert_described(openapi, response, method, "/api/v1/groups/{id}")
    assert_described(openapi, token_client.delete(f"/api/v1/groups/{new_id}"), "DELETE", "/api/v1/groups/{id}")


# --- hardware -----------------------------------------------------------------------------------------------------


def test_hardware_reads_match_the_schema(openapi, token_client, world):
    body = assert_described(openapi, token_client.get("/api/v1/hardware"), "GET", "/api/v1/hardware")
    assert body["total"] == 4
    assert {row["assigned_to"]["type"] for row in body["rows"] if row["assigned_to"]} == {"user", "asset",
                                                                                          "location"}
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/hardware", "rows")
    deleted = assert_described(openapi, token_client.get("/api/v1/hardware", {"status": "Deleted"}), "GET",
                               "/api/v1/hardware")
    assert [row["asset_tag"] for row in deleted["rows"]] == ["GONE-1"] and deleted["rows"][0]["deleted_at"]
    for row in body["rows"]:
        record = assert_described(openapi, token_client.get(f"/api/v1/hardware/{row['id']}"), "GET",
                                  "/api/v1/hardware/{id}")
        assert set(record) == record_properties(openapi, "GET", "/api/v1/hardware/{id}")
    rich = world["rich"]
    assert_described(openapi, token_client.get(f"/api/v1/hardware/bytag/{rich.asset_tag}"), "GET",
                     "/api/v1/hardware/bytag/{tag}")
    assert_described(openapi, token_client.get(f"/api/v1/hardware/byserial/{rich.serial}"), "GET",
                     "/api/v1/hardware/byserial/{serial}")
    due = assert_described(openapi, token_client.get("/api/v1/hardware/audits/overdue"), "GET",
                           "/api/v1/hardware/{kind}/{when}")
    assert due["total"] == 1
    first = assert_described(openapi, token_client.get("/api/v1/hardware", {"cursor": "", "limit": 3}), "GET",
                             "/api/v1/hardware")
    assert first["total"] is None and len(first["rows"]) == 3 and first["next_cursor"]
    last = assert_described(openapi, token_client.get("/api/v1/hardware", {"cursor": first["next_cursor"]}), "GET",
                            "/api/v1/hardware")
    assert len(last["rows"]) == 1 and last["next_cursor"] is None
    refused = token_client.get("/api/v1/hardware", {"cursor": "x"})
    assert refused.status_code == 400
    assert_described(openapi, refused, "GET", "/api/v1/hardware")


def test_hardware_writes_match_the_schema(openapi, token_client, world):
    rich = world["rich"]
    created = assert_described(openapi, token_client.post("/api/v1/hardware", {
        "asset_tag": "NEW-1", "model_id": rich.model_id, "status_id": StatusLabelFactory().pk,
        "assigned_user": world["person"].pk, "purchase_cost": "10", "company_id": world["company"].pk,
    }, format="json"), "POST", "/api/v1/hardware")
    payload = created["payload"]
    assert payload["assigned_to"]["type"] == "user" and payload["company_id"] == world["company"].pk
    assert set(payload) == record_properties(openapi, "POST", "/api/v1/hardware", "payload")
    for method in ("PATCH", "PUT"):
        response = getattr(token_client, method.lower())(f"/api/v1/hardware/{rich.pk}", {"notes": method},
                                                         format="json")
        assert_described(openapi, response, method, "/api/v1/hardware/{id}")
    new_id = payload["id"]
    token_client.post(f"/api/v1/hardware/{new_id}/checkin", {}, format="json")
    assert_described(openapi, token_client.delete(f"/api/v1/hardware/{new_id}"), "DELETE",
                     "/api/v1/hardware/{id}")
    restored = assert_described(openapi, token_client.post(f"/api/v1/hardware/{new_id}/restore"), "POST",
                                "/api/v1/hardware/{id}/restore")
    assert restored["status"] == "success"


# --- accessories and consumables ------------------------------------------------------------------------------------


def test_accessory_answers_match_the_schema(openapi, token_client, world):
    from tests.factories import CategoryFactory

    person, place = world["person"], LocationFactory()
    created = assert_described(openapi, token_client.post("/api/v1/accessories", {
        "name": "Dock", "qty": 5, "category_id": CategoryFactory(category_type="accessory").pk,
        "purchase_cost": "12.5", "purchase_date": "2026-01-02", "company_id": world["company"].pk,
    }, format="json"), "POST", "/api/v1/accessories")
    payload = created["payload"]
    assert set(payload) == record_properties(openapi, "POST", "/api/v1/accessories", "payload")
    item = f"/api/v1/accessories/{payload['id']}"
    row = assert_described(openapi, token_client.post(f"{item}/checkout", {"assigned_user": person.pk,
                                                                           "checkout_qty": 2}, format="json"),
                           "POST", "/api/v1/accessories/{id}/checkout")["payload"]
    assert_described(openapi, token_client.post(f"{item}/checkout", {"assigned_location": place.pk}, format="json"),
                     "POST", "/api/v1/accessories/{id}/checkout")
    assert_described(openapi, token_client.post(f"{item}/checkout", {"assigned_asset": world["rich"].pk},
                                                format="json"), "POST", "/api/v1/accessories/{id}/checkout")
    body = assert_described(openapi, token_client.get("/api/v1/accessories"), "GET", "/api/v1/accessories")
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/accessories", "rows")
    assert_described(openapi, token_client.get(item), "GET", "/api/v1/accessories/{id}")
    listed = assert_described(openapi, token_client.get(f"{item}/checkedout"), "GET",
                              "/api/v1/accessories/{id}/checkedout")
    assert listed["total"] == 3
    assert_described(openapi, token_client.get(f"/api/v1/users/{person.pk}/accessories"), "GET",
                     "/api/v1/users/{user_pk}/accessories")
    assert_described(openapi, token_client.get(f"/api/v1/hardware/{world['rich'].pk}/assigned/accessories"), "GET",
                     "/api/v1/hardware/{asset_pk}/assigned/accessories")
    assert_described(openapi, token_client.get(f"/api/v1/locations/{place.pk}/assigned/accessories"), "GET",
                     "/api/v1/locations/{location_pk}/assigned/accessories")
    for method in ("PATCH", "PUT"):
        assert_described(openapi, getattr(token_client, method.lower())(item, {"notes": method}, format="json"),
                         method, "/api/v1/accessories/{id}")
    for checkout in AccessoryCheckout.objects.filter(accessory_id=payload["id"]):
        assert_described(openapi, token_client.post(f"/api/v1/accessories/{checkout.pk}/checkin", {}, format="json"),
                         "POST", "/api/v1/accessories/{id}/checkin")
    assert row["checkout_qty"] == 2
    assert_described(openapi, token_client.delete(item), "DELETE", "/api/v1/accessories/{id}")
    assert_described(openapi, token_client.post(f"{item}/restore"), "POST", "/api/v1/accessories/{id}/restore")


def test_consumable_answers_match_the_schema(openapi, token_client, world):
    from tests.factories import CategoryFactory

    person = world["person"]
    created = assert_described(openapi, token_client.post("/api/v1/consumables", {
        "name": "Toner", "qty": 10, "category_id": CategoryFactory(category_type="consumable").pk, "item_no": "T-1",
    }, format="json"), "POST", "/api/v1/consumables")
    item = f"/api/v1/consumables/{created['payload']['id']}"
    assert_described(openapi, token_client.post(f"{item}/checkout", {"assigned_to": person.pk, "checkout_qty": 3},
                                                format="json"), "POST", "/api/v1/consumables/{id}/checkout")
    body = assert_described(openapi, token_client.get("/api/v1/consumables"), "GET", "/api/v1/consumables")
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/consumables", "rows")
    assert_described(openapi, token_client.get(item), "GET", "/api/v1/consumables/{id}")
    assert_described(openapi, token_client.get(f"{item}/users"), "GET", "/api/v1/consumables/{id}/users")
    assert_described(openapi, token_client.get(f"/api/v1/users/{person.pk}/consumables"), "GET",
                     "/api/v1/users/{user_pk}/consumables")
    assert_described(openapi, token_client.patch(item, {"qty": 12}, format="json"), "PATCH",
                     "/api/v1/consumables/{id}")
    assert_described(openapi, token_client.delete(item), "DELETE", "/api/v1/consumables/{id}")
    assert_described(openapi, token_client.post(f"{item}/restore"), "POST", "/api/v1/consumables/{id}/restore")


def test_component_answers_match_the_schema(openapi, token_client, world):
    from tests.factories import CategoryFactory

    rich = world["rich"]
    created = assert_described(openapi, token_client.post("/api/v1/components", {
        "name": "16 GB DDR5", "qty": 6, "category_id": CategoryFactory(category_type="component").pk,
        "serial": "SN-1", "purchase_cost": "40", "purchase_date": "2026-01-02", "company_id": world["company"].pk,
        "location_id": world["location"].pk,
    }, format="json"), "POST", "/api/v1/components")
    payload = created["payload"]
    assert set(payload) == record_properties(openapi, "POST", "/api/v1/components", "payload")
    item = f"/api/v1/components/{payload['id']}"
    row = assert_described(openapi, token_client.post(f"{item}/checkout", {"assigned_to": rich.pk, "assigned_qty": 2,
                                                                           "note": "slot 1"}, format="json"),
                           "POST", "/api/v1/components/{id}/checkout")["payload"]
    # An unnamed asset (its tag is its name) and an installation without a note.
    assert_described(openapi, token_client.post(f"{item}/checkout", {"assigned_to": AssetFactory(name="").pk},
                                                format="json"), "POST", "/api/v1/components/{id}/checkout")
    body = assert_described(openapi, token_client.get("/api/v1/components"), "GET", "/api/v1/components")
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/components", "rows")
    assert_described(openapi, token_client.get(item), "GET", "/api/v1/components/{id}")
    listed = assert_described(openapi, token_client.get(f"{item}/assets"), "GET", "/api/v1/components/{id}/assets")
    assert listed["total"] == 2
    held = assert_described(openapi, token_client.get(f"/api/v1/hardware/{rich.pk}/components"), "GET",
                            "/api/v1/hardware/{asset_pk}/components")
    assert [(r["assigned_pivot_id"], r["checkout_qty"]) for r in held["rows"]] == [(row["assigned_pivot_id"], 2)]
    assert_described(openapi, token_client.get("/api/v1/components/selectlist"), "GET",
                     "/api/v1/components/selectlist")
    for method in ("PATCH", "PUT"):
        assert_described(openapi, getattr(token_client, method.lower())(item, {"notes": method}, format="json"),
                         method, "/api/v1/components/{id}")
    assert_described(openapi, token_client.post(f"/api/v1/components/{row['assigned_pivot_id']}/checkin",
                                                {"checkin_qty": 1}, format="json"),
                     "POST", "/api/v1/components/{id}/checkin")
    for installed in ComponentAssignment.objects.filter(component_id=payload["id"]):
        assert_described(openapi, token_client.post(f"/api/v1/components/{installed.pk}/checkin", {}, format="json"),
                         "POST", "/api/v1/components/{id}/checkin")
    assert_described(openapi, token_client.delete(item), "DELETE", "/api/v1/components/{id}")
    assert_described(openapi, token_client.get("/api/v1/components", {"deleted": "true"}), "GET",
                     "/api/v1/components")
    assert_described(openapi, token_client.post(f"{item}/restore"), "POST", "/api/v1/components/{id}/restore")


# --- licenses -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("keys", [True, False])
def test_license_answers_match_the_schema(openapi, token_client, make_client, world, keys):
    from tests.factories import CategoryFactory

    person, rich = world["person"], world["rich"]
    created = assert_described(openapi, token_client.post("/api/v1/licenses", {
        "name": "Office", "seats": 3, "category_id": CategoryFactory(category_type="license").pk, "serial": "K-1",
        "purchase_cost": "12.5", "purchase_date": "2026-01-02", "expiration_date": "2027-01-02",
        "license_email": "it@example.com", "company_id": world["company"].pk,
    }, format="json"), "POST", "/api/v1/licenses")
    payload = created["payload"]
    assert set(payload) == record_properties(openapi, "POST", "/api/v1/licenses", "payload")
    item = f"/api/v1/licenses/{payload['id']}"
    client = token_client if keys else make_client(UserFactory(permissions={
        "licenses.view": 1, "licenses.checkout": 1, "users.view": 1, "assets.view": 1}))
    seats = assert_described(openapi, client.get(f"{item}/seats"), "GET", "/api/v1/licenses/{id}/seats")
    first, second, _third = (row["id"] for row in seats["rows"])
    for seat, body in ((first, {"assigned_to": person.pk, "notes": "n"}), (second, {"asset_id": rich.pk})):
        assert_described(openapi, client.patch(f"{item}/seats/{seat}", body, format="json"), "PATCH",
                         "/api/v1/licenses/{id}/seats/{seat_pk}")
    assert_described(openapi, client.put(f"{item}/seats/{second}", {"asset_id": None}, format="json"), "PUT",
                     "/api/v1/licenses/{id}/seats/{seat_pk}")
    listed = assert_described(openapi, client.get(f"{item}/seats"), "GET", "/api/v1/licenses/{id}/seats")
    assert listed["rows"][0]["assigned_user"]["id"] == person.pk
    assert_described(openapi, client.get(f"{item}/seats/{first}"), "GET", "/api/v1/licenses/{id}/seats/{seat_pk}")
    body = assert_described(openapi, client.get("/api/v1/licenses"), "GET", "/api/v1/licenses")
    assert set(body["rows"][0]) == record_properties(openapi, "GET", "/api/v1/licenses", "rows")
    assert_described(openapi, client.get(item), "GET", "/api/v1/licenses/{id}")
    held = assert_described(openapi, client.get(f"/api/v1/users/{person.pk}/licenses"), "GET",
                            "/api/v1/users/{user_pk}/licenses")
    assert held["total"] == 1 and held["rows"][0]["product_key"] == ("K-1" if keys else "------------")
    assert_described(openapi, client.get(f"/api/v1/hardware/{rich.pk}/licenses"), "GET",
                     "/api/v1/hardware/{asset_pk}/licenses")
    for method in ("PATCH", "PUT"):
        assert_described(openapi, getattr(token_client, method.lower())(item, {"notes": method}, format="json"),
                         method, "/api/v1/licenses/{id}")
    token_client.patch(f"{item}/seats/{first}", {"assigned_to": None}, format="json")
    assert_described(openapi, token_client.delete(item), "DELETE", "/api/v1/licenses/{id}")
    assert_described(openapi, token_client.post(f"{item}/restore"), "POST", "/api/v1/licenses/{id}/restore")


# --- found by the fuzz run (tests/api/test_fuzz.py) -----------------------------------------------------------------


def test_manufacturer_and_model_records_may_have_a_null_deleted_at(openapi, token_client, db):
    """A live manufacturer or model answers ``deleted_at: null``; the schema declared a non-null date-time."""
    from tests.factories.inventory import AssetModelFactory, ManufacturerFactory

    made = ManufacturerFactory()
    record = assert_described(openapi, token_client.get(f"/api/v1/manufacturers/{made.pk}"), "GET",
                              "/api/v1/manufacturers/{id}")
    assert record["deleted_at"] is None
    model = AssetModelFactory()
    record = assert_described(openapi, token_client.get(f"/api/v1/models/{model.pk}"), "GET", "/api/v1/models/{id}")
    assert record["deleted_at"] is None
    created = assert_described(openapi, token_client.post("/api/v1/manufacturers", {"name": "New"}, format="json"),
                               "POST", "/api/v1/manufacturers")
    assert created["payload"]["deleted_at"] is None


def test_error_answers_are_documented(openapi, token_client, api_client, db):
    """Snipe-IT answers HTTP 200 with the error envelope (compat mode); 401 and 422 carry it too. The schema says so
    for every operation instead of declaring only the success shape."""
    missing = assert_described(openapi, token_client.get("/api/v1/manufacturers/999999"), "GET",
                               "/api/v1/manufacturers/{id}")
    assert missing["status"] == "error" and missing["payload"] is None
    invalid = assert_described(openapi, token_client.post("/api/v1/manufacturers", {}, format="json"), "POST",
                               "/api/v1/manufacturers")
    assert invalid["status"] == "error" and "name" in invalid["messages"]
    listed = assert_described(openapi, token_client.get("/api/v1/accessories/999999/checkedout"), "GET",
                              "/api/v1/accessories/{id}/checkedout")
    assert listed["status"] == "error"
    anonymous = api_client.get("/api/v1/hardware", HTTP_ACCEPT="application/json")
    assert anonymous.status_code == 401
    assert_described(openapi, anonymous, "GET", "/api/v1/hardware")
    malformed = token_client.generic("POST", "/api/v1/manufacturers", "{", content_type="application/json")
    assert malformed.status_code == 422
    assert_described(openapi, malformed, "POST", "/api/v1/manufacturers")
    for operations in openapi["paths"].values():
        for operation in operations.values():
            assert {"200", "401", "403", "404", "409", "422", "429", "503"} <= set(operation["responses"]) or (
                "204" in operation["responses"])
