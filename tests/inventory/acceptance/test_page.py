"""Checkout acceptance (issue 29) through HTTP: the checkout API opens the pending row, the page of the signed link
answers it once, every refused link writes nothing, declining checks the item in."""

from __future__ import annotations

import hashlib
import time

import pytest
from django.test import Client

from activity.models import ActionLog, StoredFile
from inventory.acceptance_links import acceptance_token
from inventory.models import AccessoryCheckout, Asset, CheckoutAcceptance, ConsumableAssignment, LicenseSeat
from tests.factories import AssetFactory, CategoryFactory, LocationFactory, UserFactory
from tests.factories.inventory import AccessoryFactory, AssetModelFactory, ConsumableFactory, LicenseFactory

pytestmark = pytest.mark.django_db

EULA = "You keep the laptop safe.\nZażółć gęślą jaźń."


def ok(resp):
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["status"] == "success", body
    return body


def requiring(category_type: str = "asset", **more):
    return CategoryFactory(category_type=category_type, require_acceptance=True, eula_text=EULA, **more)


def asset_needing_acceptance(**more) -> Asset:
    return AssetFactory(model=AssetModelFactory(category=requiring()), **more)


def check_out_asset(client, asset, user):
    return ok(client.post(f"/api/v1/hardware/{asset.pk}/checkout",
                          {"checkout_to_type": "user", "assigned_user": user.pk, "note": "welcome"}, format="json"))


def page_url(acceptance) -> str:
    return f"/accept/{acceptance_token(acceptance)}/"


def answer(url: str, answer: str, note: str = "", client: Client | None = None):
    return (client or Client()).post(url, {"answer": answer, "note": note}, REMOTE_ADDR="198.51.100.7",
                                     HTTP_USER_AGENT="PhoneBrowser/1.0")


def nothing_written():
    return (ActionLog.objects.count(), list(CheckoutAcceptance.objects.values_list("state", "link_nonce")),
            StoredFile.objects.count(), list(Asset.objects.values_list("assigned_user_id", flat=True)))


# --- opening the row ------------------------------------------------------------------------------------------------


def test_checkout_to_a_user_of_a_requiring_category_opens_one_pending_row(token_client, superuser):
    asset, user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, asset, user)
    row = CheckoutAcceptance.objects.get()
    log = ActionLog.objects.get(action_type="checkout", item_type="asset", item_id=asset.pk)
    assert (row.state, row.item_type, row.item_id, row.assignment_id, row.user, row.checkout_log) == (
        "pending", "asset", asset.pk, None, user, log)
    assert row.eula_text == EULA and row.eula_sha256 == hashlib.sha256(EULA.encode()).hexdigest()
    assert row.link_nonce


def test_no_row_without_the_flag_or_for_an_asset_or_location_target(token_client):
    plain = AssetFactory(model=AssetModelFactory(category=CategoryFactory()))
    check_out_asset(token_client, plain, UserFactory())
    ok(token_client.post(f"/api/v1/hardware/{asset_needing_acceptance().pk}/checkout",
                         {"checkout_to_type": "asset", "assigned_asset": AssetFactory().pk}, format="json"))
    ok(token_client.post(f"/api/v1/hardware/{asset_needing_acceptance().pk}/checkout",
                         {"checkout_to_type": "location", "assigned_location": LocationFactory().pk}, format="json"))
    assert not CheckoutAcceptance.objects.exists()


def test_the_default_eula_is_snapshotted(token_client, site_settings):
    site_settings.default_eula_text = "The site's terms."
    site_settings.save()
    asset = AssetFactory(model=AssetModelFactory(category=requiring(use_default_eula=True)))
    check_out_asset(token_client, asset, UserFactory())
    assert CheckoutAcceptance.objects.get().eula_text == "The site's terms."


def test_stock_kinds_and_license_seats_name_their_assignment_row(token_client):
    user = UserFactory()
    accessory = AccessoryFactory(category=requiring("accessory"))
    ok(token_client.post(f"/api/v1/accessories/{accessory.pk}/checkout", {"assigned_user": user.pk}, format="json"))
    consumable = ConsumableFactory(category=requiring("consumable"))
    ok(token_client.post(f"/api/v1/consumables/{consumable.pk}/checkout", {"assigned_to": user.pk}, format="json"))
    license_ = LicenseFactory(seats=2, category=requiring("license"))
    seat = LicenseSeat.objects.filter(license=license_).order_by("pk").first()
    ok(token_client.patch(f"/api/v1/licenses/{license_.pk}/seats/{seat.pk}", {"assigned_to": user.pk},
                          format="json"))
    rows = {row.item_type: row for row in CheckoutAcceptance.objects.all()}
    assert rows["accessory"].assignment_id == AccessoryCheckout.objects.get().pk
    assert rows["consumable"].assignment_id == ConsumableAssignment.objects.get().pk
    assert (rows["license"].item_id, rows["license"].assignment_id) == (license_.pk, seat.pk)


