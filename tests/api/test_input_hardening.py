"""Inputs that answered 500 or stored nonsense (issue 25 items 7, 9b, 12 and 16): lone surrogates in custom values,
filters and searches, a ``filter`` nested hundreds deep, a ``_snipeit_`` key holding a NUL, JSON numbers beyond a
double, NUL characters in ``sort`` and ``search``, and searches of many terms. Each is answered with the error
envelope and a field error (or, for the lenient list parameters, a list), and nothing is written. Run on SQLite and
PostgreSQL: they refuse NUL and lone surrogates differently."""

from __future__ import annotations

import json

import pytest

from activity.models import ActionLog
from assetsvc.api.inputs import MAX_SEARCH_TERMS, NUMBER_OUT_OF_RANGE, TOO_MANY_TERMS
from companies.models import Company
from inventory.custom_values.lookups import FILTER_TOO_DEEP, MAX_FILTER_DEPTH
from inventory.models import Asset, AssetFieldValue
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    CustomFieldFactory,
    ManufacturerFactory,
    StatusLabelFactory,
)
from tests.factories.custom_fields import fieldset_of

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"
SURROGATE = "Surrogate characters are not allowed: U+D800."
UNKNOWN = "This field does not seem to exist, please double check your custom field names."


@pytest.fixture
def field():
    return CustomFieldFactory(name="Text", display_audit=True)


@pytest.fixture
def model(field):
    return AssetModelFactory(fieldset=fieldset_of(field))


@pytest.fixture
def asset(model):
    return AssetFactory(model=model, name="Before")


def raw(client, method: str, path: str, text: str):
    """A JSON body sent as written (``\\ud800`` and ``1e999`` cannot be built from Python values)."""
    return client.generic(method, path, text, content_type="application/json")


def snapshot():
    return (list(Asset.objects.order_by("pk").values_list("pk", "name")), AssetFieldValue.objects.count(),
            ActionLog.objects.count())


def refused(response) -> dict:
    assert response.status_code == 200, response.content  # compat mode: the error envelope with HTTP 200
    body = response.json()
    assert body["status"] == "error" and body["payload"] is None, body
    return body["messages"]


# --- item 12: lone surrogates -------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_custom_value_is_a_field_error_on_every_write(token_client, field, model, asset):
    column = field.db_column_name
    value = '"a\\ud800b"'
    status = StatusLabelFactory().pk
    before = snapshot()
    writes = {
        "create": ("POST", URL, f'{{"asset_tag": "S-1", "model_id": {model.pk}, "status_id": {status}, '
                                f'"{column}": {value}}}', column),
        "patch": ("PATCH", f"{URL}/{asset.pk}", f'{{"name": "After", "{column}": {value}}}', column),
        "put": ("PUT", f"{URL}/{asset.pk}", f'{{"{column}": {value}}}', column),
        "nested": ("PATCH", f"{URL}/{asset.pk}", f'{{"custom_fields": {{"{column}": {value}}}}}',
                   f"custom_fields.{column}"),
        "nested value": ("PATCH", f"{URL}/{asset.pk}", f'{{"custom_fields": {{"Text": {{"value": {value}}}}}}}',
                         "custom_fields.Text.value"),
        "bulk": ("PATCH", f"{URL}/bulk", f'{{"ids": [{asset.pk}], "{column}": {value}}}', column),
        "audit": ("POST", f"{URL}/{asset.pk}/audit", f'{{"{column}": {value}}}', column),
        "bulk audit": ("POST", f"{URL}/audit/bulk", f'{{"ids": [{asset.pk}], "{column}": {value}}}', column),
    }
    for name, (method, path, text, key) in writes.items():
        assert refused(raw(token_client, method, path, text)) == {key: [SURROGATE]}, name
    assert snapshot() == before


def test_a_lone_surrogate_in_a_key_is_named_printably(token_client, asset):
    messages = refused(raw(token_client, "PATCH", f"{URL}/{asset.pk}", '{"_snipeit_\\ud800": "x"}'))
    assert messages == {"_snipeit_\\ud800": [SURROGATE]}


def test_a_lone_surrogate_in_a_filter_or_a_search_is_a_field_error(token_client, field, asset):
    messages = refused(token_client.get(URL, {"filter": json.dumps({field.db_column_name: "\ud800"})}))
    assert messages == {"filter": [SURROGATE]}
    messages = refused(token_client.get(URL, {"filter": json.dumps({"name": "x", "\ud800": "y"})}))
    assert messages == {"filter": [SURROGATE]}
    # a list reads a JSON body too (body over query string, API-CONTRACT.md §1)
    assert refused(raw(token_client, "GET", URL, '{"search": "\\ud800"}')) == {"search": [SURROGATE]}


# --- item 12: a filter nested hundreds deep -----------------------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_FILTER_DEPTH + 1, 450, 5000])
def test_a_deeply_nested_filter_is_a_field_error(token_client, field, asset, depth):
    nested = "[" * depth + "]" * depth
    assert refused(token_client.get(URL, {"filter": f'{{"{field.db_column_name}": {nested}}}'})) == {
        "filter": [FILTER_TOO_DEEP]}


def test_a_filter_within_the_depth_still_matches_nothing_for_a_list(token_client, field, asset):
    nested = "[" * (MAX_FILTER_DEPTH - 1) + "]" * (MAX_FILTER_DEPTH - 1)
    body = token_client.get(URL, {"filter": f'{{"{field.db_column_name}": {nested}}}'}).json()
    assert body == {"total": 0, "rows": []}


