"""Issue 32, "Report a problem" (``/account/items/<kind>/<id>/problem/``): a ``problem reported`` row in the item's
action log (shown in the admin's history and on the card), only for an item the person holds now; the optional
``<kind>.problem_reported`` webhook event is tested in tests/notifications/test_problem_events.py."""

from __future__ import annotations

import pytest
from django.test import Client

from activity.models import ActionLog
from inventory.services.checkout import CHECKOUT_KINDS, item_checkin
from tests.factories import AssetFactory, CompanyFactory, UserFactory
from tests.portal.scene import hand_out, one_of_each

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(client):
    person = UserFactory(first_name="Emma", last_name="Stone")
    items = one_of_each(person, prefix="PR")
    client.force_login(person)
    return person, items


def problems():
    return list(ActionLog.objects.filter(action_type="problem reported").order_by("pk"))


@pytest.mark.parametrize("kind", ["asset", "accessory", "consumable", "license", "component"])
def test_a_report_is_a_log_row_on_the_item_shown_in_its_history(client, scene, kind):
    person, items = scene
    url = f"/account/items/{kind}/{items[kind].pk}/problem/"
    form = client.get(url)
    assert form.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in form.content.decode() and '<label for="id_note">' in form.content.decode()
    answer = client.post(url, {"note": "  The screen flickers.  "})
    assert answer.status_code == 302 and answer["Location"] == "/account/"
    [log] = problems()
    assert (log.item_type, log.item_id, log.target_type, log.target_id, log.created_by_id, log.note) == (
        kind, items[kind].pk, "user", person.pk, person.pk, "The screen flickers.")
    home = client.get("/account/").content.decode()
    assert "was sent to IT" in home and "problem reported" in home and "The screen flickers." in home


def test_the_admin_history_of_the_asset_shows_the_report(client, scene, superuser):
    person, items = scene
    client.post(f"/account/items/asset/{items['asset'].pk}/problem/", {"note": "Battery swells"})
    admin = Client()
    admin.force_login(superuser)
    page = admin.get(f"/admin/inventory/asset/{items['asset'].pk}/history/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "problem reported" in html and "Battery swells" in html


def test_the_note_is_required_and_bounded(client, scene):
    person, items = scene
    url = f"/account/items/asset/{items['asset'].pk}/problem/"
    answer = client.post(url, {"note": "   "})
    assert answer.status_code == 400 and "Describe the problem." in answer.content.decode()
    answer = client.post(url, {"note": "x" * 2001})
    assert answer.status_code == 400 and 'aria-invalid="true"' in answer.content.decode()
    assert client.post(url, {"note": "x" * 2000}).status_code == 302
    assert [len(log.note) for log in problems()] == [2000]


def test_an_item_someone_else_holds_or_nobody_holds_is_a_404(client, scene):
    person, items = scene
    other_items = one_of_each(UserFactory(), prefix="OTHER")
    loose = AssetFactory(asset_tag="LOOSE")
    urls = [f"/account/items/{kind}/{item.pk}/problem/" for kind, item in other_items.items()]
    urls += [f"/account/items/asset/{loose.pk}/problem/", "/account/items/asset/999999999/problem/",
             f"/account/items/location/{items['asset'].pk}/problem/",
             "/account/items/asset/99999999999999999999999/problem/"]
    for url in urls:
        assert client.get(url).status_code == 404, url
        assert client.post(url, {"note": "mine now?"}).status_code == 404, url
    assert problems() == []


def test_an_item_given_back_can_no_longer_be_reported(client, scene):
    person, items = scene
    item_checkin(kind=CHECKOUT_KINDS["asset"], item=items["asset"], actor=UserFactory(superuser=True))
    url = f"/account/items/asset/{items['asset'].pk}/problem/"
    assert client.get(url).status_code == 404
    assert client.get(f"/account/items/component/{items['component'].pk}/problem/").status_code == 404
    assert problems() == []


def test_company_separation_hides_another_companys_item(client, fmcs_on):
    ours, theirs = CompanyFactory(), CompanyFactory()
    person = UserFactory(company=ours)
    foreign = AssetFactory(company=theirs)
    hand_out("asset", foreign, person)
    client.force_login(person)
    assert client.get(f"/account/items/asset/{foreign.pk}/problem/").status_code == 404
