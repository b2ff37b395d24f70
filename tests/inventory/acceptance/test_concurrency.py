"""Two answers to one link at the same moment (issue 29): the row lock lets exactly one through, on PostgreSQL."""

from __future__ import annotations

import pytest
from django.test import Client

from activity.models import ActionLog
from inventory.acceptance_links import acceptance_token
from inventory.models import Asset, CheckoutAcceptance
from tests.conftest import TokenClient
from tests.factories import AssetFactory, AssetModelFactory, CategoryFactory, UserFactory
from tests.inventory.test_concurrency import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_accept_and_decline_racing_on_one_link_one_wins():
    admin = UserFactory(superuser=True)
    asset = AssetFactory(model=AssetModelFactory(category=CategoryFactory(require_acceptance=True, eula_text="T")))
    resp = TokenClient(admin).post(f"/api/v1/hardware/{asset.pk}/checkout",
                                   {"checkout_to_type": "user", "assigned_user": UserFactory().pk}, format="json")
    assert resp.json()["status"] == "success"
    url = f"/accept/{acceptance_token(CheckoutAcceptance.objects.get())}/"
    answers = ["accept", "decline"] * 4
    codes = run_together([lambda answer=answer: Client().post(url, {"answer": answer}).status_code
                          for answer in answers])
    assert sorted(codes) == [200] + [410] * 7, codes
    row = CheckoutAcceptance.objects.get()
    answered = ActionLog.objects.filter(action_type__in=["accepted", "declined"])
    assert [log.action_type for log in answered] == [row.state]
    assert (Asset.objects.get(pk=asset.pk).assigned_user_id is None) == (row.state == "declined")
