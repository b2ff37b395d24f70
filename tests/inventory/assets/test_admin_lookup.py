"""The tag or serial box of every admin page (issue 28 item 6): a tag (any case) opens its asset, a serial opens its
asset or, when several share it, a short list; nothing found leads to the searched list with a message; another
company's asset is never found."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from tests.factories import AssetFactory, UserFactory

pytestmark = pytest.mark.django_db
LOOKUP = "/admin/inventory/asset/lookup/"


def test_the_box_is_on_every_admin_page(super_client):
    for url in ("/admin/", "/admin/inventory/asset/", "/admin/accounts/user/"):
        assert b'id="asset-lookup"' in super_client.get(url).content, url
    assert b'id="asset-lookup"' not in Client().get("/admin/login/").content


def test_a_tag_opens_its_asset_whatever_the_case(super_client):
    asset = AssetFactory(asset_tag="LAPTOP-0042", serial="SN-1")
    for typed in ("LAPTOP-0042", "laptop-0042", "  LAPTOP-0042  "):
        response = super_client.get(LOOKUP, {"q": typed})
        assert response.status_code == 302
        assert response["Location"] == f"/admin/inventory/asset/{asset.pk}/change/"


def test_a_serial_opens_its_asset_and_a_shared_serial_lists_them(super_client):
    one = AssetFactory(serial="C02XK1")
    assert super_client.get(LOOKUP, {"q": "c02xk1"})["Location"] == f"/admin/inventory/asset/{one.pk}/change/"
    twins = [AssetFactory(serial="DUP-9", asset_tag=f"TWIN-{n}") for n in range(3)]
    response = super_client.get(LOOKUP, {"q": "DUP-9"})
    assert response.status_code == 200
    assert [asset.pk for asset in response.context["assets"]] == [twin.pk for twin in twins]
    assert b"TWIN-2" in response.content


def test_nothing_found_searches_the_list(super_client):
    AssetFactory(asset_tag="LAPTOP-0042")
    response = super_client.get(LOOKUP, {"q": "LAPTOP-00"})
    assert response.status_code == 302 and response["Location"] == "/admin/inventory/asset/?q=LAPTOP-00"
    assert "No asset has the tag or serial" in str(next(iter(get_messages(response.wsgi_request))))
    assert super_client.get(LOOKUP, {"q": ""})["Location"] == "/admin/inventory/asset/"


def test_another_companys_asset_is_never_found(fmcs_on, company, other_company):
    AssetFactory(asset_tag="THEIRS-1", serial="THEIR-SERIAL", company=other_company)
    client = Client()
    client.force_login(UserFactory(company=company, permissions={"admin": 1}))
    for typed in ("THEIRS-1", "THEIR-SERIAL"):
        response = client.get(LOOKUP, {"q": typed})
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/inventory/asset/?q=")  # not their asset's page
        assert client.get(response["Location"]).context["cl"].result_count == 0


def test_only_admin_users(client):
    client.force_login(UserFactory())
    assert client.get(LOOKUP, {"q": "x"}).status_code == 302  # to the login page, as every admin page
