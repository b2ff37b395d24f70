"""Model requests fulfilled at the same moment (issue 32): each fulfilment takes a different available asset of the
model (``SKIP LOCKED``), and once they are all taken the rest are refused with the request left open."""

from __future__ import annotations

import pytest

from assetsvc.exceptions import ConflictError
from inventory.models import Asset, CheckoutRequest
from inventory.services import requests as services
from tests.factories import AssetFactory, AssetModelFactory, UserFactory
from tests.inventory.test_concurrency import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_concurrent_fulfilments_take_different_assets():
    model = AssetModelFactory(requestable=True)
    free = [AssetFactory(model=model) for _ in range(3)]
    requests = [services.model_request_create(model_id=model.pk, actor=UserFactory(
        permissions={"assets.view.requestable": "1"})) for _ in range(5)]
    admins = [UserFactory(superuser=True) for _ in requests]

    results = run_together([(lambda r=r, a=a: services.request_fulfil(request=r, actor=a))
                            for r, a in zip(requests, admins, strict=True)])

    won = [result for result in results if isinstance(result, Asset)]
    lost = [result for result in results if isinstance(result, ConflictError)]
    assert len(won) == 3 and len(lost) == 2, results
    assert {asset.pk for asset in won} == {asset.pk for asset in free}
    assert CheckoutRequest.objects.open().count() == 2
    holders = set(Asset.objects.filter(model=model).values_list("assigned_user_id", flat=True))
    assert holders == {r.user_id for r in CheckoutRequest.objects.filter(fulfilled_at__isnull=False)}