def test_a_deeply_nested_write_body_is_answered(token_client, asset):
    nested = "[" * 450 + "]" * 450
    messages = refused(raw(token_client, "PATCH", f"{URL}/{asset.pk}", f'{{"name": {nested}}}'))
    assert list(messages) == ["name"]
    assert refused(raw(token_client, "PATCH", f"{URL}/{asset.pk}", f'{{"custom_fields": {nested}}}')) == {
        "custom_fields": ["The custom fields field must be an object."]}


# --- item 12: a NUL in a custom field key -------------------------------------------------------------------------


def test_a_nul_in_a_custom_field_key_is_a_field_error(token_client, model, asset):
    before = snapshot()
    assert refused(raw(token_client, "PATCH", f"{URL}/{asset.pk}", '{"_snipeit_\\u0000": "x"}')) == {
        "_snipeit_\x00": [UNKNOWN]}
    body = (f'{{"asset_tag": "N-1", "model_id": {model.pk}, "status_id": {StatusLabelFactory().pk}, '
            f'"_snipeit_\\u0000": "x"}}')
    assert refused(raw(token_client, "POST", URL, body)) == {"_snipeit_\x00": [UNKNOWN]}
    bulk = refused(raw(token_client, "PATCH", f"{URL}/bulk", f'{{"ids": [{asset.pk}], "_snipeit_\\u0000": "x"}}'))
    assert bulk == {"_snipeit_\x00": [UNKNOWN]}
    assert snapshot() == before
    assert refused(raw(token_client, "GET", URL, '{"_snipeit_x\\u0000": "x"}')) == {"_snipeit_x\x00": [UNKNOWN]}


# --- item 9b: numbers beyond a double --------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1.5e400"])
def test_a_number_beyond_a_double_is_refused_not_stored_as_inf(token_client, field, asset, number):
    before = snapshot()
    assert refused(raw(token_client, "PATCH", f"{URL}/{asset.pk}", f'{{"name": {number}}}')) == {
        "name": [NUMBER_OUT_OF_RANGE]}
    assert refused(raw(token_client, "PATCH", f"{URL}/{asset.pk}",
                       f'{{"custom_fields": {{"{field.db_column_name}": {number}}}}}')) == {
        f"custom_fields.{field.db_column_name}": [NUMBER_OUT_OF_RANGE]}
    assert refused(raw(token_client, "POST", "/api/v1/companies", f'{{"name": {number}}}')) == {
        "name": [NUMBER_OUT_OF_RANGE]}
    assert snapshot() == before
    assert not Company.objects.filter(name__icontains="inf").exists()


def test_large_but_finite_numbers_still_work(token_client, field, asset):
    body = raw(token_client, "PATCH", f"{URL}/{asset.pk}", '{"name": 1e300}').json()
    assert body["status"] == "success", body
    asset.refresh_from_db()
    assert asset.name == "1e+300"


# --- item 16: NUL in sort and search ------------------------------------------------------------------------------


def test_a_nul_in_sort_falls_back_and_in_search_matches_nothing(token_client, field, asset):
    other = AssetFactory(name="Second")
    listed = token_client.get(URL, {"sort": "name\x00", "order": "asc\x00"}).json()
    assert [row["id"] for row in listed["rows"]] == [other.pk, asset.pk]  # created_at, descending
    listed = token_client.get(URL, {"sort": f"{field.db_column_name}\x00"}).json()
    assert listed["total"] == 2
    assert token_client.get(URL, {"search": "Before\x00"}).json() == {"total": 0, "rows": []}
    assert token_client.get(URL, {"search": "x OR \x00"}).json() == {"total": 0, "rows": []}
    assert raw(token_client, "GET", URL, '{"search": "Before\\u0000"}').json() == {"total": 0, "rows": []}
    CompanyFactory(name="Acme")
    assert token_client.get("/api/v1/companies", {"search": "Acme\x00", "sort": "\x00"}).json()["rows"] == []
    ManufacturerFactory(name="Acme")
    assert token_client.get("/api/v1/manufacturers/selectlist", {"search": "Acme\x00"}).json()["results"] == []
    assert refused(token_client.get(URL, {"notes": "a\x00"})) == {"notes": ["NUL characters are not allowed."]}


# --- item 7: searches of many terms -------------------------------------------------------------------------------


def test_a_search_of_too_many_terms_is_refused(token_client, asset):
    search = " OR ".join("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY")  # 51 terms in 251 characters
    assert len(search) <= 255
    expected = {"search": [TOO_MANY_TERMS]}
    assert refused(token_client.get(URL, {"search": search})) == expected
    assert refused(token_client.get("/api/v1/companies", {"search": search})) == expected
    assert refused(token_client.get("/api/v1/users", {"search": search})) == expected
    assert refused(token_client.get("/api/v1/manufacturers/selectlist", {"search": search})) == expected


def test_a_search_at_the_cap_and_repeated_terms_are_answered(token_client, asset):
    terms = [f"t{n}" for n in range(MAX_SEARCH_TERMS - 1)] + ["Before"]
    assert [row["id"] for row in token_client.get(URL, {"search": " OR ".join(terms)}).json()["rows"]] == [asset.pk]
    repeated = " OR ".join(["Before"] * 40)  # one term, said forty times
    assert token_client.get(URL, {"search": repeated}).json()["total"] == 1
