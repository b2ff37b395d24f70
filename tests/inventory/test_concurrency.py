"""Races Snipe-IT loses (snipe-it#2347, #14476, #15553): concurrent requests with real tokens, released together by
a barrier, against PostgreSQL row locks and unique constraints."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from django.db import connection

from activity.models import ActionLog
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Asset,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
    CustomField,
    CustomFieldsetField,
    LicenseSeat,
)
from tests.conftest import TokenClient
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ComponentFactory,
    ConsumableFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    LicenseFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, component_in, seat_out

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


def run_together(calls) -> list:
    """Run each callable in its own thread (own DB connection), all released at the same moment."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def worker(index, call):
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        except Exception as exc:  # noqa: BLE001 - reported through results
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def clients(count: int) -> list[TokenClient]:
    return [TokenClient(UserFactory(superuser=True)) for _ in range(count)]


def test_concurrent_checkouts_of_one_asset_have_one_winner():
    asset = AssetFactory(asset_tag="RACE-1")
    targets = [UserFactory() for _ in range(THREADS)]
    http = clients(THREADS)
    calls = [
        (lambda c=c, t=t: c.post(f"/api/v1/hardware/{asset.pk}/checkout", {"assigned_user": t.pk}, format="json"))
        for c, t in zip(http, targets, strict=True)
    ]
    responses = run_together(calls)
    bodies = [r.json() for r in responses]
    assert all(r.status_code == 200 for r in responses), bodies
    winners = [b for b in bodies if b["status"] == "success"]
    losers = [b for b in bodies if b["status"] == "error"]
    assert len(winners) == 1, bodies
    assert all(b["message"] == "That asset is not available for checkout!" for b in losers)
    assert ActionLog.objects.filter(action_type="checkout", item_id=asset.pk).count() == 1
    asset.refresh_from_db()
    assert asset.checkout_counter == 1 and asset.assigned_user_id in {t.pk for t in targets}


def test_concurrent_checkins_have_one_winner():
    holder = UserFactory()
    asset = AssetFactory(assigned_user=holder)
    http = clients(THREADS)
    responses = run_together([(lambda c=c: c.post(f"/api/v1/hardware/{asset.pk}/checkin")) for c in http])
    statuses = sorted(r.json()["status"] for r in responses)
    assert statuses.count("success") == 1, statuses
    assert ActionLog.objects.filter(action_type="checkin from").count() == 1


def test_concurrent_creates_with_the_same_tag_create_one():
    model = AssetModelFactory()
    status = StatusLabelFactory()
    http = clients(THREADS)
    calls = [
        (lambda c=c, i=i: c.post("/api/v1/hardware", {"asset_tag": "dup-1" if i % 2 else "DUP-1",
                                                       "model_id": model.pk, "status_id": status.pk},
                                 format="json"))
        for i, c in enumerate(http)
    ]
    bodies = [r.json() for r in run_together(calls)]
    created = [b for b in bodies if b["status"] == "success"]
    assert len(created) == 1, bodies
    for body in bodies:
        if body["status"] == "error":
            assert body["messages"] == {"asset_tag": ["The asset tag must be unique."]}
    assert Asset.objects.filter(asset_tag__iexact="dup-1").count() == 1
    assert ActionLog.objects.filter(action_type="create").count() == 1


def test_concurrent_auto_increment_creates_never_collide(site_settings):
    site_settings.auto_increment_assets = True
    site_settings.auto_increment_prefix = "AUTO-"
    site_settings.zerofill_count = 3
    site_settings.next_auto_tag_base = 1
    site_settings.save()
    model = AssetModelFactory()
    status = StatusLabelFactory()
    http = clients(THREADS)
    calls = [(lambda c=c: c.post("/api/v1/hardware", {"model_id": model.pk, "status_id": status.pk},
                                 format="json")) for c in http]
    bodies = [r.json() for r in run_together(calls)]
    assert all(b["status"] == "success" for b in bodies), bodies
    tags = sorted(b["payload"]["asset_tag"] for b in bodies)
    assert tags == [f"AUTO-{n:03d}" for n in range(1, THREADS + 1)]


