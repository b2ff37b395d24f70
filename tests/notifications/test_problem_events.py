"""Issue 32's optional events: ``<kind>.problem_reported``, sent when the holder reports a problem on the portal
(``/account/items/<kind>/<id>/problem/``), to a real local receiver when enabled in ``webhook_events``."""

from __future__ import annotations

import pytest
from django.test import Client

from assetsvc.models import SiteSettings
from tests.factories import UserFactory
from tests.notifications.conftest import posted_bodies, serve_platform, wait_for_idle
from tests.portal.scene import one_of_each


@pytest.fixture
def general(webhook, receiver):
    serve_platform(webhook, receiver, "general")
    site = SiteSettings.load()
    site.webhook_events = "asset.problem_reported,license.problem_reported"
    site.full_clean()
    site.save()
    return receiver


def test_the_optional_event_reaches_the_receiver(general):
    person = UserFactory(first_name="Grace", last_name="Hopper")
    items = one_of_each(person, prefix="EV")
    browser = Client()
    browser.force_login(person)
    for kind in ("asset", "accessory", "license"):
        assert browser.post(f"/account/items/{kind}/{items[kind].pk}/problem/", {"note": f"{kind} broke"}
                            ).status_code == 302
    assert wait_for_idle(10)
    who = {"type": "user", "id": person.pk, "name": "Grace Hopper"}
    assert [(body["event"], body["text"], body["note"], body["target"]) for body in posted_bodies(general)] == [
        ("asset.problem_reported", "Asset EV-LAP (EV laptop): a problem was reported by Grace Hopper", "asset broke",
         who),
        ("license.problem_reported", "License seat for EV office: a problem was reported by Grace Hopper",
         "license broke", who),
    ]
