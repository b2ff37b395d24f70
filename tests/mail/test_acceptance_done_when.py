"""Issue 29's done-when, end to end through the API, the real SMTP server and the page the mailed link opens: a
checkout mails one link; it accepts once (a second use, a changed link, another person's link and an expired link
are refused with nothing written); declining checks the item in; both answers are in the asset's history;
``/account/eulas`` lists the accepted EULA's PDF."""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client

from activity.models import ActionLog
from inventory.models import Asset, CheckoutAcceptance
from notifications.models import OutboundMail
from tests.conftest import run_mail_queue
from tests.factories import UserFactory
from tests.factories.inventory import AssetFactory, AssetModelFactory, CategoryFactory

pytestmark = pytest.mark.django_db(transaction=True)

EULA = "Keep it safe. Bring it back when you leave."
LINK = re.compile(r"https?://[^/\s]+(/accept/[^/\s]+/)")


def ok(response) -> dict:
    body = response.json()
    assert response.status_code == 200 and body.get("status") == "success", body
    return body


def written() -> tuple:
    return (ActionLog.objects.count(), list(CheckoutAcceptance.objects.order_by("pk").values_list("state", flat=True)),
            list(Asset.objects.order_by("pk").values_list("assigned_user_id", flat=True)))


def mailed_link(smtp_server, address: str) -> str:
    run_mail_queue()
    [mail] = [m for m in smtp_server.wait_for(1) if m.rcpt_tos == [address]]
    paths = set(LINK.findall(mail.text)) | set(LINK.findall(mail.html))
    assert len(paths) == 1, paths  # one link, the same in both parts
    assert EULA in mail.text
    return paths.pop()


def form_post(client: Client, path: str, answer: str, note: str = ""):
    """Open the page like a browser, then send its form with the page's CSRF token."""
    page = client.get(path)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert token, page.content[:500]
    return client.post(path, {"csrfmiddlewaretoken": token.group(1), "answer": answer, "note": note})


@pytest.fixture
def laptop_category():
    return CategoryFactory(category_type="asset", require_acceptance=True, eula_text=EULA)


def test_checkout_mail_link_accepts_once_and_decline_checks_in(token_client, smtp_server, laptop_category, settings,
                                                                 monkeypatch):
    settings.SITE_URL = "https://assets.example.com"
    grace = UserFactory(email="grace@example.com", first_name="Grace")
    laptop = AssetFactory(asset_tag="ACC-1", model=AssetModelFactory(category=laptop_category))
    ok(token_client.post(f"/api/v1/hardware/{laptop.pk}/checkout",
                         {"checkout_to_type": "user", "assigned_user": grace.pk}, format="json"))
    path = mailed_link(smtp_server, "grace@example.com")
    assert OutboundMail.objects.count() == 1
    mail = smtp_server.received[0]
    assert mail.subject.startswith("[Asset management] Please accept asset")
    assert "https://assets.example.com/accept/" in mail.text

    # A changed link, another signed-in person and an expired link are refused, and write nothing.
    before = written()
    assert Client().get(path[:-3] + "xx/").status_code == 404
    bob = UserFactory(superuser=True)
    other = Client()
    other.force_login(bob)
    assert form_post_refused(other, path)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + (settings.ACCEPTANCE_LINK_DAYS + 1) * 86400)
    assert Client().get(path).status_code == 410
    monkeypatch.setattr(time, "time", real)
    assert written() == before

    # The link accepts once.
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(path)
    assert page.status_code == 200 and EULA in page.content.decode()
    assert form_post(browser, path, "accept", "thanks").status_code == 200
    accepted = CheckoutAcceptance.objects.get()
    assert accepted.state == "accepted" and accepted.note == "thanks"
    after = written()
    again = Client(enforce_csrf_checks=True)
    assert again.get(path).status_code == 410
    assert written() == after

    # Another checkout, declined: the asset comes back.
    phone = AssetFactory(asset_tag="ACC-2", model=AssetModelFactory(category=laptop_category))
    ok(token_client.post(f"/api/v1/hardware/{phone.pk}/checkout",
                         {"checkout_to_type": "user", "assigned_user": grace.pk}, format="json"))
    smtp_server.clear()
    decline_path = mailed_link(smtp_server, "grace@example.com")
    assert form_post(Client(enforce_csrf_checks=True), decline_path, "decline", "not mine").status_code == 200
    phone.refresh_from_db()
    assert phone.assigned_user_id is None

    # Both answers are in the assets' history, and the accepted EULA's PDF is listed for the person.
    laptop_history = ok_rows(token_client.get(f"/api/v1/hardware/{laptop.pk}/history"))
    phone_history = ok_rows(token_client.get(f"/api/v1/hardware/{phone.pk}/history"))
    assert "accepted" in [row["action_type"] for row in laptop_history]
    assert {"declined", "checkin from"} <= {row["action_type"] for row in phone_history}
    from tests.conftest import TokenClient

    eulas = TokenClient(grace).get("/api/v1/account/eulas").json()
    assert eulas["total"] == 1
    download = TokenClient(grace).get(eulas["rows"][0]["url"].split("testserver", 1)[-1])
    assert download.status_code == 200 and b"".join(download.streaming_content).startswith(b"%PDF")


def form_post_refused(client: Client, path: str) -> bool:
    return client.get(path).status_code in (403, 404, 410)


def ok_rows(response) -> list[dict]:
    assert response.status_code == 200, response.content
    return response.json()["rows"]
