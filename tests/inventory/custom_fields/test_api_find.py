"""Finding assets by custom field values (API-CONTRACT.md §11.2, docs/custom-fields.md "Finding assets"):
``?<column>=``, ``filter={json}``, ``search`` and ``sort=<column>`` on ``GET /hardware`` and the lists that share its
filters. Values are stored rows (``AssetFieldValue``), written as the write side stores them."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from inventory.choices import StatusType
from inventory.custom_values import lookups as custom_filters
from inventory.models import Asset, AssetFieldValue, CustomField
from tests.conftest import ON_POSTGRES
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    CustomFieldsetFieldFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.custom_fields import AssetFieldValueFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/hardware"
UNKNOWN = "This field does not seem to exist, please double check your custom field names."
ENCRYPTED = "Encrypted custom fields cannot be used to filter."


@dataclass
class World:
    mac: CustomField
    ram: CustomField
    os: CustomField
    secret: CustomField
    full: object  # the model whose fieldset has every field
    slim: object  # the model whose fieldset has only ``os``
    bare: object  # a model without fieldset


def put(asset: Asset, field: CustomField, value: str) -> AssetFieldValue:
    return AssetFieldValueFactory(asset=asset, field=field, value=value)


@pytest.fixture
def world() -> World:
    mac = CustomFieldFactory(name="MAC Address", format="MAC")
    ram = CustomFieldFactory(name="RAM", format="NUMERIC")
    os_field = CustomFieldFactory(name="OS")
    secret = CustomFieldFactory(name="Secret", field_encrypted=True)
    full_set, slim_set = CustomFieldsetFactory(name="Laptops"), CustomFieldsetFactory(name="Phones")
    for order, field in enumerate((mac, ram, os_field, secret)):
        CustomFieldsetFieldFactory(fieldset=full_set, field=field, order=order)
    CustomFieldsetFieldFactory(fieldset=slim_set, field=os_field, order=0)
    return World(mac, ram, os_field, secret, AssetModelFactory(fieldset=full_set),
                 AssetModelFactory(fieldset=slim_set), AssetModelFactory())


def ids(body) -> list[int]:
    assert "rows" in body, body
    return [row["id"] for row in body["rows"]]


def listed(client, params: dict, path: str = URL) -> list[int]:
    return ids(client.get(path, params).json())


# --- exact: ?<column>=<value> -----------------------------------------------------------------------------------


def test_a_column_finds_the_value_ignoring_case_and_surrounding_spaces(token_client, world):
    laptop = AssetFactory(model=world.full)
    put(laptop, world.mac, "AA:BB:CC:00:11:22")
    put(AssetFactory(model=world.full), world.mac, "AA:BB:CC:00:11:23")
    AssetFactory(model=world.full)
    body = token_client.get(URL, {world.mac.db_column_name: "  aa:bb:cc:00:11:22 "}).json()
    assert body["total"] == 1 and ids(body) == [laptop.pk]


def test_the_exact_filter_is_not_a_substring(token_client, world):
    put(AssetFactory(model=world.full), world.os, "macOS 14")
    assert listed(token_client, {world.os.db_column_name: "macOS"}) == []


def test_values_longer_than_the_indexed_prefix_compare_whole(token_client, world):
    prefix = "x" * 200
    wanted = AssetFactory(model=world.full)
    put(wanted, world.os, prefix + "A")
    put(AssetFactory(model=world.full), world.os, prefix + "B")
    assert listed(token_client, {world.os.db_column_name: prefix + "a"}) == [wanted.pk]
    assert listed(token_client, {world.os.db_column_name: prefix}) == []


def test_columns_are_and_ed_with_each_other_and_with_other_filters(token_client, world):
    pending = StatusLabelFactory(type=StatusType.PENDING)
    both = AssetFactory(model=world.full, status=pending)
    put(both, world.os, "Linux")
    put(both, world.ram, "16")
    other_status = AssetFactory(model=world.full)
    put(other_status, world.os, "Linux")
    put(other_status, world.ram, "16")
    one_value = AssetFactory(model=world.full, status=pending)
    put(one_value, world.os, "Linux")
    put(one_value, world.ram, "8")
    params = {world.os.db_column_name: "linux", world.ram.db_column_name: "16"}
    assert set(listed(token_client, params)) == {both.pk, other_status.pk}
    body = token_client.get(URL, {**params, "status_id": pending.pk}).json()
    assert body["total"] == 1 and ids(body) == [both.pk]


def test_an_empty_parameter_is_ignored(token_client, world):
    made = [AssetFactory(model=world.full).pk, AssetFactory(model=world.bare).pk]
    assert sorted(listed(token_client, {world.os.db_column_name: ""})) == sorted(made)


def test_only_assets_whose_current_model_shows_the_field_match(token_client, world):
    shown = AssetFactory(model=world.full)
    hidden = AssetFactory(model=world.slim)  # its model's set has no MAC field: the value is kept, hidden
    bare = AssetFactory(model=world.bare)
    for asset in (shown, hidden, bare):
        put(asset, world.mac, "00:00:00:00:00:01")
    column = world.mac.db_column_name
    assert listed(token_client, {column: "00:00:00:00:00:01"}) == [shown.pk]
    hidden.model = world.full  # the model changes back: the value is found again
    hidden.save()
    assert set(listed(token_client, {column: "00:00:00:00:00:01"})) == {shown.pk, hidden.pk}
    assert AssetFieldValue.objects.filter(field=world.mac).count() == 3


def test_a_field_taken_out_of_the_set_hides_its_values(token_client, world):
    asset = AssetFactory(model=world.full)
    put(asset, world.mac, "00:00:00:00:00:02")
    world.full.fieldset.memberships.filter(field=world.mac).delete()
    assert listed(token_client, {world.mac.db_column_name: "00:00:00:00:00:02"}) == []


def test_a_list_value_matches_nothing(token_client, world):
    put(AssetFactory(model=world.full), world.os, "Linux")
    column = world.os.db_column_name
    assert listed(token_client, {column: ["Linux", "BSD"]}) == []


@pytest.mark.parametrize("mode", ["compat", "http"])
def test_an_unknown_column_is_a_field_error_never_the_whole_list(token_client, world, settings, mode):
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": mode}
    AssetFactory(model=world.full)
    response = token_client.get(URL, {"_snipeit_nothing_99": "x", world.os.db_column_name: "Linux"})
    assert response.status_code == (200 if mode == "compat" else 422)
    assert response.json() == {"status": "error", "message": UNKNOWN, "messages": {"_snipeit_nothing_99": [UNKNOWN]},
                               "payload": None}


def test_an_unknown_column_is_refused_even_when_another_filter_matches_nothing(token_client, world):
    body = token_client.get(URL, {"_snipeit_nothing_99": "x", "model_id": "abc"}).json()
    assert body["messages"] == {"_snipeit_nothing_99": [UNKNOWN]}


def test_an_encrypted_column_cannot_filter(token_client, world):
    put(AssetFactory(model=world.full), world.secret, "hunter2")
    body = token_client.get(URL, {world.secret.db_column_name: "hunter2"}).json()
    assert body["status"] == "error"
    assert body["messages"] == {world.secret.db_column_name: [ENCRYPTED]}


def test_every_bad_column_is_reported_at_once(token_client, world):
    body = token_client.get(URL, {world.secret.db_column_name: "a", "_snipeit_gone_1": "b",
                                  "filter": json.dumps({"_snipeit_gone_2": "c"})}).json()
    assert body["messages"] == {world.secret.db_column_name: [ENCRYPTED], "_snipeit_gone_1": [UNKNOWN],
                                "_snipeit_gone_2": [UNKNOWN]}


def test_the_exact_filter_ignores_other_texts_of_the_same_value(token_client, world):
    """Trimmed stored values only: a value is found by its text, not by another field's equal value."""
    asset = AssetFactory(model=world.full)
    put(asset, world.os, "Linux")
    assert listed(token_client, {world.mac.db_column_name: "Linux"}) == []


