"""``GET /account/eulas`` and ``GET /users/{id}/eulas`` (issue 29): the accepted EULAs and their PDFs, downloadable by
the person and by those who may view that user, never across companies."""

from __future__ import annotations

import pytest
from django.test import Client

from inventory.acceptance_links import acceptance_token
from inventory.models import CheckoutAcceptance
from tests.factories import AssetFactory, CategoryFactory, UserFactory
from tests.factories.inventory import AssetModelFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def accepted(token_client, fmcs_on, company):
    person = UserFactory(company=company)
    asset = AssetFactory(company=company, asset_tag="TAG-42", model=AssetModelFactory(
        name="X1", category=CategoryFactory(require_acceptance=True, eula_text="Be careful.")))
    resp = token_client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                             {"checkout_to_type": "user", "assigned_user": person.pk}, format="json")
    assert resp.json()["status"] == "success"
    row = CheckoutAcceptance.objects.get()
    assert Client().post(f"/accept/{acceptance_token(row)}/", {"answer": "accept", "note": "ok"}).status_code == 200
    row.refresh_from_db()
    return person, asset, row


def pdf_of(client, url: str):
    """(200, the bytes) for a download; (the status, b"") for a refusal (an error envelope, 200 in compat mode)."""
    resp = client.get(url)
    if getattr(resp, "streaming", False):
        return resp.status_code, b"".join(resp.streaming_content)
    assert resp.json()["status"] == "error"
    return "refused", b""


def test_the_person_lists_and_downloads_their_eula(accepted, make_client):
    person, asset, row = accepted
    client = make_client(person)
    body = client.get("/api/v1/account/eulas").json()
    assert body["total"] == 1
    eula = body["rows"][0]
    assert eula["id"] == row.pk and eula["item"] == {"id": asset.pk, "type": "asset", "name": f"TAG-42 ({asset.name})"}
    assert eula["filename"].endswith(".pdf") and eula["accepted_at"] and eula["eula_sha256"] == row.eula_sha256
    assert eula["url"].endswith(f"/api/v1/account/eulas/{row.pk}/file")
    status, content = pdf_of(client, eula["url"])
    assert status == 200 and content.startswith(b"%PDF")
    # the same through /users/{id}/eulas: the person's own file link
    status, content = pdf_of(client, f"/api/v1/users/{person.pk}/eulas/{row.pk}/file")
    assert status == 200 and content.startswith(b"%PDF")
    # nobody else has accepted anything
    assert make_client(UserFactory()).get("/api/v1/account/eulas").json() == {"total": 0, "rows": []}


def test_a_viewer_of_the_company_sees_them_another_company_does_not(accepted, make_client, company, other_company):
    person, _asset, row = accepted
    viewer = make_client(UserFactory(company=company, permissions={"users.view": 1}))
    body = viewer.get(f"/api/v1/users/{person.pk}/eulas").json()
    assert body["total"] == 1
    url = body["rows"][0]["url"]
    assert url.endswith(f"/api/v1/users/{person.pk}/eulas/{row.pk}/file")
    status, content = pdf_of(viewer, url)
    assert status == 200 and content.startswith(b"%PDF")

    stranger = make_client(UserFactory(company=other_company, permissions={"users.view": 1, "admin": 1}))
    refused = stranger.get(f"/api/v1/users/{person.pk}/eulas").json()
    assert refused["status"] == "error" and "does not exist" in refused["messages"]
    assert pdf_of(stranger, url)[0] != 200
    assert pdf_of(stranger, f"/api/v1/account/eulas/{row.pk}/file")[0] != 200

    no_right = make_client(UserFactory(company=company))
    assert no_right.get(f"/api/v1/users/{person.pk}/eulas").status_code == 403
    assert pdf_of(no_right, f"/api/v1/account/eulas/{row.pk}/file")[0] != 200
    assert pdf_of(no_right, url)[0] != 200


def test_anonymous_is_refused(accepted, api_client):
    person, _asset, row = accepted
    assert api_client.get("/api/v1/account/eulas").status_code == 401
    assert api_client.get(f"/api/v1/users/{person.pk}/eulas/{row.pk}/file").status_code == 401
