"""Issue 32, "Waiting for me" (``/account/waiting/``): the person's pending acceptances with the EULA, answered with
the same services, log rows and PDF as the mail's link; someone else's acceptance is a 404 and nothing is written."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from inventory.models import AccessoryCheckout, Asset, CheckoutAcceptance
from tests.factories import UserFactory
from tests.portal.scene import one_of_each

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene():
    person = UserFactory(first_name="Emma", last_name="Stone")
    items = one_of_each(person, prefix="W", acceptance=True)
    rows = {row.item_type: row for row in CheckoutAcceptance.objects.filter(user=person)}
    return person, items, rows


def test_the_page_lists_the_pending_checkouts_with_their_eula(client, scene):
    person, items, rows = scene
    assert set(rows) == {"asset", "accessory", "consumable", "license"}
    client.force_login(person)
    page = client.get("/account/waiting/")
    assert page.status_code == 200
    html = page.content.decode()
    for text in ("W-LAP", "W dock", "W toner", "W office", "Be kind to the asset.", "Be kind to the license."):
        assert text in html, text
    assert "W-KEY-123" not in html
    assert html.count('name="csrfmiddlewaretoken"') == 4 + 1  # four answers and the sign-out
    assert html.count('value="accept"') == 4 and html.count('value="decline"') == 4
    for row in rows.values():
        assert f'action="/account/waiting/{row.pk}/"' in html
    home = client.get("/account/").content.decode()
    assert home.count("Awaiting your acceptance") == 4


def test_accept_writes_the_answer_the_log_row_and_the_pdf(client, scene):
    person, items, rows = scene
    client.force_login(person)
    answer = client.post(f"/account/waiting/{rows['asset'].pk}/", {"answer": "accept", "note": " Thanks "},
                         HTTP_USER_AGENT="PhoneBrowser/1.0", REMOTE_ADDR="203.0.113.9")
    assert answer.status_code == 302 and answer["Location"] == "/account/waiting/"
    row = CheckoutAcceptance.objects.get(pk=rows["asset"].pk)
    assert row.state == "accepted" and row.note == "Thanks" and row.signed_file_id
    assert row.user_agent == "PhoneBrowser/1.0" and row.remote_ip == "203.0.113.9"
    log = ActionLog.objects.get(action_type="accepted", item_type="asset", item_id=items["asset"].pk)
    assert (log.target_type, log.target_id, log.created_by_id, log.note) == ("user", person.pk, person.pk, "Thanks")
    assert log.log_meta["acceptance_id"] == row.pk
    assert Asset.objects.get(pk=items["asset"].pk).assigned_user_id == person.pk
    page = client.get("/account/waiting/").content.decode()
    assert "You accepted" in page and f'action="/account/waiting/{row.pk}/"' not in page
    assert "Agreements" in page
    home = client.get("/account/").content.decode()
    assert "accepted" in home and "Thanks" in home  # the card's history


def test_decline_writes_the_log_rows_and_checks_the_item_back_in(client, scene):
    person, items, rows = scene
    client.force_login(person)
    answer = client.post(f"/account/waiting/{rows['accessory'].pk}/", {"answer": "decline", "note": "Not mine"})
    assert answer.status_code == 302
    assert CheckoutAcceptance.objects.get(pk=rows["accessory"].pk).state == "declined"
    logs = list(ActionLog.objects.filter(item_type="accessory", item_id=items["accessory"].pk)
                .order_by("pk").values_list("action_type", "note"))
    assert logs[-2:] == [("declined", "Not mine"), ("checkin from", "Declined by Emma Stone: Not mine")]
    assert not AccessoryCheckout.objects.filter(accessory=items["accessory"], assigned_user=person).exists()
    assert "You declined W dock" in client.get("/account/waiting/").content.decode()
    assert "W dock" not in client.get("/account/").content.decode()


def test_another_persons_acceptance_is_a_404_and_nothing_is_written(client, scene):
    person, items, rows = scene
    intruder = UserFactory()
    client.force_login(intruder)
    before = ActionLog.objects.count()
    assert "W-LAP" not in client.get("/account/waiting/").content.decode()
    for answer in ("accept", "decline"):
        assert client.post(f"/account/waiting/{rows['asset'].pk}/", {"answer": answer}).status_code == 404
    assert client.post("/account/waiting/999999999/", {"answer": "accept"}).status_code == 404
    assert client.post("/account/waiting/99999999999999999999999/", {"answer": "accept"}).status_code == 404
    assert ActionLog.objects.count() == before
    assert CheckoutAcceptance.objects.get(pk=rows["asset"].pk).state == "pending"


def test_an_answered_or_unclear_answer_writes_nothing(client, scene):
    person, items, rows = scene
    client.force_login(person)
    assert client.post(f"/account/waiting/{rows['consumable'].pk}/", {"answer": "accept"}).status_code == 302
    before = ActionLog.objects.count()
    answer = client.post(f"/account/waiting/{rows['consumable'].pk}/", {"answer": "decline"}, follow=True)
    assert "no longer waiting for your answer" in answer.content.decode()
    answer = client.post(f"/account/waiting/{rows['license'].pk}/", {"answer": "maybe"}, follow=True)
    assert "Choose Accept or Decline." in answer.content.decode()
    assert ActionLog.objects.count() == before
    assert CheckoutAcceptance.objects.get(pk=rows["consumable"].pk).state == "accepted"
    assert CheckoutAcceptance.objects.get(pk=rows["license"].pk).state == "pending"
    assert client.get(f"/account/waiting/{rows['license'].pk}/").status_code == 405


def test_the_page_costs_the_same_queries_for_few_or_many(client, django_assert_max_num_queries):
    few, many = UserFactory(), UserFactory()
    one_of_each(few, prefix="F", acceptance=True)
    for n in range(3):
        one_of_each(many, prefix=f"M{n}", acceptance=True)
    client.force_login(few)
    with django_assert_max_num_queries(12) as counted:
        assert client.get("/account/waiting/").status_code == 200
    client.force_login(many)
    with django_assert_max_num_queries(len(counted.captured_queries)):
        assert client.get("/account/waiting/").content.decode().count('value="accept"') == 12
