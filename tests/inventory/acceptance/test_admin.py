"""Issue 29 in the back office: the read-only acceptance list (company-scoped), the asset list's acceptance filter,
the start page's "Awaiting acceptance" card and the category's acceptance columns."""

from __future__ import annotations

import pytest
from django.test import Client

from inventory.acceptance_links import acceptance_token
from inventory.models import CheckoutAcceptance
from tests.factories import AssetFactory, CategoryFactory, UserFactory
from tests.factories.inventory import AssetModelFactory
from tests.inventory.dashboard.test_admin_page import cards

pytestmark = pytest.mark.django_db


def check_out(api, asset, user):
    resp = api.post(f"/api/v1/hardware/{asset.pk}/checkout", {"checkout_to_type": "user", "assigned_user": user.pk},
                    format="json")
    assert resp.json()["status"] == "success", resp.content


@pytest.fixture
def three(token_client, fmcs_on, company, other_company):
    """Three assets of a requiring category checked out: one awaiting (company A), one accepted, one of company B."""
    category = CategoryFactory(require_acceptance=True, eula_text="Terms")
    model = AssetModelFactory(category=category)
    awaiting, accepted = AssetFactory(company=company, model=model), AssetFactory(company=company, model=model)
    foreign = AssetFactory(company=other_company, model=model)
    for asset in (awaiting, accepted, foreign):
        check_out(token_client, asset, UserFactory(company=asset.company))
    row = CheckoutAcceptance.objects.get(item_id=accepted.pk)
    assert Client().post(f"/accept/{acceptance_token(row)}/", {"answer": "accept"}).status_code == 200
    return awaiting, accepted, foreign


def test_the_list_the_filter_and_the_card(super_client, three):
    awaiting, accepted, foreign = three
    page = super_client.get("/admin/inventory/checkoutacceptance/")
    assert page.status_code == 200 and page.context["cl"].result_count == 3
    assert super_client.get("/admin/inventory/checkoutacceptance/?state__exact=pending").context["cl"].result_count == 2
    row = CheckoutAcceptance.objects.get(item_id=accepted.pk)
    assert super_client.get(f"/admin/inventory/checkoutacceptance/{row.pk}/change/").status_code == 200
    listed = super_client.get("/admin/inventory/asset/?acceptance=awaiting")
    assert {asset.pk for asset in listed.context["cl"].result_list} == {awaiting.pk, foreign.pk}
    listed = super_client.get("/admin/inventory/asset/?acceptance=accepted")
    assert [asset.pk for asset in listed.context["cl"].result_list] == [accepted.pk]
    value, url = cards(super_client.get("/admin/"))["Awaiting acceptance"]
    assert value == 2 and super_client.get(url).context["cl"].result_count == 2


def test_a_company_administrator_sees_their_company_only(three, company):
    cadmin = Client()
    cadmin.force_login(UserFactory(company=company, permissions={"admin": 1}))
    assert cadmin.get("/admin/inventory/checkoutacceptance/").context["cl"].result_count == 2
    value, url = cards(cadmin.get("/admin/"))["Awaiting acceptance"]
    assert value == 1 and cadmin.get(url).context["cl"].result_count == 1
    assert cadmin.post("/admin/inventory/checkoutacceptance/add/").status_code == 403


def test_the_category_admin_shows_the_acceptance_settings(super_client):
    CategoryFactory(name="Laptops", require_acceptance=True)
    page = super_client.get("/admin/inventory/category/")
    assert page.status_code == 200 and "require_acceptance" in page.content.decode().replace("-", "_")
    form = super_client.get("/admin/inventory/category/add/").content.decode()
    assert all(name in form for name in ('name="require_acceptance"', 'name="use_default_eula"',
                                         'name="eula_text"', 'name="checkin_email"'))
