"""The license admin goes through ``inventory.services.licenses``: it lists licenses with their free seats (searchable
and
filtered), creates and edits them with the API's rules and messages (seats follow ``seats``, never below the
assigned ones), shows every seat on the license's page, refuses a delete while a seat is assigned, and checks seats
out and in with the API's log rows and signals.

Every test drives the real admin pages with a logged-in super user and checks the answer, the messages and the
database."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory import signals
from inventory.models import License, LicenseSeat
from inventory.services.licenses import DELETE_REFUSED, SEAT_UNAVAILABLE
from tests.factories import AssetFactory, CategoryFactory, LicenseFactory, ManufacturerFactory, UserFactory
from tests.factories.inventory import seat_out
from tests.ops.test_admin_services import form_data, form_errors, texts, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def received():
    """The license signals (what the webhooks receive), by name."""
    events: list[str] = []
    receivers = {}
    for name in ("license_checked_out", "license_checked_in"):
        def receiver(sender, name=name, **kwargs):
            events.append(name)

        receivers[name] = receiver
        getattr(signals, name).connect(receiver, weak=False)
    yield events
    for name, receiver in receivers.items():
        getattr(signals, name).disconnect(receiver)


def listed(client, **params: Any) -> list[tuple[str, int, int]]:
    rows = client.get(url(License), params).context["cl"].result_list
    return [(row.name, row.seats, row.remaining_units) for row in rows]


def apply_action(client, model, name: str, objs, **data: Any):
    return client.post(url(model), {"action": name, ACTION_CHECKBOX_NAME: [obj.pk for obj in objs], "apply": "1",
                                    **data}, follow=True)


def test_list_shows_free_seats_search_and_filters_at_a_constant_cost(admin_client):
    acme = ManufacturerFactory(name="Acme")
    office = LicenseFactory(name="Office", seats=3, manufacturer=acme, serial="KEY-OFFICE")
    seat_out(UserFactory(), office)
    LicenseFactory(name="Visio", seats=1, maintained=True)
    assert sorted(listed(admin_client)) == [("Office", 3, 2), ("Visio", 1, 1)]
    assert [name for name, *_ in listed(admin_client, q="acme")] == ["Office"]
    assert [name for name, *_ in listed(admin_client, q="key-office")] == ["Office"]
    assert [name for name, *_ in listed(admin_client, maintained__exact="1")] == ["Visio"]

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(url(License)).status_code == 200
        return len(captured)

    one = queries()
    for _ in range(5):
        seat_out(AssetFactory(), LicenseFactory(seats=2))
    assert queries() == one


def test_add_creates_the_seats_through_the_service(admin_client, superuser):
    category = CategoryFactory(category_type="license")
    data = {"name": "Office", "seats": "3", "category": category.pk, "serial": "K", "reassignable": "on",
            "license_name": "", "license_email": "", "purchase_order": "", "order_number": "", "notes": "",
            "min_amt": "", "purchase_cost": "", "purchase_date": "", "expiration_date": "", "termination_date": ""}
    resp = admin_client.post(url(License, "add"), data)
    assert resp.status_code == 302, form_errors(resp)
    license_ = License.objects.get(name="Office")
    assert (license_.seats, license_.created_by, license_.reassignable) == (3, superuser, True)
    assert LicenseSeat.objects.filter(license=license_).free().count() == 3
    assert ActionLog.objects.get().action_type == "create"

    resp = admin_client.post(url(License, "add"), {**data, "name": "Bad", "seats": "0"})
    assert "The seats must be at least 1." in form_errors(resp)
    assert not License.objects.filter(name="Bad").exists()


def test_seats_below_the_assigned_ones_are_refused_and_the_page_shows_the_seats(admin_client):
    license_ = LicenseFactory(seats=3, notes="")
    holder = UserFactory(first_name="Ada", last_name="Lovelace")
    seat_out(holder, license_)
    seat_out(AssetFactory(), license_)
    page = url(License, "change", license_.pk)
    content = admin_client.get(page).content.decode()
    assert f'user: <a href="/admin/accounts/user/{holder.pk}/change/">Ada Lovelace</a>' in content
    assert f"/admin/inventory/licenseseat/?license__id__exact={license_.pk}" in content
    resp = admin_client.post(page, form_data(admin_client, page, seats="1", notes="edited"))
    assert resp.status_code == 200
    assert "The seats must be at least 2: 2 are assigned." in form_errors(resp)
    license_.refresh_from_db()
    assert (license_.seats, license_.notes) == (3, "") and not ActionLog.objects.exists()
    resp = admin_client.post(page, form_data(admin_client, page, seats="2"))
    assert resp.status_code == 302, form_errors(resp)
    assert LicenseSeat.objects.filter(license=license_).count() == 2


def test_a_license_with_an_assigned_seat_cannot_be_deleted(admin_client):
    license_ = LicenseFactory()
    seat_out(UserFactory(), license_)
    resp = admin_client.post(url(License, "delete", license_.pk), {"post": "yes"})
    assert resp.status_code == 302 and any(DELETE_REFUSED.strip() in text for text in texts(resp))
    license_.refresh_from_db()
    assert license_.deleted_at is None and not ActionLog.objects.exists()


def test_seats_are_read_only_and_checked_out_and_in_by_actions(admin_client, received):
    license_ = LicenseFactory(seats=2, reassignable=False)
    first, second = LicenseSeat.objects.filter(license=license_).order_by("pk")
    model_admin = admin.site._registry[LicenseSeat]
    request = admin_client.get(url(LicenseSeat)).wsgi_request
    assert not model_admin.has_add_permission(request) and not model_admin.has_change_permission(request, first)
    assert list(model_admin.get_actions(request)) == ["checkout_selected", "checkin_selected"]

    user = UserFactory()
    page = admin_client.post(url(LicenseSeat), {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [first.pk]})
    assert page.status_code == 200 and b'name="location"' not in page.content
    resp = apply_action(admin_client, LicenseSeat, "checkout_selected", [first], user=user.pk, note="desk")
    assert "1 seats checked out." in texts(resp)
    first.refresh_from_db()
    assert first.assigned_user == user
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.target_id, log.note) == ("checkout", "license", user.pk, "desk")

    resp = apply_action(admin_client, LicenseSeat, "checkout_selected", [first, second], asset=AssetFactory().pk)
    assert any(SEAT_UNAVAILABLE in text for text in texts(resp)) and "1 seats checked out." in texts(resp)
    resp = apply_action(admin_client, LicenseSeat, "checkin_selected", [first], note="back")
    assert "1 seats checked in." in texts(resp)
    first.refresh_from_db()
    assert not first.is_assigned
    assert received == ["license_checked_out", "license_checked_out", "license_checked_in"]


def test_the_license_checkout_action_hands_out_a_free_seat_of_each(admin_client, received):
    full, roomy = LicenseFactory(name="Full", seats=1), LicenseFactory(name="Roomy", seats=2)
    seat_out(UserFactory(), full)
    asset = AssetFactory()
    page = admin_client.post(url(License), {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [roomy.pk]})
    assert page.status_code == 200 and b'name="location"' not in page.content
    resp = apply_action(admin_client, License, "checkout_selected", [full, roomy], asset=asset.pk, quantity="1",
                        note="lab")
    assert "1 licenses checked out." in texts(resp)
    assert any("Not enough license seats available for checkout" in text for text in texts(resp))
    assert LicenseSeat.objects.get(license=roomy, assigned_asset=asset).pk == min(
        LicenseSeat.objects.filter(license=roomy).values_list("pk", flat=True))
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_id, log.target_type, log.note) == ("checkout", roomy.pk, "asset", "lab")
    assert received == ["license_checked_out"]