def test_crossed_asset_checkouts_never_make_a_loop():
    """A → B and B → A at the same moment: the locks taken on both rows let only one happen."""
    a, b = AssetFactory(), AssetFactory()
    LocationFactory()
    first, second = clients(2)
    responses = run_together([
        lambda: first.post(f"/api/v1/hardware/{a.pk}/checkout", {"assigned_asset": b.pk}, format="json"),
        lambda: second.post(f"/api/v1/hardware/{b.pk}/checkout", {"assigned_asset": a.pk}, format="json"),
    ])
    statuses = sorted(r.json()["status"] for r in responses)
    assert statuses == ["error", "success"], [r.json() for r in responses]
    a.refresh_from_db()
    b.refresh_from_db()
    assert not (a.assigned_asset_id == b.pk and b.assigned_asset_id == a.pk)


def _loops() -> list[list[int]]:
    """Every assignment loop among assets (following ``assigned_asset``)."""
    parent = dict(Asset.objects.filter(assigned_asset__isnull=False).values_list("pk", "assigned_asset_id"))
    found = []
    for start in parent:
        seen, current = [], start
        while current in parent and current not in seen:
            seen.append(current)
            current = parent[current]
        if current == start:
            found.append(seen)
    return found


@pytest.mark.parametrize("ring", [3, 4])
def test_ring_of_simultaneous_asset_checkouts_never_makes_a_loop(ring):
    """A → B, B → C, ..., Z → A all at once (issue 9: locking the two rows of each checkout prevents a loop of two,
    not of three or more). Repeated so the threads really interleave."""
    http = clients(ring)
    for _ in range(5):
        assets = [AssetFactory() for _ in range(ring)]
        calls = [
            (lambda c=c, a=a, b=b: c.post(f"/api/v1/hardware/{a.pk}/checkout", {"assigned_asset": b.pk},
                                          format="json"))
            for c, a, b in zip(http, assets, assets[1:] + assets[:1], strict=True)
        ]
        bodies = [r.json() for r in run_together(calls)]
        assert [b["status"] for b in bodies].count("error") >= 1, bodies
        assert _loops() == [], bodies
        assert ActionLog.objects.filter(action_type="checkout", item_id__in=[a.pk for a in assets]).count() == \
            [b["status"] for b in bodies].count("success")


def test_concurrent_quantity_checkouts_never_over_issue():
    """Eight simultaneous checkouts of one unit each from a stock of five: exactly five succeed; the others get the
    field error on the quantity (since issue 10 a checkout of more than remains is a field error, not a conflict)."""
    from assetsvc.exceptions import InvalidInputError
    from inventory.services.checkout import item_checkout
    from tests.kinds.kinds import WIDGET
    from tests.kinds.models import Widget, WidgetCheckout

    widget = Widget.objects.create(name="Dock", qty=5)
    actor = UserFactory(superuser=True)
    targets = [UserFactory() for _ in range(THREADS)]
    results = run_together([
        (lambda t=t: item_checkout(kind=WIDGET, item=widget, target=t, actor=actor)) for t in targets
    ])
    assert sum(1 for r in results if isinstance(r, Widget)) == 5, results
    refused = [r for r in results if not isinstance(r, Widget)]
    assert all(isinstance(r, InvalidInputError) and "checkout_qty" in r.messages for r in refused), results
    assert sum(WidgetCheckout.objects.filter(widget=widget).values_list("assigned_qty", flat=True)) == 5
    assert ActionLog.objects.filter(item_type="widget", action_type="checkout").count() == 5


# --- accessories, consumables and components over the API (issues 10 and 11: "concurrent checkouts on PostgreSQL
# never exceed the quantity"). Each checkout locks the item row and computes what remains under the lock
# (inventory/services/checkout.py), a qty change is checked on the locked row (inventory/services/stock.py), a checkin
# re-reads its row
# under the item lock.


