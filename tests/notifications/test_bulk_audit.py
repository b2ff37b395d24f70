"""``POST /hardware/audit/bulk`` notifies per audited asset, after each row's commit, exactly as the single audit
(API-CONTRACT.md §12); a failed row, a refused batch and a bulk update that audits nothing notify nothing."""

from __future__ import annotations

import pytest

from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, AssetModelFactory
from tests.notifications.conftest import HOOK_PATH, posted_bodies, wait_for_idle


@pytest.fixture
def api(admin_user, make_client):
    return make_client(admin_user)


def test_bulk_audit_posts_one_notification_per_audited_asset(webhook, receiver, api):
    webhook("google", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("")
    laptop = AssetModelFactory(name="Laptop")
    first, second = AssetFactory(asset_tag="TAG-1", name="", model=laptop), AssetFactory(asset_tag="TAG-2", name="",
                                                                                           model=laptop)
    body = api.post("/api/v1/hardware/audit/bulk", {"ids": [first.pk, 987654, second.pk], "note": "sweep"},
                    format="json").json()
    assert body["status"] == "partial"
    assert wait_for_idle(10)
    assert posted_bodies(receiver) == [{"text": "Asset TAG-1 (Laptop) was audited by Ada Admin"},
                                       {"text": "Asset TAG-2 (Laptop) was audited by Ada Admin"}]
    assert list(WebhookDelivery.objects.values_list("event", "success")) == [("asset.audited", True)] * 2


def test_a_refused_batch_and_a_bulk_update_notify_nothing(webhook, receiver, api):
    webhook("slack", receiver.url_for(HOOK_PATH))
    asset = AssetFactory()
    assert api.post("/api/v1/hardware/audit/bulk", {"ids": [asset.pk], "location_id": 987654},
                    format="json").json()["status"] == "error"
    assert api.patch("/api/v1/hardware/bulk", {"ids": [asset.pk], "notes": "n"},
                     format="json").json()["status"] == "success"
    assert wait_for_idle(10)
    assert WebhookDelivery.objects.count() == 0 and posted_bodies(receiver) == []