# --- filter={json} ----------------------------------------------------------------------------------------------


def test_filter_matches_substrings_of_columns_with_or_without_the_prefix(token_client, world):
    mac_os = AssetFactory(model=world.full, name="Design laptop")
    put(mac_os, world.os, "macOS 14 Sonoma")
    put(AssetFactory(model=world.full, name="Design box"), world.os, "Windows 11")
    put(AssetFactory(model=world.slim), world.mac, "macOS")  # not shown: hidden
    assert listed(token_client, {"filter": json.dumps({world.os.db_column_name: "SONOMA"})}) == [mac_os.pk]
    prefixed = {f"custom_fields.{world.os.db_column_name}": "macos", "name": "design"}
    assert listed(token_client, {"filter": json.dumps(prefixed)}) == [mac_os.pk]


def test_filter_keys_are_and_ed_and_others_are_ignored(token_client, world):
    hit = AssetFactory(model=world.full, asset_tag="LAP-001", serial="SN-XYZ", order_number="PO-7",
                       notes="spare unit")
    miss = AssetFactory(model=world.full, asset_tag="LAP-002", serial="SN-ABC", order_number="PO-7")
    put(hit, world.os, "Linux")
    put(miss, world.os, "Linux")
    query = {"asset_tag": "lap", "serial": "xyz", "order_number": "po-", "notes": "SPARE",
             world.os.db_column_name: "nux", "model": "ignored", "custom_fields.OS": "ignored"}
    assert listed(token_client, {"filter": json.dumps(query)}) == [hit.pk]
    assert sorted(listed(token_client, {"filter": json.dumps({"asset_tag": "LAP"})})) == sorted([hit.pk, miss.pk])


