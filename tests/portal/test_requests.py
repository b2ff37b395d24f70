"""``/account/requests/`` (issue 32, item 4): an employee with ``assets.view.requestable`` sees their requests and what
they may request, asks for an asset or a model with a note to IT, and cancels; anyone else is refused, and another
company's asset is a 404 page with nothing written."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from activity.models import ActionLog
from inventory.models import Asset, CheckoutRequest
from inventory.services import requests as services
from tests.factories import AssetFactory, AssetModelFactory, CompanyFactory, UserFactory

pytestmark = pytest.mark.django_db

PAGE = "/account/requests/"
REQUESTER = {"assets.view.requestable": "1"}


@pytest.fixture
def employee(db):
    return UserFactory(username="emma", permissions=REQUESTER)


@pytest.fixture
def signed_in(client, employee):
    client.force_login(employee)
    return client


def test_the_page_lists_requestable_assets_and_models(signed_in):
    AssetFactory(asset_tag="LOAN-1", name="Loaner laptop", requestable=True)
    AssetFactory(asset_tag="HIDDEN-1", requestable=False)
    model = AssetModelFactory(name="Docking station", requestable=True)
    AssetFactory(model=model, asset_tag="DOCK-1")  # available, not itself requestable
    AssetModelFactory(name="Secret model", requestable=False)

    page = signed_in.get(PAGE)

    html = page.content.decode()
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    assert "LOAN-1" in html and "Loaner laptop" in html and "HIDDEN-1" not in html
    assert "Docking station" in html and "Secret model" not in html
    assert '<a href="/account/requests/" aria-current="page">Request</a>' in html
    assert "You have made no requests" in html
    assert "csrfmiddlewaretoken" in html


def test_request_and_cancel_an_asset_with_a_note(signed_in, employee):
    asset = AssetFactory(asset_tag="LOAN-1", requestable=True)

    answer = signed_in.post(f"/account/requests/asset/{asset.pk}/", {"note": "  For the trip to Lyon  ",
                                                                     "back": f"{PAGE}?q=loan"})
    assert answer.status_code == 302 and answer["Location"] == f"{PAGE}?q=loan"
    request = CheckoutRequest.objects.get()
    assert (request.asset, request.user, request.note, request.is_open) == (asset, employee, "For the trip to Lyon",
                                                                           True)
    assert ActionLog.objects.get(action_type="requested", item_id=asset.pk).note == "For the trip to Lyon"
    page = signed_in.get(PAGE)
    html = page.content.decode()
    assert "Request successfully submitted." in html and "For the trip to Lyon" in html
    assert "Requested" in html and f"/account/requests/asset/{asset.pk}/cancel/" in html

    # a double click keeps one request
    assert signed_in.post(f"/account/requests/asset/{asset.pk}/", {"note": "again"}).status_code == 302
    assert CheckoutRequest.objects.count() == 1 and CheckoutRequest.objects.get().note == "For the trip to Lyon"

    answer = signed_in.post(f"/account/requests/asset/{asset.pk}/cancel/", {"back": "https://evil.example/"})
    assert answer.status_code == 302 and answer["Location"] == PAGE
    request.refresh_from_db()
    assert request.canceled_at is not None
    html = signed_in.get(PAGE).content.decode()
    assert "Request successfully canceled." in html and "Canceled" in html

    # cancelling again: a message, nothing written
    signed_in.post(f"/account/requests/asset/{asset.pk}/cancel/")
    assert "You have not requested this asset." in signed_in.get(PAGE).content.decode()
    assert ActionLog.objects.filter(action_type="request canceled").count() == 1


def test_request_and_cancel_a_model(signed_in, employee):
    model = AssetModelFactory(name="Headset", requestable=True)
    AssetFactory(model=model)
    AssetFactory(model=model, assigned_user=UserFactory())  # taken: not available

    html = signed_in.get(PAGE).content.decode()
    assert "<dt>Available</dt><dd>1</dd>" in html

    assert signed_in.post(f"/account/requests/model/{model.pk}/", {"note": "Noise cancelling"}).status_code == 302
    assert signed_in.post(f"/account/requests/model/{model.pk}/", {"note": "twice"}).status_code == 302
    request = CheckoutRequest.objects.get()
    assert (request.model, request.asset, request.note, request.company) == (model, None, "Noise cancelling", None)
    assert ActionLog.objects.filter(action_type="requested", item_type="model", item_id=model.pk).count() == 1
    html = signed_in.get(PAGE).content.decode()
    assert "Any Headset" in html and f"/account/requests/model/{model.pk}/cancel/" in html

    assert signed_in.post(f"/account/requests/model/{model.pk}/cancel/").status_code == 302
    request.refresh_from_db()
    assert not request.is_open
    assert ActionLog.objects.filter(action_type="request canceled", item_type="model").count() == 1


def test_a_model_that_is_not_requestable_is_refused(signed_in):
    model = AssetModelFactory(requestable=False)
    signed_in.post(f"/account/requests/model/{model.pk}/")
    assert "Model is not requestable" in signed_in.get(PAGE).content.decode()
    assert not CheckoutRequest.objects.exists()


def test_a_note_too_long_is_refused(signed_in):
    asset = AssetFactory(requestable=True)
    signed_in.post(f"/account/requests/asset/{asset.pk}/", {"note": "x" * (services.NOTE_MAX_LENGTH + 1)})
    assert "The note may be at most 2000 characters." in signed_in.get(PAGE).content.decode()
    assert not CheckoutRequest.objects.exists()


@pytest.mark.parametrize("path", ["asset/999999/", "asset/999999/cancel/", "model/999999/", "model/999999/cancel/",
                                  "asset/99999999999999999999999/"])
def test_unknown_ids_are_a_404_page(signed_in, path):
    answer = signed_in.get(f"/account/requests/{path}")
    assert answer.status_code == 405
    answer = signed_in.post(f"/account/requests/{path}")
    assert answer.status_code == 404 and b"does not exist" in answer.content
    assert not CheckoutRequest.objects.exists()


def test_without_the_permission_the_page_and_the_forms_are_refused(client):
    client.force_login(UserFactory())
    asset = AssetFactory(requestable=True)
    model = AssetModelFactory(requestable=True)

    page = client.get(PAGE)
    assert page.status_code == 403 and b"may not request items" in page.content
    assert b'href="/account/requests/"' not in client.get("/account/").content  # not in the navigation
    for path in (f"asset/{asset.pk}/", f"model/{model.pk}/", f"asset/{asset.pk}/cancel/"):
        assert client.post(f"/account/requests/{path}").status_code == 403
    assert not CheckoutRequest.objects.exists() and not ActionLog.objects.filter(action_type="requested").exists()


def test_anonymous_visitors_are_sent_to_sign_in(client):
    asset = AssetFactory(requestable=True)
    assert client.get(PAGE)["Location"] == "/account/login/?next=%2Faccount%2Frequests%2F"
    assert client.post(f"/account/requests/asset/{asset.pk}/").status_code == 302
    assert not CheckoutRequest.objects.exists()


def test_company_separation(client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    employee = UserFactory(company=mine, permissions=REQUESTER)
    client.force_login(employee)
    AssetFactory(company=mine, asset_tag="MINE-1", requestable=True)
    other = AssetFactory(company=theirs, asset_tag="THEIRS-1", requestable=True)
    model = AssetModelFactory(requestable=True, name="Monitor")
    AssetFactory(model=model, company=mine)
    AssetFactory(model=model, company=theirs)
    AssetFactory(model=model, company=theirs)

    html = client.get(PAGE).content.decode()
    assert "MINE-1" in html and "THEIRS-1" not in html
    assert "<dt>Available</dt><dd>1</dd>" in html  # only their company's asset counts

    answer = client.post(f"/account/requests/asset/{other.pk}/", {"note": "mine now"})
    assert answer.status_code == 404
    assert not CheckoutRequest.objects.exists() and not ActionLog.objects.filter(action_type="requested").exists()

    # Another company's request of the same asset is never shown, nor cancelled by this person.
    stranger = UserFactory(company=theirs, permissions=REQUESTER)
    services.request_create(asset_id=other.pk, actor=stranger, note="the stranger's note")
    assert client.post(f"/account/requests/asset/{other.pk}/cancel/").status_code == 404
    assert "the stranger&#x27;s note" not in client.get(PAGE).content.decode()
    assert CheckoutRequest.objects.get().is_open

    # A model request belongs to the requester's company.
    client.post(f"/account/requests/model/{model.pk}/")
    assert CheckoutRequest.objects.get(model=model).company == mine


def test_another_persons_requests_are_not_shown(signed_in):
    asset = AssetFactory(requestable=True, asset_tag="LOAN-7")
    someone = UserFactory(permissions=REQUESTER)
    services.request_create(asset_id=asset.pk, actor=someone, note="someone else's")
    html = signed_in.get(PAGE).content.decode()
    assert "someone else" not in html and "You have made no requests" in html
    assert f"/account/requests/asset/{asset.pk}/cancel/" not in html


def test_search_and_pages(signed_in):
    for n in range(30):
        AssetFactory(asset_tag=f"LOAN-{n:02d}", requestable=True)
    AssetFactory(asset_tag="PHONE-1", name="Phone", requestable=True)

    first = signed_in.get(PAGE).content.decode()
    assert "LOAN-00" in first and "LOAN-24" in first and "LOAN-25" not in first and "Page 1 of 2" in first
    second = signed_in.get(PAGE, {"page": 2}).content.decode()
    assert "LOAN-25" in second and "PHONE-1" in second and "LOAN-00" not in second
    found = signed_in.get(PAGE, {"q": "phone"}).content.decode()
    assert "PHONE-1" in found and "LOAN-00" not in found and "Page 1 of" not in found
    assert "No requestable asset matches" in signed_in.get(PAGE, {"q": "zzz"}).content.decode()
    assert signed_in.get(PAGE, {"page": "x"}).status_code == 200


def test_a_constant_number_of_queries(signed_in, employee, django_assert_max_num_queries):
    def fill(n):
        for _ in range(n):
            asset = AssetFactory(requestable=True)
            services.request_create(asset_id=asset.pk, actor=employee, note="n")
            model = AssetModelFactory(requestable=True)
            AssetFactory(model=model)
            services.model_request_create(model_id=model.pk, actor=employee)

    fill(2)
    with CaptureQueriesContext(connection) as few:
        assert signed_in.get(PAGE).status_code == 200
    fill(10)
    with django_assert_max_num_queries(len(few)):
        assert signed_in.get(PAGE).status_code == 200


def test_the_requests_of_a_deleted_asset_are_left_out(signed_in, employee):
    asset = AssetFactory(requestable=True, asset_tag="GONE-1")
    services.request_create(asset_id=asset.pk, actor=employee)
    Asset.objects.filter(pk=asset.pk).update(deleted_at="2026-01-01T00:00:00Z")
    assert "GONE-1" not in signed_in.get(PAGE).content.decode()
