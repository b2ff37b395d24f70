"""Rules only components have (API-CONTRACT.md §10, reference §3.11, §4.14), through the HTTP API in both error
modes: units are installed into an asset (``assigned_to``, ``assigned_qty`` default 1) and taken out by
installation row (``checkin_qty``, default all of it), and what remains stays exact through both. The rules the
three stock kinds share (qty, categories, text, ids, targets, partial checkins, deletes) are the parametrized tests
of ``test_api_stock_rules.py`` and ``test_api_stock_rules_scoping.py``; issue 11's "done when" is in
``tests/notifications/test_stock_done_when.py`` (it needs the local webhook receiver)."""

from __future__ import annotations

from typing import Any

import pytest

from activity.models import ActionLog
from inventory.models import ComponentAssignment
from tests.api_mixins import error_of, http_errors
from tests.factories import AssetFactory, CompanyFactory, ComponentFactory, UserFactory
from tests.factories.inventory import component_in
from tests.inventory.stock.test_api_rules import (
    COMPONENTS,
    INVALID,
    create_body,
    record,
    refusal,
    state,
    succeeded,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["compat", "http"])
def mode(request, settings) -> str:
    """Both error modes of API-CONTRACT.md §2."""
    if request.param == "http":
        http_errors(settings)
    return request.param


def install(client, component_id: int, asset, qty: Any = None, **extra: Any) -> dict[str, Any]:
    """``POST components/{id}/checkout`` into ``asset``; the new installation row (``assigned_pivot_id``)."""
    body = {"assigned_to": asset.pk, **({"assigned_qty": qty} if qty is not None else {}), **extra}
    return succeeded(client.post(f"{COMPONENTS}/{component_id}/checkout", body, format="json"))["payload"]


def take_out(client, pivot_id: int, qty: int | None = None) -> dict[str, Any]:
    body = {"checkin_qty": qty} if qty is not None else {}
    return succeeded(client.post(f"{COMPONENTS}/{pivot_id}/checkin", body, format="json"))


@pytest.mark.parametrize(("value", "message"), [
    ("SN\x00-1", "Null characters are not allowed."),
    ("x" * 256, "The serial may not be greater than 255 characters."),
])
def test_serial_with_nul_bytes_or_too_long_is_refused(token_client, mode, value, message):
    component = ComponentFactory()
    before = state()
    created = token_client.post(COMPONENTS, create_body("component", serial=value), format="json")
    assert refusal(created, mode, INVALID)["messages"] == {"serial": [message]}
    patched = token_client.patch(f"{COMPONENTS}/{component.pk}", {"serial": value}, format="json")
    assert refusal(patched, mode, INVALID)["messages"] == {"serial": [message]}
    assert state() == before


def test_a_checkout_installs_one_unit_by_default_and_answers_the_row(token_client, superuser):
    """The payload is the installation row in the shape of ``components/{id}/assets`` (reference §3.11): the asset's
    ``id`` and the row's ``assigned_pivot_id``, which ``POST components/{id}/checkin`` takes."""
    component, host = ComponentFactory(qty=4), AssetFactory(name="Host", asset_tag="H-1")
    row = install(token_client, component.pk, host, note="slot 2")
    installed = ComponentAssignment.objects.get()
    assert row["assigned_pivot_id"] == installed.pk and installed.assigned_qty == 1
    assert {key: row[key] for key in ("id", "name", "asset_tag", "qty", "note", "type")} == {
        "id": host.pk, "name": "Host", "asset_tag": "H-1", "qty": 1, "note": "slot 2", "type": "asset"}
    assert row["created_by"]["id"] == superuser.pk and row["available_actions"] == {"checkin": True}
    listed = token_client.get(f"{COMPONENTS}/{component.pk}/assets").json()["rows"]
    assert listed == [row]
    assert record(token_client, "component", component)["remaining"] == 3


def test_the_asset_id_may_come_as_text(token_client):
    """Real clients send ids as strings (API-CONTRACT.md §1)."""
    component, host = ComponentFactory(qty=4), AssetFactory()
    row = install(token_client, component.pk, host, qty="2")
    assert (row["id"], row["qty"]) == (host.pk, 2)
    body = {"assigned_to": str(host.pk), "assigned_qty": "1"}
    succeeded(token_client.post(f"{COMPONENTS}/{component.pk}/checkout", body, format="json"))
    assert record(token_client, "component", component)["remaining"] == 1


def test_a_checkin_without_checkin_qty_takes_out_the_whole_row(token_client):
    component, host = ComponentFactory(qty=5), AssetFactory()
    pivot = install(token_client, component.pk, host, qty=4)["assigned_pivot_id"]
    assert take_out(token_client, pivot)["messages"] == "Component checked in successfully."
    assert not ComponentAssignment.objects.exists()
    assert record(token_client, "component", component)["remaining"] == 5
    log = ActionLog.objects.get(item_type="component", action_type="checkin from")
    assert (log.target_type, log.target_id) == ("asset", host.pk)
    assert log.log_meta == {"checkin_qty": {"old": None, "new": 4}, "assigned_qty": {"old": 4, "new": 0}}


def test_a_deleted_component_takes_no_checkout(token_client, mode):
    component, host = ComponentFactory(), AssetFactory()
    succeeded(token_client.delete(f"{COMPONENTS}/{component.pk}"))
    before = state()
    response = token_client.post(f"{COMPONENTS}/{component.pk}/checkout", {"assigned_to": host.pk}, format="json")
    assert refusal(response, mode, 404)["message"] == "Component does not exist."
    assert state() == before