class Stock(NamedTuple):
    """A kind handed out by quantity, as the race tests drive it."""

    factory: Callable[..., Any]
    url: str
    #: The key naming the target of a checkout, and the factory of a target.
    target_key: str
    target: Callable[[], Any]
    #: The quantity key of a checkout (and of its field error).
    qty_key: str
    rows: type
    model: type
    #: The assignment rows' foreign key to the item.
    item_field: str


STOCKS = {
    "accessory": Stock(AccessoryFactory, "/api/v1/accessories", "assigned_user", UserFactory, "checkout_qty",
                       AccessoryCheckout, Accessory, "accessory"),
    "consumable": Stock(ConsumableFactory, "/api/v1/consumables", "assigned_to", UserFactory, "checkout_qty",
                        ConsumableAssignment, Consumable, "consumable"),
    "component": Stock(ComponentFactory, "/api/v1/components", "assigned_to", AssetFactory, "assigned_qty",
                       ComponentAssignment, Component, "component"),
}
#: The kinds checked in by assignment row: units put out directly (test setup), the text of a row that is gone.
ROW_KINDS: dict[str, tuple[Callable[[Any, int], Any], str]] = {
    "accessory": (lambda item, qty: accessory_out(UserFactory(), item, qty), "The accessory checkout does not exist."),
    "component": (lambda item, qty: component_in(AssetFactory(), item, qty),
                  "No matching checkouts for that component join record"),
}


def units_out(stock: Stock, item) -> int:
    return sum(stock.rows.objects.filter(**{stock.item_field: item}).values_list("assigned_qty", flat=True))


def checkout_body(stock: Stock, target, units: int) -> dict[str, Any]:
    return {stock.target_key: target.pk, stock.qty_key: units}


def stock_checkouts(item_type: str, qty: int, units: int) -> tuple[object, list[dict]]:
    """THREADS checkouts of ``units`` each, through the HTTP API with real tokens, released together."""
    stock = STOCKS[item_type]
    item = stock.factory(qty=qty)
    targets = [stock.target() for _ in range(THREADS)]
    http = clients(THREADS)
    responses = run_together([
        (lambda c=c, t=t: c.post(f"{stock.url}/{item.pk}/checkout", checkout_body(stock, t, units), format="json"))
        for c, t in zip(http, targets, strict=True)
    ])
    assert all(not isinstance(r, Exception) for r in responses), responses
    assert all(r.status_code == 200 for r in responses), [(r.status_code, r.content[:300]) for r in responses]
    return item, [r.json() for r in responses]


@pytest.mark.parametrize("item_type", STOCKS)
def test_concurrent_checkouts_of_the_last_units_have_exactly_that_many_winners(item_type):
    """8 checkouts of one unit each race for the last 3 units: exactly 3 succeed, 5 get the field error on the
    quantity key, and the database holds 3 units out in 3 rows with 3 checkout log rows."""
    item, bodies = stock_checkouts(item_type, qty=3, units=1)
    stock = STOCKS[item_type]
    winners = [b for b in bodies if b["status"] == "success"]
    losers = [b for b in bodies if b["status"] == "error"]
    assert (len(winners), len(losers)) == (3, THREADS - 3), bodies
    assert all(set(b["messages"]) == {stock.qty_key} for b in losers), losers
    row_ids = sorted(b["payload"].get("assigned_pivot_id", b["payload"]["id"]) for b in winners)
    assert row_ids == sorted(stock.rows.objects.values_list("pk", flat=True))
    assert units_out(stock, item) == 3
    assert stock.rows.objects.count() == 3
    assert ActionLog.objects.filter(item_type=item_type, item_id=item.pk, action_type="checkout").count() == 3