def test_checkin_cancels_a_pending_row_and_its_link(token_client):
    asset, user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, asset, user)
    row = CheckoutAcceptance.objects.get()
    url = page_url(row)
    ok(token_client.post(f"/api/v1/hardware/{asset.pk}/checkin", {}, format="json"))
    row.refresh_from_db()
    assert row.state == "canceled"
    resp = Client().get(url)
    assert resp.status_code == 410 and b"no longer waiting" in resp.content


# --- the page -------------------------------------------------------------------------------------------------------


def test_the_page_shows_the_item_the_giver_and_the_eula(token_client, superuser):
    asset, user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, asset, user)
    resp = Client().get(page_url(CheckoutAcceptance.objects.get()))
    assert resp.status_code == 200
    text = resp.content.decode()
    assert asset.asset_tag in text and superuser.full_name in text and "gęślą" in text
    assert 'name="viewport"' in text and "csrfmiddlewaretoken" in text
    assert 'value="accept"' in text and 'value="decline"' in text


def test_accept_once_then_the_link_is_gone(token_client):
    asset, user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, asset, user)
    row = CheckoutAcceptance.objects.get()
    url = page_url(row)
    resp = answer(url, "accept", "got it")
    assert resp.status_code == 200 and b"Accepted" in resp.content
    row.refresh_from_db()
    assert (row.state, row.note, row.remote_ip, row.user_agent) == ("accepted", "got it", "198.51.100.7",
                                                                    "PhoneBrowser/1.0")
    log = ActionLog.objects.get(action_type="accepted")
    assert (log.item_type, log.item_id, log.target_type, log.target_id, log.created_by_id, log.note) == (
        "asset", asset.pk, "user", user.pk, user.pk, "got it")
    assert log.log_meta == {"acceptance_id": row.pk, "eula_sha256": row.eula_sha256}
    assert log.remote_ip == "198.51.100.7"
    assert row.signed_file is not None and row.signed_file.content_type == "application/pdf"
    before = nothing_written()
    again = answer(url, "accept")
    assert again.status_code == 410
    assert Client().get(url).status_code == 410
    assert nothing_written() == before


def test_decline_checks_the_asset_in_and_history_shows_both_rows(token_client):
    asset, user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, asset, user)
    resp = answer(page_url(CheckoutAcceptance.objects.get()), "decline", "wrong model")
    assert resp.status_code == 200 and b"Declined" in resp.content
    asset.refresh_from_db()
    assert asset.assigned_user_id is None
    assert CheckoutAcceptance.objects.get().state == "declined"
    history = token_client.get(f"/api/v1/hardware/{asset.pk}/history")
    assert history.status_code == 200
    actions = [row["action_type"] for row in history.json()["rows"]]
    assert "declined" in actions and "checkin from" in actions


def test_decline_of_an_accessory_removes_its_checkout(token_client):
    user = UserFactory()
    accessory = AccessoryFactory(category=requiring("accessory"))
    ok(token_client.post(f"/api/v1/accessories/{accessory.pk}/checkout", {"assigned_user": user.pk}, format="json"))
    assert answer(page_url(CheckoutAcceptance.objects.get()), "decline").status_code == 200
    assert not AccessoryCheckout.objects.exists()
    assert list(ActionLog.objects.filter(item_type="accessory").order_by("pk").values_list("action_type", flat=True)
                ) == ["checkout", "declined", "checkin from"]


def test_decline_of_a_consumable_returns_the_units_to_stock(token_client):
    user = UserFactory()
    consumable = ConsumableFactory(category=requiring("consumable"))
    ok(token_client.post(f"/api/v1/consumables/{consumable.pk}/checkout", {"assigned_to": user.pk}, format="json"))
    assert answer(page_url(CheckoutAcceptance.objects.get()), "decline").status_code == 200
    assert not ConsumableAssignment.objects.exists()
    assert ActionLog.objects.filter(item_type="consumable", action_type="checkin from").exists()


def test_decline_of_a_license_seat_frees_the_seat(token_client):
    user = UserFactory()
    license_ = LicenseFactory(seats=1, category=requiring("license"))
    seat = LicenseSeat.objects.get(license=license_)
    ok(token_client.patch(f"/api/v1/licenses/{license_.pk}/seats/{seat.pk}", {"assigned_to": user.pk},
                          format="json"))
    assert answer(page_url(CheckoutAcceptance.objects.get()), "decline").status_code == 200
    seat.refresh_from_db()
    assert seat.assigned_user_id is None


# --- refused links --------------------------------------------------------------------------------------------------


@pytest.fixture
def pending(token_client):
    asset, user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, asset, user)
    return CheckoutAcceptance.objects.get(item_id=asset.pk)


def test_a_changed_token_is_refused_and_writes_nothing(pending):
    token = acceptance_token(pending)
    before = nothing_written()
    tampered = token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")
    for url in (f"/accept/{tampered}/", "/accept/nonsense/"):
        assert Client().get(url).status_code == 404
        assert answer(url, "accept").status_code == 404
    assert nothing_written() == before