def test_filter_empty_values_are_ignored(token_client, world):
    made = {AssetFactory(model=world.full).pk, AssetFactory(model=world.bare).pk}
    query = {world.os.db_column_name: "", "name": None}
    assert set(listed(token_client, {"filter": json.dumps(query)})) == made


def test_filter_replaces_search_when_given(token_client, world):
    by_search = AssetFactory(model=world.full, name="Alpha")
    by_filter = AssetFactory(model=world.full, name="Beta")
    put(by_filter, world.os, "Linux")
    params = {"search": "Alpha", "filter": json.dumps({world.os.db_column_name: "linux"})}
    assert listed(token_client, params) == [by_filter.pk]
    assert listed(token_client, {"search": "Alpha", "filter": "{}"}) == [by_search.pk]
    assert listed(token_client, {"search": "Alpha", "filter": ""}) == [by_search.pk]


@pytest.mark.parametrize("value", ["[1, 2]", "\"text\"", "12", "{not json", "null"])
def test_filter_must_be_a_json_object(token_client, world, value):
    body = token_client.get(URL, {"filter": value, "search": "x"}).json()
    assert body["status"] == "error"
    assert body["messages"] == {"filter": ["The filter must be a JSON object."]}


def test_filter_refuses_nul_characters(token_client, world):
    put(AssetFactory(model=world.full), world.os, "Linux")
    for query in ({world.os.db_column_name: "Li\u0000"}, {"name\u0000": "x"}):
        body = token_client.get(URL, {"filter": json.dumps(query)}).json()
        assert body["messages"] == {"filter": ["NUL characters are not allowed."]}


def test_filter_refuses_unknown_and_encrypted_columns(token_client, world):
    query = {f"custom_fields.{world.secret.db_column_name}": "a", "_snipeit_gone_3": "b"}
    body = token_client.get(URL, {"filter": json.dumps(query)}).json()
    assert body["messages"] == {f"custom_fields.{world.secret.db_column_name}": [ENCRYPTED],
                                "_snipeit_gone_3": [UNKNOWN]}


def test_filter_never_matches_encrypted_tokens_by_substring(token_client, world):
    """Encrypted values are stored as Fernet tokens, which start with ``gAAAAA``: nothing finds them."""
    put(AssetFactory(model=world.full), world.secret, "hunter2")
    assert listed(token_client, {"search": "gAAAAA"}) == []


# --- search -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("term", ["sonoma", "SO", "nothing OR sonom"])
def test_search_matches_shown_plain_values(token_client, world, term):
    """Terms of three characters or more run as the indexed union on PostgreSQL, shorter ones as one scan: both
    find custom values."""
    found = AssetFactory(model=world.full, name="Plain")
    put(found, world.os, "macOS Sonoma")
    put(AssetFactory(model=world.slim, name="Plain too"), world.mac, "sonoma")  # hidden
    AssetFactory(model=world.full, name="Plain three")
    body = token_client.get(URL, {"search": term}).json()
    assert ids(body) == [found.pk] and body["total"] == 1


@pytest.mark.parametrize("client_kind", ["superuser", "encrypted_reader"])
def test_search_never_matches_encrypted_values(make_client, superuser, world, client_kind):
    user = superuser if client_kind == "superuser" else UserFactory(
        permissions={"assets.view": 1, "assets.view.encrypted_custom_fields": 1})
    put(AssetFactory(model=world.full), world.secret, "hunter2")
    assert listed(make_client(user), {"search": "hunter2"}) == []


def test_search_still_matches_the_asset_columns_and_related_names(token_client, world):
    by_name = AssetFactory(model=world.full, name="Zebra-7")
    by_value = AssetFactory(model=world.full)
    put(by_value, world.os, "zebra OS")
    assert set(listed(token_client, {"search": "zebra"})) == {by_name.pk, by_value.pk}


# --- sort -------------------------------------------------------------------------------------------------------


