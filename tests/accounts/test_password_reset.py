"""Forgotten passwords reset by mail (issue 30): the admin's "Forgotten your login credentials?" link, the mail
through the durable queue and the real SMTP server, the link sets a new password once; without EMAIL_HOST nothing is
queued."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from notifications.models import OutboundMail
from tests.conftest import run_mail_queue
from tests.factories import UserFactory


def reset_link(text: str) -> str:
    return re.search(r"http://testserver(/admin/reset/[^\s\"<]+)", text).group(1)


@pytest.fixture
def grace(db):
    return UserFactory(username="grace", email="grace@example.com", superuser=True)


def test_the_login_page_links_to_the_reset(db):
    page = Client().get("/admin/login/").content.decode()
    assert "Forgotten your login credentials?" in page and 'href="/admin/password_reset/"' in page


def test_a_reset_mail_goes_through_the_queue_and_its_link_sets_a_new_password_once(
        transactional_db, smtp_server, settings):
    settings.SITE_URL = "http://testserver"
    grace = UserFactory(username="grace", email="grace@example.com", superuser=True)
    client = Client()
    response = client.post("/admin/password_reset/", {"email": "GRACE@example.com"})
    assert response.status_code == 302 and response["Location"] == "/admin/password_reset/done/"
    assert smtp_server.received == []  # queued, never sent in the request
    row = OutboundMail.objects.get(event="password_reset")
    assert row.user_id == grace.pk and row.to == "grace@example.com"
    run_mail_queue()
    [mail] = smtp_server.wait_for(1)
    assert mail.to == "grace@example.com" and mail.subject.startswith("Reset your password")
    path = reset_link(mail.text)
    assert reset_link(mail.html) == path
    form = client.get(path, follow=True)
    assert form.status_code == 200 and 'name="new_password1"' in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "a new long passphrase",
                                                     "new_password2": "a new long passphrase"})
    assert done.status_code == 302 and done["Location"] == "/admin/reset/done/"
    assert Client().login(username="grace", password="a new long passphrase")
    again = Client().get(path, follow=True)
    assert 'name="new_password1"' not in again.content.decode()  # the link worked once


def test_unknown_or_deleted_addresses_get_the_same_page_and_no_mail(transactional_db, smtp_server):
    UserFactory(email="gone@example.com", deleted_at="2024-01-01T00:00:00Z")
    for address in ("nobody@example.com", "gone@example.com"):
        response = Client().post("/admin/password_reset/", {"email": address})
        assert response["Location"] == "/admin/password_reset/done/"
    assert not OutboundMail.objects.filter(event="password_reset").exists()


def test_without_email_host_the_page_says_so_and_nothing_is_queued(grace, settings):
    settings.EMAIL_HOST = ""
    response = Client().post("/admin/password_reset/", {"email": grace.email})
    assert response.status_code == 200 and 'id="password-reset-unavailable"' in response.content.decode()
    assert not OutboundMail.objects.exists()
