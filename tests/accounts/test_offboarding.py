"""Offboarding (issue 30 item 5): who left and still holds our hardware. A deactivated user's token fails at once;
what they hold is listed by ``GET /users?leavers=true``, the admin's user list filter, the start page's card and the
alert digest, company separation included."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import transaction

from assetsvc.models import SiteSettings
from notifications.models import OutboundMail
from tests.conftest import TokenClient
from tests.factories import CompanyFactory, UserFactory
from tests.factories.inventory import (
    AccessoryFactory,
    ConsumableFactory,
    accessory_out,
    checked_out_asset,
)


@pytest.fixture
def people(db):
    leaver = UserFactory(username="leaver", first_name="Lee", last_name="Ver", is_active=False)
    checked_out_asset(leaver, asset_tag="LEFT-1")
    quiet = UserFactory(username="quiet", is_active=False)  # left, holds nothing
    staying = UserFactory(username="staying")
    checked_out_asset(staying)
    only_consumed = UserFactory(username="consumed", is_active=False)
    from inventory.models import ConsumableAssignment

    ConsumableAssignment.objects.create(consumable=ConsumableFactory(), assigned_user=only_consumed)
    accessory_leaver = UserFactory(username="dock", is_active=False)
    accessory_out(accessory_leaver, AccessoryFactory())
    return leaver, quiet, staying, accessory_leaver


def usernames(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {row["username"] for row in response.json()["rows"]}


def test_the_users_list_filters_leavers(token_client, people):
    assert usernames(token_client.get("/api/v1/users", {"leavers": "true"})) == {"leaver", "dock"}
    everyone_else = usernames(token_client.get("/api/v1/users", {"leavers": "false", "limit": 500}))
    assert {"quiet", "staying", "consumed"} <= everyone_else and not {"leaver", "dock"} & everyone_else


def test_a_deactivated_users_token_fails_on_the_next_request(db):
    person = UserFactory(permissions={"assets.view": 1})
    client = TokenClient(person)
    assert client.get("/api/v1/hardware").status_code == 200
    person.is_active = False
    person.save()
    assert client.get("/api/v1/hardware").status_code == 401


def test_the_admin_filter_and_the_start_page_card(signed_in, superuser, people):
    client = signed_in(superuser)
    page = client.get("/admin/accounts/user/", {"leaver": "yes"}).content.decode()
    assert ">leaver<" in page and ">dock<" in page and ">quiet<" not in page and ">staying<" not in page
    start = client.get("/admin/").content.decode()
    assert 'data-card="Leavers still holding items"' in start
    assert "/admin/accounts/user/?leaver=yes" in start


def test_a_company_administrator_counts_only_their_leavers(signed_in, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    checked_out_asset(UserFactory(company=mine, is_active=False), company=mine)
    checked_out_asset(UserFactory(company=theirs, is_active=False, username="stranger"), company=theirs)
    boss = UserFactory(company=mine, permissions={"admin": 1, "users.view": 1})
    assert usernames(TokenClient(boss).get("/api/v1/users", {"leavers": "true"})) != set()
    assert "stranger" not in usernames(TokenClient(boss).get("/api/v1/users", {"leavers": "true"}))


@pytest.mark.django_db(transaction=True)
def test_the_alert_digest_names_the_leavers(people, smtp_server):
    from tests.conftest import run_mail_queue

    settings = SiteSettings.load()
    settings.alert_email = "it@example.com"
    settings.save()
    with transaction.atomic():
        call_command("send_alerts")
    run_mail_queue()
    [mail] = [m for m in smtp_server.wait_for(1) if m.rcpt_tos == ["it@example.com"]]
    assert "Leavers still holding items" in mail.text and "Lee Ver" in mail.text
    assert "2 leavers" in mail.subject
    assert OutboundMail.objects.filter(event="digest").count() == 1
