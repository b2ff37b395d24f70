"""The accessory, consumable and component admin (issue 10, item 8; issue 11) goes through ``inventory.services.stock``
and
``inventory.services.checkout``: it lists the units out and what remains, refuses what the API refuses with the API's
messages
and writes nothing then, shows who holds what on the item's page, and checks units out and in with the API's log rows
and signals (components send none).

Every test drives the real admin pages with a logged-in super user and checks the answer, the messages and the
database."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory import signals
from inventory.models import (
    Accessory,
    AccessoryCheckout,
    Component,
    ComponentAssignment,
    Consumable,
    ConsumableAssignment,
)
from inventory.services.checkout import target_type_of
from inventory.services.stock import ACCESSORY, COMPONENT, stock_delete
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    CategoryFactory,
    ComponentFactory,
    ConsumableFactory,
    LocationFactory,
    ManufacturerFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, component_in
from tests.ops.test_admin_services import form_data, form_errors, texts, url

pytestmark = pytest.mark.django_db


#: The kinds whose units come back (accessories, components): the item model and factory, units put out to a new
#: holder directly (test setup), the row model, the kind.
RETURNABLE: dict[str, tuple[type, Any, Any, type, Any]] = {
    "accessory": (Accessory, AccessoryFactory, lambda item, qty: accessory_out(UserFactory(), item, qty=qty),
                  AccessoryCheckout, ACCESSORY),
    "component": (Component, ComponentFactory, lambda item, qty: component_in(AssetFactory(), item, qty=qty),
                  ComponentAssignment, COMPONENT),
}


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def listed(client, model, **params: Any) -> list[tuple[str, int, int]]:
    """The changelist's rows as (name, units out, remaining), in the page's order."""
    rows = client.get(url(model), params).context["cl"].result_list
    return [(row.name, row.units_out, row.remaining_units) for row in rows]


def apply_action(client, model, name: str, objs, **data: Any):
    """An admin action with an intermediate form, posted back with "apply" and ``data``."""
    return client.post(url(model), {"action": name, ACTION_CHECKBOX_NAME: [obj.pk for obj in objs], "apply": "1",
                                    **data}, follow=True)


@pytest.fixture
def received():
    """The kinds' checkout and checkin signals (what the webhooks receive), as (signal name, quantity)."""
    events: list[tuple[str, Any]] = []
    receivers = {}
    for name in ("accessory_checked_out", "accessory_checked_in", "consumable_checked_out"):
        def receiver(sender, name=name, **kwargs):
            events.append((name, kwargs.get("quantity")))

        receivers[name] = receiver
        getattr(signals, name).connect(receiver, weak=False)
    yield events
    for name, receiver in receivers.items():
        getattr(signals, name).disconnect(receiver)


# --- lists ----------------------------------------------------------------------------------------------------------


def test_lists_show_units_out_and_remaining_sorted_in_the_database(admin_client):
    dock = AccessoryFactory(name="Dock", qty=5)
    AccessoryFactory(name="Cable", qty=3)  # nothing out
    accessory_out(UserFactory(), dock, qty=2)
    accessory_out(LocationFactory(), dock, qty=1)
    toner = ConsumableFactory(name="Toner", qty=10)
    ConsumableAssignment.objects.create(consumable=toner, assigned_user=UserFactory(), assigned_qty=4)
    ram = ComponentFactory(name="RAM", qty=8)
    component_in(AssetFactory(), ram, qty=3)
    component_in(AssetFactory(), ram, qty=2)

    assert sorted(listed(admin_client, Accessory)) == [("Cable", 0, 3), ("Dock", 3, 2)]
    assert listed(admin_client, Consumable) == [("Toner", 4, 6)]
    assert listed(admin_client, Component) == [("RAM", 5, 3)]
    # "remaining" is the 6th column, "units out" the 5th: both sort (o=-6: most remaining first).
    assert [name for name, *_ in listed(admin_client, Accessory, o="-6")] == ["Cable", "Dock"]
    assert [name for name, *_ in listed(admin_client, Accessory, o="-5")] == ["Dock", "Cable"]
    page = admin_client.get(url(Accessory)).content.decode()
    assert 'class="field-units_out">3<' in page and 'class="field-remaining">2<' in page


@pytest.mark.parametrize("kind", RETURNABLE)
def test_a_list_page_costs_the_same_queries_for_one_item_or_many(admin_client, kind):
    model, factory, put_out, _rows, _kind = RETURNABLE[kind]

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(url(model)).status_code == 200
        return len(captured)

    put_out(factory(), 1)
    one = queries()
    for _ in range(5):
        put_out(factory(), 2)
    assert queries() == one


