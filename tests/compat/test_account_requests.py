"""A self-service client (a chat bot's "request a loaner" command, Snipe-IT's own "Requestable" page) replayed
through the API: list what may be requested with a search, request it, show "my requests", cancel; then the IT
team fulfils a second request and the asset shows up as the employee's."""

from __future__ import annotations

import pytest

from inventory.models import CheckoutRequest
from inventory.services import requests as services
from tests.factories import AssetFactory, AssetModelFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_request_a_loaner_and_get_it(make_client, superuser):
    employee = UserFactory(username="jdoe", permissions={"assets.view.requestable": "1"})
    bot = make_client(employee)
    loaner = AssetModelFactory(name="Loaner MacBook Air")
    first, second = (AssetFactory(model=loaner, requestable=True, asset_tag=f"LOAN-{n}") for n in (1, 2))
    AssetFactory(model=loaner, requestable=False, asset_tag="LOAN-X")

    found = bot.get("/api/v1/account/requestable/hardware", {"search": "loaner", "limit": 50}).json()
    assert found["total"] == 2 and {row["asset_tag"] for row in found["rows"]} == {"LOAN-1", "LOAN-2"}
    choice = next(row for row in found["rows"] if row["asset_tag"] == "LOAN-1")
    assert choice["available_actions"]["request"] is True

    assert bot.post(f"/api/v1/account/request/{choice['id']}").json()["status"] == "success"
    mine = bot.get("/api/v1/account/requests").json()
    assert mine["total"] == 1 and mine["rows"][0]["name"]
    assert bot.post(f"/api/v1/account/request/{choice['id']}/cancel").json()["status"] == "success"
    assert bot.get("/api/v1/account/requests").json()["total"] == 0

    assert bot.post(f"/api/v1/account/request/{second.pk}").json()["status"] == "success"
    services.request_fulfil(request=CheckoutRequest.objects.open().get(), actor=superuser)  # the admin's action

    held = make_client(superuser).get(f"/api/v1/users/{employee.pk}/assets").json()
    assert [row["asset_tag"] for row in held["rows"]] == ["LOAN-2"]
    assert bot.get("/api/v1/account/requests").json()["total"] == 0
    assert first.pk  # still requestable by others
