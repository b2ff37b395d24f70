"""Issue 16's "Done when" through the API: signed deliveries of a checkout, a checkin and an accessory checkout
verified by the documented receiver (a replayed or altered one refused), the general payload's machine-readable keys
beside the specification's, and disabling checkin events stopping checkin deliveries and nothing else."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from assetsvc.models import SiteSettings
from notifications.events import default_event_names
from notifications.models import WebhookDelivery
from notifications.signing import verify
from tests.factories import AccessoryFactory, AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, wait_for_idle

SECRET = "a-signing-secret-of-32-characters"
API = "/api/v1"


@pytest.fixture
def signed_general(webhook, receiver, settings):
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_SECRET": "", "WEBHOOK_EVENTS": ""}
    webhook("general", receiver.url_for(HOOK_PATH), channel="#it")
    site = SiteSettings.load()
    site.webhook_secret = SECRET
    site.save()
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({"ok": True})
    return receiver


def _act(client, holder):
    asset = AssetFactory(asset_tag="LAP-1", name="Laptop")
    accessory = AccessoryFactory(name="Mouse", qty=5)
    assert client.post(f"{API}/hardware/{asset.pk}/checkout",
                       {"checkout_to_type": "user", "assigned_user": holder.pk, "note": "for the trip"},
                       format="json").json()["status"] == "success"
    assert client.post(f"{API}/hardware/{asset.pk}/checkin", {}, format="json").json()["status"] == "success"
    assert client.post(f"{API}/accessories/{accessory.pk}/checkout",
                       {"assigned_user": holder.pk, "checkout_qty": 2}, format="json").json()["status"] == "success"
    assert wait_for_idle()
    return asset, accessory


def test_signed_general_deliveries_verify_and_carry_the_machine_readable_keys(signed_general, admin_user,
                                                                              make_client):
    holder = UserFactory(first_name="Grace", last_name="Hopper")
    asset, accessory = _act(make_client(admin_user), holder)
    requests = [request for request, _ in signed_general.log]
    assert len(requests) == 3
    bodies = []
    for request in requests:
        body = request.get_data()
        assert verify(SECRET, request.headers, body)
        assert not verify(SECRET, request.headers, body.replace(b"Laptop", b"Lapt0p").replace(b"Mouse", b"M0use"))
        assert not verify(SECRET, request.headers, body, now=int(request.headers["X-Webhook-Timestamp"]) + 301)
        bodies.append(json.loads(body))
    assert [body["event"] for body in bodies] == ["asset.checked_out", "asset.checked_in", "accessory.checked_out"]
    for body in bodies:
        assert {"channel", "text", "username", "icon_emoji"} <= set(body) and body["channel"] == "#it"
        assert body["icon_emoji"] == "" and body["actor"] == {"id": admin_user.pk, "name": "Ada Admin"}
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", body["occurred_at"])
        assert str(uuid.UUID(body["delivery_id"])) == body["delivery_id"]
    out, back, accessory_out = bodies
    assert out["item"] == {"type": "asset", "id": asset.pk, "name": "Laptop", "tag": "LAP-1"}
    assert out["target"] == {"type": "user", "id": holder.pk, "name": "Grace Hopper"}
    assert out["note"] == "for the trip" and "quantity" not in out
    assert back["target"]["id"] == holder.pk  # the holder it came back from
    assert accessory_out["item"]["type"] == "accessory" and accessory_out["item"]["tag"] is None
    assert accessory_out["quantity"] == 2
    assert len({body["delivery_id"] for body in bodies}) == 3
    logged = set(WebhookDelivery.objects.values_list("delivery_id", flat=True))
    assert {str(value) for value in logged} == {body["delivery_id"] for body in bodies}


def test_disabling_checkin_events_stops_checkin_deliveries_only(signed_general, admin_user, make_client):
    site = SiteSettings.load()
    site.webhook_events = ",".join(name for name in default_event_names() if not name.endswith(".checked_in"))
    site.save()
    _act(make_client(admin_user), UserFactory())
    events = sorted(WebhookDelivery.objects.values_list("event", flat=True))
    assert events == ["accessory.checked_out", "asset.checked_out"]
    assert all(verify(SECRET, request.headers, request.get_data()) for request, _ in signed_general.log)