def test_search_and_filters(admin_client, superuser):
    acme = ManufacturerFactory(name="Acme")
    docks = CategoryFactory(name="Docks", category_type="accessory")
    AccessoryFactory(name="Dock", manufacturer=acme, category=docks, order_number="PO-77")
    AccessoryFactory(name="Cable")
    stock_delete(item=AccessoryFactory(name="Old mouse"), actor=superuser)
    consumable = ConsumableFactory(name="Toner", item_no="TN-2420")
    ConsumableFactory(name="Paper")
    memory = CategoryFactory(name="Memory", category_type="component")
    ComponentFactory(name="RAM", serial="SN-DDR5-1", category=memory, manufacturer=acme)
    ComponentFactory(name="Disk")

    def names(model, **params: Any) -> list[str]:
        return sorted(name for name, *_ in listed(admin_client, model, **params))

    assert names(Accessory, q="acme") == ["Dock"]
    assert names(Accessory, q="PO-77") == ["Dock"]
    assert names(Accessory, q="docks") == ["Dock"]
    assert names(Accessory, **{"category__id__exact": docks.pk}) == ["Dock"]
    assert names(Accessory, **{"manufacturer__id__exact": acme.pk}) == ["Dock"]
    assert names(Accessory) == ["Cable", "Dock"]  # deleted rows only when asked (issue 28)
    assert names(Accessory, deleted="yes") == ["Old mouse"]
    assert names(Accessory, deleted="all") == ["Cable", "Dock", "Old mouse"]
    assert names(Consumable, q="tn-2420") == [consumable.name]
    assert names(Component, q="ddr5") == ["RAM"]
    assert names(Component, q="memory") == ["RAM"]
    assert names(Component, **{"manufacturer__id__exact": acme.pk}) == ["RAM"]


# --- saving through the services ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "kind"), [(Accessory, "accessory"), (Component, "component")])
def test_add_creates_through_the_service_and_logs(admin_client, superuser, model, kind):
    category = CategoryFactory(category_type=kind)
    data = {"name": "USB-C dock", "qty": "4", "category": category.pk, "model_number": "", "order_number": "",
            "notes": "", "min_amt": "", "purchase_cost": "", "purchase_date": ""}
    resp = admin_client.post(url(model, "add"), data)
    assert resp.status_code == 302, form_errors(resp)
    item = model.objects.get(name="USB-C dock")
    assert item.qty == 4 and item.created_by == superuser
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.item_id) == ("create", kind, item.pk)


@pytest.mark.parametrize(("model", "message"), [
    (Consumable, "The category must be a consumable category."),
    (Component, "The category must be a component category."),
])
def test_add_refuses_a_category_of_another_kind(admin_client, model, message):
    category = CategoryFactory(category_type="accessory" if model is Component else "asset")
    resp = admin_client.post(url(model, "add"), {"name": "Toner", "qty": "4", "category": category.pk})
    assert resp.status_code == 200
    assert message in form_errors(resp)
    assert not model.objects.exists() and not ActionLog.objects.exists()


@pytest.mark.parametrize("kind", RETURNABLE)
def test_qty_below_the_units_out_is_refused_and_nothing_changes(admin_client, kind):
    model, factory, put_out, _rows, _kind = RETURNABLE[kind]
    item = factory(qty=5, notes="")
    put_out(item, 3)
    page = url(model, "change", item.pk)
    resp = admin_client.post(page, form_data(admin_client, page, qty="2", notes="edited"))
    assert resp.status_code == 200
    assert "The qty must be at least 3: 3 are checked out." in form_errors(resp)
    item.refresh_from_db()
    assert (item.qty, item.notes) == (5, "") and not ActionLog.objects.exists()

    resp = admin_client.post(page, form_data(admin_client, page, qty="3"))
    assert resp.status_code == 302, form_errors(resp)
    item.refresh_from_db()
    assert item.qty == 3
    assert ActionLog.objects.get().log_meta == {"qty": {"old": 5, "new": 3}}


@pytest.mark.parametrize("kind", RETURNABLE)
def test_an_item_with_units_out_cannot_be_deleted(admin_client, kind):
    model, factory, put_out, _rows, stock_kind = RETURNABLE[kind]
    item = factory()
    put_out(item, 1)
    resp = admin_client.post(url(model, "delete", item.pk), {"post": "yes"})
    assert resp.status_code == 302 and resp.url == url(model, "change", item.pk)
    assert any(stock_kind.delete_refused in text for text in texts(resp))
    resp = admin_client.post(url(model), {"action": "delete_selected_items", ACTION_CHECKBOX_NAME: [item.pk]},
                             follow=True)
    assert any(stock_kind.delete_refused in text for text in texts(resp))
    assert 'value="delete_selected"' not in resp.content.decode()  # Django's raw bulk delete is not offered
    item.refresh_from_db()
    assert item.deleted_at is None
    assert not ActionLog.objects.exists() and not LogEntry.objects.exists()


