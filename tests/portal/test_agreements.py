"""Issue 32, "Agreements" (``/account/agreements/``): the EULAs the person accepted, each with its signed PDF, which
only they download here (the same rows and headers as the API's ``account/eulas``)."""

from __future__ import annotations

import pytest

from inventory.models import CheckoutAcceptance
from tests.factories import UserFactory
from tests.portal.scene import one_of_each

pytestmark = pytest.mark.django_db


@pytest.fixture
def accepted(client):
    person = UserFactory()
    one_of_each(person, prefix="AG", acceptance=True)
    rows = {row.item_type: row for row in CheckoutAcceptance.objects.filter(user=person)}
    client.force_login(person)
    for kind in ("asset", "license"):
        assert client.post(f"/account/waiting/{rows[kind].pk}/", {"answer": "accept"}).status_code == 302
    assert client.post(f"/account/waiting/{rows['accessory'].pk}/", {"answer": "decline"}).status_code == 302
    client.logout()
    return person, {kind: CheckoutAcceptance.objects.get(pk=row.pk) for kind, row in rows.items()}


def test_the_page_lists_the_accepted_agreements(client, accepted):
    person, rows = accepted
    client.force_login(person)
    page = client.get("/account/agreements/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "AG-LAP (AG laptop)" in html and "AG office" in html
    assert "AG dock" not in html and "AG toner" not in html  # declined, pending
    for kind in ("asset", "license"):
        assert f'href="/account/agreements/{rows[kind].pk}/file"' in html


def test_the_owner_downloads_the_pdf_with_the_apis_headers(client, make_client, accepted):
    person, rows = accepted
    client.force_login(person)
    answer = client.get(f"/account/agreements/{rows['asset'].pk}/file")
    assert answer.status_code == 200
    body = b"".join(answer.streaming_content)
    assert body.startswith(b"%PDF")
    api = make_client(person).get(f"/api/v1/account/eulas/{rows['asset'].pk}/file")
    assert api.status_code == 200
    for header in ("Content-Type", "Content-Disposition", "Content-Length", "Cache-Control", "X-Content-Type-Options"):
        assert answer[header] == api[header], header
    assert answer["Content-Type"] == "application/pdf" and "attachment" in answer["Content-Disposition"]


def test_another_person_gets_a_404_and_no_list(client, accepted):
    person, rows = accepted
    client.force_login(UserFactory())
    assert "AG-LAP" not in client.get("/account/agreements/").content.decode()
    for row in rows.values():
        assert client.get(f"/account/agreements/{row.pk}/file").status_code == 404
    assert client.get("/account/agreements/99999999999999999999999/file").status_code == 404


def test_a_pending_or_declined_acceptance_has_no_file(client, accepted):
    person, rows = accepted
    client.force_login(person)
    for kind in ("accessory", "consumable"):
        assert client.get(f"/account/agreements/{rows[kind].pk}/file").status_code == 404


def test_anonymous_is_sent_to_sign_in(client, accepted):
    person, rows = accepted
    answer = client.get(f"/account/agreements/{rows['asset'].pk}/file")
    assert answer.status_code == 302 and answer["Location"].startswith("/account/login/?next=")