def test_another_rows_or_another_persons_token_is_refused(token_client, pending):
    other_asset, other_user = asset_needing_acceptance(), UserFactory()
    check_out_asset(token_client, other_asset, other_user)
    other = CheckoutAcceptance.objects.get(item_id=other_asset.pk)
    from django.core import signing

    from inventory.acceptance_links import SALT

    forged = [
        {"a": pending.pk, "u": other_user.pk, "n": pending.link_nonce},  # another person
        {"a": other.pk, "u": other_user.pk, "n": pending.link_nonce},  # another row's nonce
        {"a": pending.pk, "u": pending.user_id, "n": "earlier"},  # an earlier link
    ]
    before = nothing_written()
    for payload in forged:
        token = signing.TimestampSigner(salt=SALT).sign_object(payload, compress=True)
        assert answer(f"/accept/{token}/", "accept").status_code == 404
    assert nothing_written() == before


def test_an_expired_token_is_refused(pending, settings, monkeypatch):
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 31 * 86400)
    token = acceptance_token(pending)
    monkeypatch.setattr(time, "time", real)
    before = nothing_written()
    resp = answer(f"/accept/{token}/", "accept")
    assert resp.status_code == 410 and b"expired" in resp.content
    settings.ACCEPTANCE_LINK_DAYS = 40
    assert Client().get(f"/accept/{token}/").status_code == 200
    assert nothing_written() == before


def test_another_signed_in_person_is_refused(pending, signed_in, superuser):
    before = nothing_written()
    client = signed_in(superuser)
    assert client.get(page_url(pending)).status_code == 404
    assert answer(page_url(pending), "accept", client=client).status_code == 404
    assert nothing_written() == before
    assert signed_in(pending.user).get(page_url(pending)).status_code == 200


def test_the_post_needs_the_csrf_token(pending):
    client = Client(enforce_csrf_checks=True)
    before = nothing_written()
    assert client.post(page_url(pending), {"answer": "accept"}).status_code == 403
    assert nothing_written() == before


# --- webhook events -------------------------------------------------------------------------------------------------


def test_acceptance_events_are_registered_off_by_default_one_per_kind():
    from notifications.events import EVENTS, default_event_names

    names = {f"{kind}.{done}" for kind in ("asset", "accessory", "consumable", "component", "license")
             for done in ("accepted", "declined")}
    assert names <= set(EVENTS) and not names & set(default_event_names())
    asset = AssetFactory(asset_tag="TAG-7", name="Laptop")
    person = UserFactory(first_name="Grace", last_name="Hopper")
    assert EVENTS["asset.accepted"].render(item=asset, actor=person, target=person) == (
        "Asset TAG-7 (Laptop) was accepted by Grace Hopper")
    accessory = AccessoryFactory(name="Dock")
    assert EVENTS["accessory.declined"].render(item=accessory, actor=person, target=person) == (
        "Accessory Dock was declined by Grace Hopper")
    row = CheckoutAcceptance(item_type="asset")
    assert EVENTS["asset.accepted"].applies({"acceptance": row})
    assert not EVENTS["accessory.accepted"].applies({"acceptance": row})


# --- the hardware record and list -----------------------------------------------------------------------------------


def test_the_hardware_record_and_list_show_and_filter_awaiting_acceptance(token_client):
    waiting, plain = asset_needing_acceptance(), AssetFactory()
    check_out_asset(token_client, waiting, UserFactory())
    assert token_client.get(f"/api/v1/hardware/{waiting.pk}").json()["awaiting_acceptance"] is True
    assert token_client.get(f"/api/v1/hardware/{plain.pk}").json()["awaiting_acceptance"] is False
    rows = token_client.get("/api/v1/hardware").json()["rows"]
    assert {row["id"]: row["awaiting_acceptance"] for row in rows} == {waiting.pk: True, plain.pk: False}
    listed = token_client.get("/api/v1/hardware?acceptance=pending").json()
    assert (listed["total"], [row["id"] for row in listed["rows"]]) == (1, [waiting.pk])
    assert token_client.get("/api/v1/hardware?acceptance=bogus").json()["total"] == 0
    assert answer(page_url(CheckoutAcceptance.objects.get()), "accept").status_code == 200
    assert token_client.get(f"/api/v1/hardware/{waiting.pk}").json()["awaiting_acceptance"] is False
    assert [row["id"] for row in token_client.get("/api/v1/hardware?acceptance=accepted").json()["rows"]] == [
        waiting.pk]


def test_answers_are_rate_limited_per_address(pending):
    from inventory.acceptance_views import POST_RATE

    limit = int(POST_RATE.split("/")[0])
    for _ in range(limit):
        assert answer("/accept/nonsense/", "accept").status_code == 404
    before = nothing_written()
    assert answer(page_url(pending), "accept").status_code == 429
    assert nothing_written() == before