def test_consumed_units_do_not_block_delete_and_restore(admin_client):
    consumable = ConsumableFactory()
    ConsumableAssignment.objects.create(consumable=consumable, assigned_user=UserFactory(), assigned_qty=2)
    resp = admin_client.post(url(Consumable, "delete", consumable.pk), {"post": "yes"})
    assert resp.status_code == 302
    consumable.refresh_from_db()
    assert consumable.deleted_at is not None
    resp = admin_client.post(f"{url(Consumable)}?deleted=yes",
                             {"action": "restore_selected", ACTION_CHECKBOX_NAME: [consumable.pk]}, follow=True)
    assert "1 consumables restored." in texts(resp)
    consumable.refresh_from_db()
    assert consumable.deleted_at is None
    assert list(ActionLog.objects.order_by("id").values_list("action_type", flat=True)) == ["delete", "restore"]


# --- who holds what -------------------------------------------------------------------------------------------------


def test_change_page_shows_who_holds_what(admin_client, superuser):
    accessory = AccessoryFactory()
    user = UserFactory(first_name="Ada", last_name="Lovelace")
    row = accessory_out(user, accessory, qty=2)
    row.note, row.created_by = "for the lab", superuser
    row.save()
    accessory_out(LocationFactory(name="Store room"), accessory, qty=1)
    page = admin_client.get(url(Accessory, "change", accessory.pk))
    assert page.status_code == 200
    content = page.content.decode()
    assert f'user: <a href="/admin/accounts/user/{user.pk}/change/">Ada Lovelace</a>' in content
    assert "<td>2</td><td>for the lab</td>" in content
    assert "location: <a" in content and "Store room" in content
    assert f"/admin/inventory/accessorycheckout/?accessory__id__exact={accessory.pk}" in content
    # Read-only: the units and the table are no form fields.
    form = page.context["adminform"].form
    assert "units_out" not in form.fields and "holders" not in form.fields

    consumable = ConsumableFactory()
    ConsumableAssignment.objects.create(consumable=consumable, assigned_user=user, assigned_qty=3)
    content = admin_client.get(url(Consumable, "change", consumable.pk)).content.decode()
    assert "Ada Lovelace" in content and "<td>3</td>" in content and "Check units in" not in content


@pytest.mark.parametrize("kind", RETURNABLE)
def test_assignment_rows_are_read_only_in_the_admin(admin_client, kind):
    _model, factory, put_out, rows, _kind = RETURNABLE[kind]
    row = put_out(factory(), 2)
    model_admin = admin.site._registry[rows]
    request = admin_client.get(url(rows)).wsgi_request
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, row)
    assert not model_admin.has_delete_permission(request, row)
    assert list(model_admin.get_actions(request)) == ["checkin_selected"]
    assert admin_client.get(url(rows, "change", row.pk)).status_code == 200


# --- checkout and checkin -------------------------------------------------------------------------------------------


def test_checkout_action_hands_out_units_through_the_service(admin_client, received):
    accessory = AccessoryFactory(qty=3)
    user = UserFactory()
    page = admin_client.post(url(Accessory), {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [accessory.pk]})
    assert page.status_code == 200 and b'name="quantity"' in page.content

    resp = apply_action(admin_client, Accessory, "checkout_selected", [accessory], user=user.pk, quantity="2",
                        note="desk 4")
    assert "1 accessories checked out." in texts(resp)
    row = AccessoryCheckout.objects.get()
    assert (row.assigned_user, row.assigned_qty, row.note) == (user, 2, "desk 4")
    log = ActionLog.objects.get()
    assert (log.action_type, log.target_type, log.target_id, log.note) == ("checkout", "user", user.pk, "desk 4")
    assert received == [("accessory_checked_out", 2)]

    resp = apply_action(admin_client, Accessory, "checkout_selected", [accessory], user=user.pk, quantity="2")
    assert any("There is currently only one available accessory of this type" in text for text in texts(resp))
    assert AccessoryCheckout.objects.count() == 1 and ActionLog.objects.count() == 1


def test_consumables_are_handed_to_users_only(admin_client, received):
    consumable = ConsumableFactory(qty=10)
    user = UserFactory()
    page = admin_client.post(url(Consumable), {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [consumable.pk]})
    assert b'name="user"' in page.content and b'name="location"' not in page.content
    apply_action(admin_client, Consumable, "checkout_selected", [consumable], user=user.pk, quantity="4", note="")
    row = ConsumableAssignment.objects.get()
    assert (row.assigned_user, row.assigned_qty) == (user, 4)
    assert listed(admin_client, Consumable) == [(consumable.name, 4, 6)]
    assert ActionLog.objects.get().action_type == "checkout"
    assert received == [("consumable_checked_out", 4)]


