"""``GET hardware/{id}/qr``: the asset's label code (segno), visible exactly as ``GET hardware/{id}`` is."""

from __future__ import annotations

import pytest

from inventory import labels
from tests.factories import AssetFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_svg_by_default_holds_the_tag_and_admin_address(token_client):
    asset = AssetFactory(asset_tag="QR-1")
    resp = token_client.get(f"/api/v1/hardware/{asset.pk}/qr")
    assert resp.status_code == 200
    assert resp["Content-Type"] == "image/svg+xml"
    assert resp.content.lstrip().startswith(b"<?xml") and b"<svg" in resp.content
    # the same code as one made of the tag and the absolute admin address (built from the request's host)
    admin_url = f"http://testserver/admin/inventory/asset/{asset.pk}/change/"
    assert resp.content == labels.asset_qr(asset, admin_url, "svg")
    assert resp.content != labels.asset_qr(asset, "http://elsewhere/", "svg")


def test_png(token_client):
    asset = AssetFactory()
    resp = token_client.get(f"/api/v1/hardware/{asset.pk}/qr?format=png")
    assert resp.status_code == 200
    assert resp["Content-Type"] == "image/png"
    assert resp.content.startswith(b"\x89PNG")


def test_bad_format_is_a_400_envelope(token_client):
    asset = AssetFactory()
    resp = token_client.get(f"/api/v1/hardware/{asset.pk}/qr?format=gif")
    assert resp.status_code == 400
    body = resp.json()
    assert body["status"] == "error" and body["messages"] == {"format": ["The format must be svg or png."]}


def test_unknown_asset_is_not_found(token_client, settings):
    resp = token_client.get("/api/v1/hardware/999999/qr")  # compat: Snipe-IT's 200 with the envelope
    assert resp.status_code == 200 and resp["Content-Type"].startswith("application/json")
    assert resp.json()["status"] == "error" and resp.json()["message"] == "Asset does not exist."
    settings.ASSETSVC = {**settings.ASSETSVC, "API_ERROR_STATUS": "http"}
    resp = token_client.get("/api/v1/hardware/999999/qr?format=png")
    assert resp.status_code == 404 and resp["Content-Type"].startswith("application/json")
    assert resp.json()["message"] == "Asset does not exist."


def test_other_companys_asset_is_not_found(make_client, fmcs_on, company, other_company):
    mine, theirs = AssetFactory(company=company), AssetFactory(company=other_company)
    client = make_client(UserFactory(company=company, permissions={"assets.view": 1}))
    assert client.get(f"/api/v1/hardware/{mine.pk}/qr").status_code == 200
    resp = client.get(f"/api/v1/hardware/{theirs.pk}/qr?format=png")
    assert resp.json()["message"] == "Asset does not exist."
    assert client.get(f"/api/v1/hardware/{theirs.pk}").json()["message"] == "Asset does not exist."  # as the read


def test_needs_a_token_and_the_view_permission(api_client, make_client):
    asset = AssetFactory()
    assert api_client.get(f"/api/v1/hardware/{asset.pk}/qr").status_code == 401
    assert make_client(UserFactory()).get(f"/api/v1/hardware/{asset.pk}/qr").status_code == 403


def test_code_holds_the_tag_and_the_admin_url():
    asset = AssetFactory(asset_tag="QR-9")
    assert labels.qr_text(asset, "http://testserver" + labels.admin_path(asset)) == (
        f"QR-9\nhttp://testserver/admin/inventory/asset/{asset.pk}/change/")