def test_numeric_fields_sort_by_number(token_client, world):
    made = {}
    for text in ("8", "16", "100", "-2.5", "1e3"):
        made[text] = AssetFactory(model=world.full)
        put(made[text], world.ram, text)
    text_value = AssetFactory(model=world.full)  # written before the format was NUMERIC: sorts as no value
    put(text_value, world.ram, "lots")
    too_long = AssetFactory(model=world.full)  # beyond what is cast (400 characters): no value either
    put(too_long, world.ram, "1" + "0" * 400)
    no_value = AssetFactory(model=world.full)
    hidden = AssetFactory(model=world.slim)  # its value is not shown: no value
    put(hidden, world.ram, "1")
    empty_first = sorted([text_value.pk, too_long.pk, no_value.pk, hidden.pk])
    numbers = [made[text].pk for text in ("-2.5", "8", "16", "100", "1e3")]
    column = world.ram.db_column_name
    assert listed(token_client, {"sort": column, "order": "asc"}) == empty_first + numbers
    assert listed(token_client, {"sort": f"custom_fields.{column}", "order": "desc"}) == (
        numbers[::-1] + empty_first[::-1])


def test_text_fields_sort_ignoring_case(token_client, world):
    values = {"banana": None, "Apple": None, "cherry": None}
    for text in values:
        values[text] = AssetFactory(model=world.full)
        put(values[text], world.os, text)
    none = AssetFactory(model=world.bare)
    column = world.os.db_column_name
    expected = [none.pk, values["Apple"].pk, values["banana"].pk, values["cherry"].pk]
    assert listed(token_client, {"sort": column, "order": "asc"}) == expected
    assert listed(token_client, {"sort": column}) == expected[::-1]  # ``order`` defaults to desc


def test_id_breaks_ties(token_client, world):
    same = [AssetFactory(model=world.full) for _ in range(3)]
    for asset in same:
        put(asset, world.os, "Same")
    pks = sorted(asset.pk for asset in same)
    assert listed(token_client, {"sort": world.os.db_column_name, "order": "asc"}) == pks
    assert listed(token_client, {"sort": world.os.db_column_name, "order": "desc"}) == pks[::-1]


@pytest.mark.parametrize("sort", ["secret", "_snipeit_gone_4", "custom_fields._snipeit_gone_4", "custom_fields.x"])
def test_unknown_or_encrypted_sort_falls_back_to_created_at(token_client, world, sort):
    now = timezone.now()
    made = []
    for days in (3, 1, 2):
        asset = AssetFactory(model=world.full)
        Asset.objects.filter(pk=asset.pk).update(created_at=now - dt.timedelta(days=days))
        put(asset, world.secret, f"s{days}")
        made.append((days, asset.pk))
    column = world.secret.db_column_name if sort == "secret" else sort
    assert listed(token_client, {"sort": column, "order": "asc"}) == [pk for _, pk in sorted(made, reverse=True)]


def test_a_custom_sort_cannot_be_paged_by_cursor(token_client, world):
    body = token_client.get(URL, {"sort": world.os.db_column_name, "cursor": ""}).json()
    assert body["status"] == "error" and list(body["messages"]) == ["cursor"]


def test_a_custom_filter_pages_by_cursor(token_client, world):
    made = [AssetFactory(model=world.full) for _ in range(3)]
    for asset in made:
        put(asset, world.os, "Linux")
    put(AssetFactory(model=world.full), world.os, "BSD")
    first = token_client.get(URL, {world.os.db_column_name: "linux", "cursor": "", "limit": 2}).json()
    second = token_client.get(URL, {world.os.db_column_name: "linux", "cursor": first["next_cursor"],
                                    "limit": 2}).json()
    assert sorted(ids(first) + ids(second)) == sorted(asset.pk for asset in made)


# --- the lists that share the filters ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/v1/hardware/audits/due-or-overdue", "/api/v1/hardware/audit/overdue"])
def test_due_and_overdue_lists_share_the_filters(token_client, world, path):
    past = timezone.localdate() - dt.timedelta(days=3)
    wanted = AssetFactory(model=world.full, next_audit_date=past)
    put(wanted, world.os, "Linux")
    put(AssetFactory(model=world.full, next_audit_date=past), world.os, "BSD")
    assert listed(token_client, {world.os.db_column_name: "LINUX"}, path) == [wanted.pk]
    assert listed(token_client, {"filter": json.dumps({world.os.db_column_name: "inu"})}, path) == [wanted.pk]
    assert token_client.get(path, {"_snipeit_gone_5": "x"}).json()["messages"] == {"_snipeit_gone_5": [UNKNOWN]}