@pytest.mark.parametrize(("kind", "done", "signalled"), [
    ("accessory", "1 checkout rows checked in.", [("accessory_checked_in", 2), ("accessory_checked_in", 1)]),
    ("component", "1 installation rows checked in.", []),  # components notify nothing
])
def test_checkin_action_returns_the_units_and_logs(admin_client, received, kind, done, signalled):
    """A whole row (no quantity) and part of one: the API's log rows (``log_meta`` as the API's) and signals."""
    model, factory, put_out, rows, stock_kind = RETURNABLE[kind]
    item = factory(qty=5)
    whole, part = put_out(item, 2), put_out(item, 3)
    holder = stock_kind.assignment_target(whole)
    page = admin_client.post(url(rows), {"action": "checkin_selected", ACTION_CHECKBOX_NAME: [whole.pk]})
    assert page.status_code == 200 and b"Check in" in page.content

    resp = apply_action(admin_client, rows, "checkin_selected", [whole], quantity="", note="returned")
    assert done in texts(resp)
    assert not rows.objects.filter(pk=whole.pk).exists()
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.item_id) == ("checkin from", kind, item.pk)
    assert (log.target_type, log.target_id, log.note) == (target_type_of(holder), holder.pk, "returned")

    apply_action(admin_client, rows, "checkin_selected", [part], quantity="1", note="")
    part.refresh_from_db()
    assert part.assigned_qty == 2
    assert listed(admin_client, model) == [(item.name, 2, 3)]
    assert ActionLog.objects.latest("pk").log_meta == {"checkin_qty": {"old": None, "new": 1},
                                                       "assigned_qty": {"old": 3, "new": 2}}
    assert received == signalled


@pytest.mark.parametrize("kind", RETURNABLE)
def test_refused_checkin_is_a_message_and_changes_nothing(admin_client, site_settings, kind):
    _model, factory, put_out, rows, _kind = RETURNABLE[kind]
    site_settings.require_checkinout_notes = True
    site_settings.save()
    row = put_out(factory(), 2)
    resp = apply_action(admin_client, rows, "checkin_selected", [row], quantity="", note="")
    assert any("The note field is required." in text for text in texts(resp))
    resp = apply_action(admin_client, rows, "checkin_selected", [row], quantity="3", note="back")
    assert any("The checkin qty may not be greater than 2." in text for text in texts(resp))
    row.refresh_from_db()
    assert row.assigned_qty == 2 and not ActionLog.objects.exists()


# --- components -----------------------------------------------------------------------------------------------------


def test_component_page_shows_the_assets_it_is_installed_in(admin_client, superuser):
    ram = ComponentFactory(qty=8)
    host = AssetFactory(asset_tag="HOST-1", name="Build box")
    row = component_in(host, ram, qty=2)
    row.note, row.created_by = "slot 1", superuser
    row.save()
    component_in(AssetFactory(), ram, qty=3)
    content = admin_client.get(url(Component, "change", ram.pk)).content.decode()
    assert f'asset: <a href="/admin/inventory/asset/{host.pk}/change/">' in content
    assert "<td>2</td><td>slot 1</td>" in content and "<td>3</td>" in content
    assert f"/admin/inventory/componentassignment/?component__id__exact={ram.pk}" in content
    flat = re.sub(r"\s+", " ", content)
    assert '<label>Units out:</label> <div class="readonly">5</div>' in flat
    assert '<label>Remaining:</label> <div class="readonly">3</div>' in flat


def test_components_are_installed_into_assets_only_and_notify_nothing(admin_client, received):
    ram, host = ComponentFactory(qty=4), AssetFactory()
    page = admin_client.post(url(Component), {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [ram.pk]})
    assert b'name="asset"' in page.content and b'name="user"' not in page.content
    assert b'name="location"' not in page.content

    resp = apply_action(admin_client, Component, "checkout_selected", [ram], asset=host.pk, quantity="3", note="lab")
    assert "1 components checked out." in texts(resp)
    row = ComponentAssignment.objects.get()
    assert (row.assigned_asset, row.assigned_qty, row.note) == (host, 3, "lab")
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.target_type, log.target_id) == ("checkout", "component", "asset",
                                                                                host.pk)
    assert log.log_meta == {"assigned_qty": {"old": None, "new": 3}}
    assert listed(admin_client, Component) == [(ram.name, 3, 1)]

    resp = apply_action(admin_client, Component, "checkout_selected", [ram], asset=host.pk, quantity="2")
    assert any("Not enough components remaining: 1 remaining, 2 requested" in text for text in texts(resp))
    resp = apply_action(admin_client, Component, "checkout_selected", [ram], asset="", quantity="1")
    assert resp.context["form"].errors == {"asset": ["This field is required."]}
    assert ComponentAssignment.objects.count() == 1 and ActionLog.objects.count() == 1
    assert received == []
