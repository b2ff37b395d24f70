"""The admin's start page (issue 28 item 1): the dashboard's cards, charts and lists over the app list; each card
links to the list it counts; a company administrator sees their company's numbers only; a fixed number of
queries."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import AccessoryFactory, AssetFactory, UserFactory
from tests.inventory.dashboard.test_selector import inventory  # noqa: F401  (the shared data)

pytestmark = pytest.mark.django_db


def cards(response) -> dict[str, tuple[int, str]]:
    html = response.content.decode()
    found = re.findall(r'<a class="dashboard-card[^"]*" href="([^"]*)" data-card="([^"]+)">\s*'
                       r'<span class="value">(\d+)</span>', html)
    return {label: (int(value), url.replace("&amp;", "&")) for url, label, value in found}


def test_the_start_page_shows_the_dashboard_and_links_each_number(client, superuser, inventory):  # noqa: F811
    client.force_login(superuser)
    response = client.get("/admin/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Django administration" not in html
    assert 'id="chart-status"' in html and 'id="chart-category"' in html and 'id="chart-checkouts"' in html
    assert "<svg" in html and "<script" not in html.split('id="dashboard"')[1].split("</div>\n</div>")[0]
    shown = cards(response)
    assert shown["Assets"][0] == 9
    assert shown["Audits overdue"][0] == 1 and shown["Check-ins overdue"][0] == 1
    assert shown["Accessories at their minimum"][0] == 1
    for label, (value, url) in shown.items():
        listed = client.get(url)
        assert listed.status_code == 200, (label, url)
        assert listed.context["cl"].result_count == value, (label, url)
    assert "Recent actions" not in html  # Django's own log box is gone
    assert "app-inventory" in html  # the app list is still there, below


def test_a_company_administrator_sees_only_their_company(fmcs_on, company, other_company, inventory):  # noqa: F811
    AssetFactory(company=other_company)
    AccessoryFactory(company=other_company, qty=1, min_amt=1)
    cadmin = Client()
    cadmin.force_login(UserFactory(company=company, permissions={"admin": 1}))
    shown = cards(cadmin.get("/admin/"))
    assert shown["Assets"][0] == 5
    assert shown["Accessories at their minimum"][0] == 1
    for label, (value, url) in shown.items():
        response = cadmin.get(url)
        assert response.status_code == 200, (label, url)
        assert response.context["cl"].result_count == value, (label, url)


def test_the_page_runs_a_fixed_number_of_queries(client, superuser, inventory,  # noqa: F811
                                                 django_assert_max_num_queries):
    client.force_login(superuser)
    client.get("/admin/")
    with django_assert_max_num_queries(40) as first:
        client.get("/admin/")
    for n in range(20):
        AssetFactory()
        AccessoryFactory(min_amt=9, name=f"Short {n}")
    with django_assert_max_num_queries(len(first.captured_queries)):
        client.get("/admin/")