def test_the_tally_does_not_answer_a_custom_filtered_total(token_client, world):
    """``?status_id=`` alone is counted from the live-asset tally on PostgreSQL; with a custom column it counts."""
    pending = StatusLabelFactory(type=StatusType.PENDING)
    put(AssetFactory(model=world.full, status=pending), world.os, "Linux")
    AssetFactory.create_batch(2, model=world.full, status=pending)
    assert token_client.get(URL, {"status_id": pending.pk}).json()["total"] == 3
    body = token_client.get(URL, {"status_id": pending.pk, world.os.db_column_name: "linux"}).json()
    assert body["total"] == 1 and len(body["rows"]) == 1
    nothing = json.dumps({world.os.db_column_name: "zz"})
    body = token_client.get(URL, {"status_id": pending.pk, "filter": nothing}).json()
    assert body["total"] == 0 and body["rows"] == []


# --- company separation -----------------------------------------------------------------------------------------


def test_another_companys_assets_are_never_found(make_client, fmcs_on, world):
    mine, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=mine, permissions={"assets.view": 1}))
    own = AssetFactory(model=world.full, company=mine)
    foreign = AssetFactory(model=world.full, company=theirs)
    for asset in (own, foreign):
        put(asset, world.os, "Shared value")
        put(asset, world.ram, "4")
    column = world.os.db_column_name
    assert listed(client, {column: "shared value"}) == [own.pk]
    assert listed(client, {"filter": json.dumps({column: "shared"})}) == [own.pk]
    assert listed(client, {"search": "shared val"}) == [own.pk]
    assert listed(client, {"search": "sh"}) == [own.pk]
    assert listed(client, {"sort": world.ram.db_column_name}) == [own.pk]
    assert client.get(URL, {column: "shared value"}).json()["total"] == 1


# --- cost -------------------------------------------------------------------------------------------------------


def _assets(world: World, count: int) -> None:
    for index in range(count):
        asset = AssetFactory(model=world.full if index % 4 else world.slim)
        put(asset, world.os, f"Linux {index % 3}")
        put(asset, world.ram, str(index))
        put(asset, world.mac, f"00:00:00:00:00:{index % 99:02d}")


@pytest.mark.parametrize("params", [
    {"_snipeit_os": "linux 1"},
    {"filter": {"_snipeit_os": "linux", "_snipeit_ram": "1"}},
    {"search": "linux", "sort": "_snipeit_ram"},
    {"search": "li", "sort": "custom_fields._snipeit_os", "order": "asc"},
])
def test_the_filtered_list_runs_a_constant_number_of_queries(token_client, world, params,
                                                              django_assert_max_num_queries):
    names = {"_snipeit_os": world.os.db_column_name, "_snipeit_ram": world.ram.db_column_name}

    def real(value):
        if isinstance(value, dict):
            return json.dumps({names.get(key, key): item for key, item in value.items()})
        return names.get(value, value)

    query = {names.get(key, key): real(value) for key, value in params.items()} | {"limit": 500}
    _assets(world, 5)
    with CaptureQueriesContext(connection) as small:
        first = token_client.get(URL, query).json()
    assert "rows" in first, first
    _assets(world, 60)
    with django_assert_max_num_queries(len(small.captured_queries)):
        body = token_client.get(URL, query).json()
    assert body["total"] > first["total"]


# --- the index (PostgreSQL) -------------------------------------------------------------------------------------


@pytest.mark.postgres
def test_the_exact_filter_is_answered_from_the_case_insensitive_index(world):
    put(AssetFactory(model=world.full), world.os, "Linux")
    values = AssetFieldValue.objects.filter(custom_filters._exact_condition("LINUX"), field_id=world.os.pk)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = values.explain()
    assert "assetfieldvalue_lookup_ci_idx" in plan, plan
    assert list(values.values_list("value", flat=True)) == ["Linux"]


@pytest.mark.skipif(not ON_POSTGRES, reason="the trigram index exists on PostgreSQL only")
def test_search_values_use_the_trigram_index(world):
    put(AssetFactory(model=world.full), world.os, "Linux")
    values = AssetFieldValue.objects.filter(value__icontains="inux")
    with connection.cursor() as cursor:  # left only bitmap scans: no full scan of another index wins on a tiny table
        for setting in ("enable_seqscan", "enable_indexscan", "enable_indexonlyscan"):
            cursor.execute(f"SET LOCAL {setting} = off")
        plan = values.explain()
    assert "assetfieldvalue_value_trgm" in plan, plan