def test_remaining_stays_exact_through_installs_and_removals(token_client):
    """Several assets, partial and whole checkins: the record, the list, ``components/{id}/assets`` and each
    asset's ``hardware/{id}/components`` agree at every step."""
    component = ComponentFactory(qty=10)
    first, second, third = AssetFactory(), AssetFactory(), AssetFactory()

    def agree(remaining: int, per_asset: dict[int, int]) -> None:
        shown = record(token_client, "component", component)
        listed = next(row for row in token_client.get(COMPONENTS).json()["rows"] if row["id"] == component.pk)
        assert shown["remaining"] == listed["remaining"] == remaining
        assert shown["user_can_checkout"] is (remaining > 0)
        rows = token_client.get(f"{COMPONENTS}/{component.pk}/assets").json()["rows"]
        installed: dict[int, int] = {}
        for row in rows:
            installed[row["id"]] = installed.get(row["id"], 0) + row["qty"]
        assert installed == per_asset
        for asset in (first, second, third):
            held = token_client.get(f"/api/v1/hardware/{asset.pk}/components").json()["rows"]
            assert sum(row["checkout_qty"] for row in held) == per_asset.get(asset.pk, 0)

    a = install(token_client, component.pk, first, qty=3)["assigned_pivot_id"]
    install(token_client, component.pk, second, qty=2)
    c = install(token_client, component.pk, first)["assigned_pivot_id"]
    agree(4, {first.pk: 4, second.pk: 2})
    take_out(token_client, a, 1)
    take_out(token_client, c)
    agree(6, {first.pk: 2, second.pk: 2})
    install(token_client, component.pk, third, qty=6)
    agree(0, {first.pk: 2, second.pk: 2, third.pk: 6})
    assert "assigned_qty" in error_of(token_client.post(f"{COMPONENTS}/{component.pk}/checkout",
                                                        {"assigned_to": first.pk}, format="json"))
    take_out(token_client, a, 2)
    agree(2, {second.pk: 2, third.pk: 6})
    assert sum(ComponentAssignment.objects.values_list("assigned_qty", flat=True)) == 8


def test_units_installed_in_several_assets_are_each_a_row(token_client):
    """``hardware/{id}/components`` answers one component record per installation row, with its units."""
    ram, disk, host = ComponentFactory(qty=8, name="RAM"), ComponentFactory(qty=2, name="Disk"), AssetFactory()
    component_in(host, ram, 2)
    component_in(host, ram, 1)
    component_in(host, disk, 1)
    component_in(AssetFactory(), ram, 4)
    rows = token_client.get(f"/api/v1/hardware/{host.pk}/components").json()
    assert rows["total"] == 3
    assert sorted((row["name"], row["checkout_qty"], row["remaining"]) for row in rows["rows"]) == [
        ("Disk", 1, 1), ("RAM", 1, 1), ("RAM", 2, 1)]


@pytest.mark.parametrize(("keys", "installed", "expected"), [
    ({"components.checkin": 1}, 2, True),
    ({"components.checkin": 1}, 0, False),  # nothing to take out
    ({"components.checkout": 1}, 2, False),  # not the caller's key
])
def test_available_actions_offer_checkin_while_units_are_installed(make_client, keys, installed, expected):
    """Snipe-IT's component record offers ``checkin`` to callers with ``components.checkin`` (accessories never do);
    in lists, single reads and ``hardware/{id}/components`` alike."""
    component, host = ComponentFactory(qty=5), AssetFactory()
    if installed:
        component_in(host, component, installed)
    client = make_client(UserFactory(permissions={"components.view": 1, "assets.view": 1, **keys}))
    shown = client.get(f"{COMPONENTS}/{component.pk}").json()
    listed = client.get(COMPONENTS).json()["rows"]
    assert shown["available_actions"]["checkin"] is listed[0]["available_actions"]["checkin"] is expected
    for row in client.get(f"/api/v1/hardware/{host.pk}/components").json()["rows"]:
        assert row["available_actions"]["checkin"] is expected


def test_a_company_user_takes_their_units_out_of_another_companys_asset(make_client, fmcs_on):
    """Installation rows belong to the component's company (docs/decisions.md, issue 11): a company user may take
    their component's units out of an asset they cannot see (installed there by a super user), though the asset is
    not listed to them; another company's component in their own asset stays out of their reach."""
    ours, theirs = CompanyFactory(), CompanyFactory()
    client = make_client(UserFactory(company=ours, permissions={"components.view": 1, "components.checkin": 1,
                                                                "assets.view": 1}))
    mine, foreign_asset = ComponentFactory(company=ours, qty=5), AssetFactory(company=theirs)
    row = component_in(foreign_asset, mine, 3)
    assert client.get(f"{COMPONENTS}/{mine.pk}/assets").json()["total"] == 0
    assert record(client, "component", mine)["remaining"] == 2
    take_out(client, row.pk, 1)
    assert record(client, "component", mine)["remaining"] == 3
    log = ActionLog.objects.get(action_type="checkin from")
    assert (log.target_type, log.target_id, log.company_id) == ("asset", foreign_asset.pk, ours.pk)
    theirs_in_mine = component_in(AssetFactory(company=ours), ComponentFactory(company=theirs), 2)
    response = client.post(f"{COMPONENTS}/{theirs_in_mine.pk}/checkin", {}, format="json")
    assert response.json()["message"] == "No matching checkouts for that component join record"
    assert ComponentAssignment.objects.get(pk=theirs_in_mine.pk).assigned_qty == 2
