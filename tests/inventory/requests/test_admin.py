"""The administrator's side of checkout requests: the admin lists requests (company-scoped) and fulfils them by
checking the asset out to the requester through the API's checkout service, or declines them."""

from __future__ import annotations

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME

from activity.models import ActionLog
from inventory.models import CheckoutRequest
from inventory.services import requests as services
from tests.factories import AssetFactory, AssetModelFactory, CompanyFactory, StatusLabelFactory, UserFactory
from tests.ops.test_admin_services import texts, url

pytestmark = pytest.mark.django_db


def open_request(**asset_kwargs) -> CheckoutRequest:
    requester = UserFactory(permissions={"assets.view.requestable": "1"}, company=asset_kwargs.get("company"))
    asset = AssetFactory(requestable=True, **asset_kwargs)
    return services.request_create(asset_id=asset.pk, actor=requester)


def act(client, action: str, *requests: CheckoutRequest):
    return client.post(url(CheckoutRequest), {"action": action, ACTION_CHECKBOX_NAME: [r.pk for r in requests]},
                       follow=True)


def test_fulfil_checks_the_asset_out_to_the_requester(client, superuser):
    client.force_login(superuser)
    request = open_request(asset_tag="REQ-9")
    page = client.get(url(CheckoutRequest))
    assert page.status_code == 200 and "REQ-9" in page.content.decode()

    response = act(client, "fulfil_selected", request)

    assert texts(response) == ["1 checkout request fulfilled."]
    request.refresh_from_db()
    assert request.fulfilled_at is not None and request.fulfilled_by == superuser
    request.asset.refresh_from_db()
    assert request.asset.assigned_user == request.user
    assert ActionLog.objects.filter(action_type="checkout", item_id=request.asset_id,
                                    target_id=request.user_id).count() == 1


def test_an_unavailable_asset_leaves_the_request_open(client, superuser):
    client.force_login(superuser)
    request = open_request()
    type(request.asset).objects.filter(pk=request.asset_id).update(assigned_user=UserFactory())  # taken meanwhile

    response = act(client, "fulfil_selected", request)

    assert "refused" in texts(response)[0]
    request.refresh_from_db()
    assert request.is_open


def test_decline_closes_the_request_without_a_checkout(client, superuser):
    client.force_login(superuser)
    request = open_request()
    response = act(client, "decline_selected", request)
    assert texts(response) == ["1 checkout request declined."]
    request.refresh_from_db()
    assert request.canceled_at is not None and request.asset.assigned_user is None
    assert act(client, "decline_selected", request) and CheckoutRequest.objects.open().count() == 0


def test_a_company_administrator_sees_only_their_companys_requests(client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    own = open_request(company=mine, asset_tag="MINE-1")
    open_request(company=theirs, asset_tag="THEIRS-1")
    client.force_login(UserFactory(company=mine, permissions={"admin": "1"}))
    page = client.get(url(CheckoutRequest)).content.decode()
    assert "MINE-1" in page and "THEIRS-1" not in page
    assert own.asset.asset_tag in page


def open_model_request(*, company=None, note="", **model_kwargs) -> CheckoutRequest:
    requester = UserFactory(permissions={"assets.view.requestable": "1"}, company=company)
    model = AssetModelFactory(requestable=True, **model_kwargs)
    return services.model_request_create(model_id=model.pk, actor=requester, note=note)


def test_fulfil_a_model_request_checks_out_an_available_asset_of_the_model(client, superuser):
    client.force_login(superuser)
    request = open_model_request(name="Headset X", note="Needs a long cable")
    AssetFactory(model=request.model, asset_tag="HS-1", assigned_user=UserFactory())  # taken
    AssetFactory(model=request.model, asset_tag="HS-2", status=StatusLabelFactory(type="undeployable"))
    AssetFactory(model=request.model, asset_tag="HS-3", deleted_at="2026-01-01T00:00:00Z")
    free = AssetFactory(model=request.model, asset_tag="HS-4")
    page = client.get(url(CheckoutRequest)).content.decode()
    assert "Headset X" in page and "Needs a long cable" in page

    response = act(client, "fulfil_selected", request)

    assert texts(response) == ["1 checkout request fulfilled."]
    request.refresh_from_db()
    free.refresh_from_db()
    assert request.fulfilled_at is not None and request.fulfilled_by == superuser
    assert free.assigned_user == request.user
    assert ActionLog.objects.filter(action_type="checkout", item_id=free.pk, target_id=request.user_id).count() == 1


def test_a_model_without_an_available_asset_leaves_the_request_open(client, superuser):
    client.force_login(superuser)
    request = open_model_request()
    AssetFactory(model=request.model, assigned_user=UserFactory())

    response = act(client, "fulfil_selected", request)

    assert "No asset of this model is available to check out." in texts(response)[0]
    request.refresh_from_db()
    assert request.is_open and not ActionLog.objects.filter(action_type="checkout").exists()


def test_fulfil_a_model_request_picks_an_asset_the_company_administrator_may_see(client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    request = open_model_request(company=mine, name="Monitor")
    AssetFactory(model=request.model, company=theirs, asset_tag="THEIRS-1")
    client.force_login(UserFactory(company=mine, permissions={"admin": "1"}))
    response = act(client, "fulfil_selected", request)
    assert "No asset of this model is available" in texts(response)[0]

    own = AssetFactory(model=request.model, company=mine, asset_tag="MINE-1")
    assert texts(act(client, "fulfil_selected", request)) == ["1 checkout request fulfilled."]
    own.refresh_from_db()
    assert own.assigned_user == request.user


def test_model_requests_are_scoped_by_the_requesters_company(client, fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    open_model_request(company=mine, name="Model for mine")
    open_model_request(company=theirs, name="Model for theirs")
    client.force_login(UserFactory(company=mine, permissions={"admin": "1"}))
    page = client.get(url(CheckoutRequest)).content.decode()
    assert "Model for mine" in page and "Model for theirs" not in page


def test_decline_a_model_request(client, superuser):
    client.force_login(superuser)
    request = open_model_request()
    assert texts(act(client, "decline_selected", request)) == ["1 checkout request declined."]
    request.refresh_from_db()
    assert request.canceled_at is not None
    assert ActionLog.objects.filter(action_type="request canceled", item_type="model",
                                    item_id=request.model_id, created_by=superuser).count() == 1
