"""The kit admin goes through ``inventory.services.kits``: the kit page lists its four kinds of lines as inlines whose
rows are added, changed and removed by the line services (a refused row is a form error and nothing of the page is
kept), the action "Check out to a user…" checks each kit out all or nothing, and a company administrator sees only
their company's lines and changes no kit.

Every test drives the real admin pages with a logged-in user and checks the answer, the messages and the database."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME

from activity.models import ActionLog
from inventory.models import (
    AccessoryCheckout,
    Asset,
    Kit,
    KitAccessory,
    KitConsumable,
    KitLicense,
    KitModel,
    LicenseSeat,
)
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    ConsumableFactory,
    KitFactory,
    LicenseFactory,
    UserFactory,
)
from tests.ops.test_admin_services import form_data, form_errors, texts, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def kit(db) -> Kit:
    """A kit of two laptops (three in stock), one license seat and two mice."""
    kit = KitFactory(name="New hire")
    laptop = AssetModelFactory(name="Laptop")
    for _ in range(3):
        AssetFactory(model=laptop)
    KitModel.objects.create(kit=kit, model=laptop, quantity=2)
    KitLicense.objects.create(kit=kit, license=LicenseFactory(name="Office", seats=2), quantity=1)
    KitAccessory.objects.create(kit=kit, accessory=AccessoryFactory(name="Mouse", qty=5), quantity=2)
    return kit


def page_data(client, kit: Kit, **changes: Any) -> dict[str, Any]:
    """The kit's change page as its browser would post it back (the kit's fields and every inline's rows), with
    ``changes`` applied (None removes a key)."""
    page = url(Kit, "change", kit.pk)
    response = client.get(page)
    data = form_data(client, page)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for bound in formset.management_form:
            data[bound.html_name] = bound.value()
        for form in formset.forms:
            for bound in form:
                value = bound.value()
                if bound.name == "DELETE":
                    continue
                data[bound.html_name] = "" if value is None else value
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def lines(kit: Kit) -> dict[str, list[tuple[int, int]]]:
    return {model.__name__: sorted(model.objects.filter(kit=kit).values_list(model.item_field, "quantity"))
            for model in (KitModel, KitLicense, KitAccessory, KitConsumable)}


def checkout(client, kits, **data: Any):
    return client.post(url(Kit), {"action": "checkout_to_user", ACTION_CHECKBOX_NAME: [k.pk for k in kits],
                                  "apply": "1", **data}, follow=True)


def holdings() -> tuple:
    return (list(Asset.objects.order_by("pk").values_list("pk", "assigned_user_id")),
            list(LicenseSeat.objects.order_by("pk").values_list("pk", "assigned_user_id")),
            AccessoryCheckout.objects.count())


# --- pages ----------------------------------------------------------------------------------------------------------


def test_changelist_add_and_change_pages_render(admin_client, kit):
    response = admin_client.get(url(Kit))
    assert response.status_code == 200
    assert [row.name for row in response.context["cl"].result_list] == ["New hire"]
    assert admin_client.get(url(Kit), {"q": "hire"}).context["cl"].result_count == 1
    add = admin_client.get(url(Kit, "add"))
    assert add.status_code == 200 and add.context["inline_admin_formsets"] == []
    change = admin_client.get(url(Kit, "change", kit.pk))
    assert change.status_code == 200
    shown = {inline.formset.prefix: [form.instance.item.name for form in inline.formset.initial_forms]
             for inline in change.context["inline_admin_formsets"]}
    assert shown == {"kitmodel_set": ["Laptop"], "kitlicense_set": ["Office"], "kitaccessory_set": ["Mouse"],
                     "kitconsumable_set": []}


def test_add_saves_through_the_service_and_refuses_a_taken_name(admin_client, kit):
    response = admin_client.post(url(Kit, "add"), {"name": "  Intern  "}, follow=True)
    assert response.status_code == 200
    created = Kit.objects.get(name="Intern")
    assert ActionLog.objects.filter(item_type="kit", item_id=created.pk, action_type="create").exists()
    refused = admin_client.post(url(Kit, "add"), {"name": "new HIRE"})
    assert "The name has already been taken." in form_errors(refused)
    assert Kit.objects.count() == 2


def test_inline_rows_add_change_and_remove_lines_through_the_services(admin_client, kit):
    mouse = KitAccessory.objects.get(kit=kit)
    notebook = ConsumableFactory(name="Notebook", qty=10)
    data = page_data(admin_client, kit, **{
        "kitaccessory_set-0-quantity": 4,
        "kitlicense_set-0-DELETE": "on",
        "kitconsumable_set-0-consumable": notebook.pk, "kitconsumable_set-0-quantity": 3,
    })
    logs = ActionLog.objects.filter(item_type="kit", item_id=kit.pk).count()
    response = admin_client.post(url(Kit, "change", kit.pk), data, follow=True)
    assert response.status_code == 200 and not response.context.get("errors")
    laptop = KitModel.objects.get(kit=kit).model_id
    assert lines(kit) == {"KitModel": [(laptop, 2)], "KitLicense": [], "KitAccessory": [(mouse.accessory_id, 4)],
                          "KitConsumable": [(notebook.pk, 3)]}
    assert ActionLog.objects.filter(item_type="kit", item_id=kit.pk).count() == logs + 3  # one per line change


def test_another_item_on_a_row_replaces_the_line(admin_client, kit):
    desktop = AssetModelFactory(name="Desktop")
    data = page_data(admin_client, kit, **{"kitmodel_set-0-model": desktop.pk, "kitmodel_set-0-quantity": 3})
    response = admin_client.post(url(Kit, "change", kit.pk), data, follow=True)
    assert response.status_code == 200 and not response.context.get("errors")
    assert lines(kit)["KitModel"] == [(desktop.pk, 3)]


def test_a_refused_row_keeps_nothing_of_the_page(admin_client, kit):
    before = lines(kit)
    data = page_data(admin_client, kit, **{
        "name": "Renamed",
        "kitaccessory_set-0-quantity": 4,  # accepted on its own
        "kitmodel_set-1-model": KitModel.objects.get(kit=kit).model_id,  # already on the kit: refused
        "kitmodel_set-1-quantity": 1,
    })
    response = admin_client.post(url(Kit, "change", kit.pk), data)
    assert response.status_code == 200
    assert "Model already attached to kit" in str(response.context["inline_admin_formsets"][0].formset.errors)
    assert lines(kit) == before and Kit.objects.get(pk=kit.pk).name == "New hire"
    assert KitAccessory.objects.get(kit=kit).quantity == 2


def test_delete_goes_through_the_service(admin_client, kit):
    response = admin_client.post(url(Kit, "delete", kit.pk), {"post": "yes"}, follow=True)
    assert response.status_code == 200
    assert not Kit.objects.exists() and not KitModel.objects.exists()
    assert ActionLog.objects.filter(item_type="kit", item_id=kit.pk, action_type="delete").exists()


# --- the checkout action --------------------------------------------------------------------------------------------


def test_checkout_action_shows_its_form_then_checks_everything_out(admin_client, kit):
    page = admin_client.post(url(Kit), {"action": "checkout_to_user", ACTION_CHECKBOX_NAME: [kit.pk]})
    assert page.status_code == 200 and "user" in page.context["form"].fields
    hire = UserFactory(first_name="Ada", last_name="Hire")
    response = checkout(admin_client, [kit], user=hire.pk, note="day one")
    assert texts(response) == ["1 kit checked out to Ada Hire."]
    assert Asset.objects.filter(assigned_user=hire).count() == 2
    assert LicenseSeat.objects.filter(assigned_user=hire).count() == 1
    assert list(AccessoryCheckout.objects.filter(assigned_user=hire).values_list("assigned_qty", flat=True)) == [2]


def test_checkout_action_checks_out_nothing_when_a_line_is_short(admin_client, kit):
    KitModel.objects.filter(kit=kit).update(quantity=5)  # three laptops in stock
    before, logs = holdings(), ActionLog.objects.count()
    response = checkout(admin_client, [kit], user=UserFactory().pk)
    assert texts(response) == ["New hire: Checkout error: There are not enough available assets for Laptop to "
                               "checkout. 5 are required."]
    assert holdings() == before and ActionLog.objects.count() == logs


def test_checkout_action_reports_each_kit(admin_client, kit):
    short = KitFactory(name="Short kit")
    KitAccessory.objects.create(kit=short, accessory=AccessoryFactory(name="Dock", qty=1), quantity=2)
    hire = UserFactory(first_name="Ada", last_name="Hire")
    response = checkout(admin_client, [kit, short], user=hire.pk)
    assert sorted(texts(response)) == [
        "1 kit checked out to Ada Hire.",
        "Short kit: Checkout error: There are not enough available units of Dock to checkout. 2 are required."]
    assert Asset.objects.filter(assigned_user=hire).count() == 2


def test_checkout_action_requires_a_user(admin_client, kit):
    response = checkout(admin_client, [kit])
    assert response.status_code == 200 and "user" in response.context["form"].errors
    assert not Asset.objects.filter(assigned_user__isnull=False).exists()


# --- company separation ---------------------------------------------------------------------------------------------


@pytest.fixture
def company_admin(client, company):
    client.force_login(UserFactory(company=company, permissions={"admin": 1}))
    return client


@pytest.fixture
def shared_kit(company, other_company) -> Kit:
    kit = KitFactory(name="Shared kit")
    KitAccessory.objects.create(kit=kit, accessory=AccessoryFactory(name="Own mouse", company=company), quantity=1)
    KitLicense.objects.create(kit=kit, license=LicenseFactory(name="Secret B license", company=other_company),
                              quantity=1)
    return kit


def test_company_admin_sees_only_their_companys_lines_read_only(fmcs_on, company_admin, shared_kit):
    response = company_admin.get(url(Kit, "change", shared_kit.pk))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Own mouse" in body and "Secret B license" not in body
    assert response.context["has_change_permission"] is False
    for inline in response.context["inline_admin_formsets"]:
        assert not inline.has_add_permission and not inline.has_change_permission
        assert not inline.has_delete_permission
    assert company_admin.get(url(Kit)).status_code == 200


def test_company_admin_cannot_change_or_delete_a_kit(fmcs_on, company_admin, shared_kit):
    before = lines(shared_kit)
    assert company_admin.post(url(Kit, "change", shared_kit.pk), {"name": "Taken over"}).status_code == 403
    assert company_admin.post(url(Kit, "delete", shared_kit.pk), {"post": "yes"}).status_code == 403
    response = company_admin.post(url(Kit), {"action": "delete_selected_items",
                                             ACTION_CHECKBOX_NAME: [shared_kit.pk]}, follow=True)
    [refused] = texts(response)
    assert refused.startswith("Shared kit: Insufficient permissions.")
    assert Kit.objects.get(pk=shared_kit.pk).name == "Shared kit" and lines(shared_kit) == before


def test_company_admin_may_add_a_kit_as_in_the_api(fmcs_on, company_admin):
    assert company_admin.get(url(Kit, "add")).status_code == 200
    assert company_admin.post(url(Kit, "add"), {"name": "Team kit"}, follow=True).status_code == 200
    assert Kit.objects.filter(name="Team kit").exists()


def test_company_admin_checkout_of_a_kit_with_hidden_lines_is_refused_generically(fmcs_on, company_admin,
                                                                                  shared_kit, company):
    before = holdings()
    response = checkout(company_admin, [shared_kit], user=UserFactory(company=company).pk)
    assert texts(response) == ["Shared kit: Checkout error: This kit contains items you cannot check out."]
    assert holdings() == before


def test_a_quantity_out_of_bounds_is_a_row_error(admin_client, kit):
    before = lines(kit)
    for quantity in (0, 100_001):
        response = admin_client.post(url(Kit, "change", kit.pk),
                                     page_data(admin_client, kit, **{"kitmodel_set-0-quantity": quantity}))
        assert response.status_code == 200
        assert "quantity" in response.context["inline_admin_formsets"][0].formset.errors[0]
    assert lines(kit) == before