@pytest.mark.parametrize("item_type", STOCKS)
def test_concurrent_checkouts_of_several_units_never_exceed_the_quantity(item_type):
    """8 checkouts of 2 units each from a stock of 5: two fit (4 units), the third would make 6, so 6 are
    refused and one unit stays."""
    item, bodies = stock_checkouts(item_type, qty=5, units=2)
    stock = STOCKS[item_type]
    statuses = [b["status"] for b in bodies]
    assert statuses.count("success") == 2, bodies
    assert all(set(b["messages"]) == {stock.qty_key} for b in bodies if b["status"] == "error"), bodies
    assert units_out(stock, item) == 4 <= item.qty
    assert ActionLog.objects.filter(item_type=item_type, item_id=item.pk, action_type="checkout").count() == 2


@pytest.mark.parametrize("item_type", ROW_KINDS)
def test_concurrent_checkins_of_one_row_have_one_winner(item_type):
    """Two checkins of the same assignment row at once: one returns the units, the other finds the row gone (the
    row is re-read under the item's lock); one checkin log row, nothing out. Repeated, so the two really overlap
    (with two threads a single round often runs one after the other)."""
    stock, (put_out, gone) = STOCKS[item_type], ROW_KINDS[item_type]
    first, second = clients(2)
    for round_ in range(1, 6):
        row = put_out(stock.factory(qty=5), 2)
        path = f"{stock.url}/{row.pk}/checkin"
        responses = run_together([(lambda c=c, p=path: c.post(p, {}, format="json")) for c in (first, second)])
        bodies = [r.json() for r in responses]
        assert sorted(b["status"] for b in bodies) == ["error", "success"], bodies
        assert [b["messages"] for b in bodies if b["status"] == "error"] == [gone]
        assert not stock.rows.objects.exists()
        assert ActionLog.objects.filter(item_type=item_type, action_type="checkin from").count() == round_


@pytest.mark.parametrize("item_type", ROW_KINDS)
def test_concurrent_partial_checkins_of_one_row_never_return_more_than_it_holds(item_type):
    """8 checkins of one unit each from a row holding 3: exactly 3 succeed and the row is gone afterwards; the
    others find it gone or holding less than they ask for."""
    stock, (put_out, _gone) = STOCKS[item_type], ROW_KINDS[item_type]
    item = stock.factory(qty=5)
    row = put_out(item, 3)
    http = clients(THREADS)
    bodies = [r.json() for r in run_together([
        (lambda c=c: c.post(f"{stock.url}/{row.pk}/checkin", {"checkin_qty": 1}, format="json"))
        for c in http
    ])]
    assert [b["status"] for b in bodies].count("success") == 3, bodies
    assert not stock.rows.objects.exists()
    logs = ActionLog.objects.filter(item_type=item_type, action_type="checkin from")
    assert sorted(log.log_meta["assigned_qty"]["new"] for log in logs) == [0, 1, 2]
    assert units_out(stock, item) == 0


@pytest.mark.parametrize("item_type", STOCKS)
def test_concurrent_qty_lowering_never_leaves_more_out_than_the_quantity(item_type):
    """Checkouts and a ``PATCH qty`` lowering the stock race (repeated, so both orders happen): whichever commits
    first, the units out never exceed ``qty`` and the refused side changed nothing."""
    stock = STOCKS[item_type]
    http = clients(THREADS)
    targets = [stock.target() for _ in range(THREADS - 2)]
    lowered = 0
    for _ in range(4):
        item = stock.factory(qty=6)
        detail = f"{stock.url}/{item.pk}"
        calls = [(lambda c=c, t=t, p=detail: c.post(f"{p}/checkout", checkout_body(stock, t, 1), format="json"))
                 for c, t in zip(http[2:], targets, strict=True)]
        calls += [(lambda c=c, p=detail: c.patch(p, {"qty": 3}, format="json")) for c in http[:2]]
        bodies = [r.json() for r in run_together(calls)]
        checkouts, patches = bodies[:-2], bodies[-2:]
        item = stock.model.objects.get(pk=item.pk)
        out = units_out(stock, item)
        assert out <= item.qty, (out, item.qty, bodies)
        assert out == [b["status"] for b in checkouts].count("success"), bodies
        patched = [b["status"] for b in patches].count("success")
        assert item.qty == (3 if patched else 6), (item.qty, bodies)
        assert all(set(b["messages"]) == {"qty"} for b in patches if b["status"] == "error"), patches
        assert all(set(b["messages"]) == {stock.qty_key} for b in checkouts if b["status"] == "error"), checkouts
        lowered += bool(patched)
    # Not asserted: how often the PATCH wins depends on scheduling; the invariant above holds either way.
    print(f"{item_type}: qty lowered in {lowered} of 4 rounds")


# --- license seats over the API (issue 11): a seat PATCH locks the license row and re-reads the seat under the lock
# (inventory/services/licenses.py), so a seat is assigned once however many ask, and a seats change never removes a
# seat that
# a concurrent checkout is assigning.


def seat_patches(license_, bodies) -> list[dict]:
    """One PATCH per (seat, body), each from its own super user's client, released together."""
    http = clients(len(bodies))
    responses = run_together([
        (lambda c=c, seat=seat, body=body: c.patch(f"/api/v1/licenses/{license_.pk}/seats/{seat.pk}", body,
                                                  format="json"))
        for c, (seat, body) in zip(http, bodies, strict=True)
    ])
    assert all(not isinstance(r, Exception) for r in responses), responses
    assert all(r.status_code == 200 for r in responses), [(r.status_code, r.content[:300]) for r in responses]
    return [r.json() for r in responses]


def test_concurrent_seat_checkouts_of_a_non_reassignable_license_have_one_winner_per_seat():
    """8 PATCH checkouts of the two free seats of a non-reassignable license (4 per seat, each to another user):
    exactly 2 succeed, the 6 others are refused, and each seat holds one of the winners' users."""
    license_ = LicenseFactory(seats=2, reassignable=False)
    seats = list(LicenseSeat.objects.filter(license=license_).order_by("pk"))
    users = [UserFactory() for _ in range(THREADS)]
    bodies = seat_patches(license_, [(seats[i % 2], {"assigned_to": user.pk}) for i, user in enumerate(users)])
    winners = [b for b in bodies if b["status"] == "success"]
    assert len(winners) == 2, bodies
    assert {b["message"] for b in bodies if b["status"] == "error"} == {"This seat is not available for checkout."}
    assert sorted(b["payload"]["id"] for b in winners) == [seat.pk for seat in seats]
    held = {seat.pk: seat.assigned_user_id for seat in LicenseSeat.objects.filter(license=license_)}
    assert set(held.values()) == {b["payload"]["assigned_user"]["id"] for b in winners}
    assert ActionLog.objects.filter(item_type="license", item_id=license_.pk, action_type="checkout").count() == 2
    assert not ActionLog.objects.filter(action_type="checkin from").exists()


def test_concurrent_reassignments_of_one_seat_run_one_after_the_other():
    """8 reassignments of one seat of a reassignable license at once: all succeed, one after the other, so the log
    holds 8 checkouts and 7 checkins (each of the previous holder) and the seat holds exactly one user."""
    license_ = LicenseFactory(seats=1, reassignable=True)
    seat = LicenseSeat.objects.get(license=license_)
    users = [UserFactory() for _ in range(THREADS)]
    bodies = seat_patches(license_, [(seat, {"assigned_to": user.pk}) for user in users])
    assert all(b["status"] == "success" for b in bodies), bodies
    rows = list(ActionLog.objects.filter(item_type="license", item_id=license_.pk).order_by("pk")
                .values_list("action_type", "target_id"))
    assert [action for action, _ in rows] == ["checkout"] + ["checkin from", "checkout"] * (THREADS - 1)
    for (_, given), (_, returned) in zip(rows[0::2], rows[1::2], strict=False):
        assert returned == given  # each checkin is of the user the previous checkout gave the seat to
    seat.refresh_from_db()
    assert seat.assigned_user_id == rows[-1][1] and seat.assigned_asset_id is None


def test_concurrent_checkins_of_one_seat_log_one_checkin():
    """Two checkins of one seat at once: both answer success (checking a free seat in changes nothing), one
    checkin is logged. Repeated, so the two really overlap."""
    holder = UserFactory()
    for round_ in range(1, 6):
        license_ = LicenseFactory(seats=1)
        seat = seat_out(holder, license_)
        bodies = seat_patches(license_, [(seat, {"assigned_to": None, "asset_id": None})] * 2)
        assert [b["status"] for b in bodies] == ["success", "success"], bodies
        assert ActionLog.objects.filter(action_type="checkin from").count() == round_
        assert not LicenseSeat.objects.filter(license=license_).assigned().exists()


def test_concurrent_seat_checkouts_and_a_seats_change_never_assign_more_seats_than_exist():
    """Checkouts of every seat race a ``PATCH seats`` lowering the license (repeated, so both orders happen):
    whichever commits first, the license has exactly ``seats`` seat rows and no more assigned seats than that; a
    checkout of a seat the change removed is "Seat not found", a change below the assigned seats a field error."""
    http = clients(THREADS)
    lowered = 0
    for _ in range(4):
        license_ = LicenseFactory(seats=4, reassignable=False)
        seats = list(LicenseSeat.objects.filter(license=license_).order_by("pk"))
        users = [UserFactory() for _ in range(THREADS - 2)]
        detail = f"/api/v1/licenses/{license_.pk}"
        calls = [(lambda c=c, p=f"{detail}/seats/{seats[i % 4].pk}", u=u: c.patch(p, {"assigned_to": u.pk},
                                                                                  format="json"))
                 for i, (c, u) in enumerate(zip(http[2:], users, strict=True))]
        calls += [(lambda c=c, p=detail: c.patch(p, {"seats": 2}, format="json")) for c in http[:2]]
        bodies = [r.json() for r in run_together(calls)]
        license_.refresh_from_db()
        rows = LicenseSeat.objects.filter(license=license_)
        assert rows.count() == license_.seats, bodies
        assert rows.assigned().count() <= license_.seats
        checkouts, patches = bodies[:-2], bodies[-2:]
        assert {b["message"] for b in checkouts if b["status"] == "error"} <= {
            "This seat is not available for checkout.", "Seat not found"}, checkouts
        assert all(set(b["messages"]) == {"seats"} for b in patches if b["status"] == "error"), patches
        assert rows.assigned().count() == ActionLog.objects.filter(
            item_type="license", item_id=license_.pk, action_type="checkout").count()
        lowered += license_.seats == 2
    print(f"licenses: seats lowered in {lowered} of 4 rounds")


def test_concurrent_field_creates_and_associations_have_one_winner():
    """Custom fields (API-CONTRACT.md §11): one name in two cases creates one field; concurrent associations of one
    field with one set add it once and all answer success."""
    http = clients(THREADS)
    calls = [(lambda c=c, i=i: c.post("/api/v1/fields", {"name": "mac" if i % 2 else "MAC", "element": "text"},
                                      format="json")) for i, c in enumerate(http)]
    bodies = [r.json() for r in run_together(calls)]
    assert [b["status"] for b in bodies].count("success") == 1, bodies
    assert all(b["messages"] == {"name": ["The name has already been taken."]} for b in bodies
               if b["status"] == "error")
    assert CustomField.objects.filter(name__iexact="mac").count() == 1
    field, fieldset = CustomFieldFactory(), CustomFieldsetFactory()
    calls = [(lambda c=c: c.post(f"/api/v1/fields/{field.pk}/associate", {"fieldset_id": fieldset.pk},
                                 format="json")) for c in http]
    bodies = [r.json() for r in run_together(calls)]
    assert all(b["status"] == "success" for b in bodies), bodies
    assert CustomFieldsetField.objects.filter(fieldset=fieldset, field=field).count() == 1
