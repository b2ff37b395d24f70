"""Issue 32, "What I hold" (``/account/``): the person's assets, accessories, consumables, license seats and the
components in their assets, each with its history with them; the same items as the API lists for them; never
anyone else's; a constant number of queries."""

from __future__ import annotations

import pytest
from django.utils import timezone

from inventory.models import Accessory, AccessoryCheckout, Asset
from tests.factories import AssetFactory, CompanyFactory, UserFactory
from tests.factories.inventory import (
    AccessoryFactory,
    ComponentFactory,
    ConsumableFactory,
    LicenseFactory,
    accessory_out,
)
from tests.portal.scene import hand_out, one_of_each

pytestmark = pytest.mark.django_db


def test_every_kind_is_a_card_with_its_fields_history_and_report_link(client):
    person = UserFactory(first_name="Emma", last_name="Stone")
    items = one_of_each(person, prefix="EM")
    asset = Asset.objects.get(pk=items["asset"].pk)
    client.force_login(person)
    page = client.get("/account/")
    assert page.status_code == 200
    html = page.content.decode()
    for heading in ("Assets", "Accessories", "Consumables", "Licenses", "Components"):
        assert f">{heading}</h2>" in html
    for text in ("EM-LAP", "EM laptop", "EM Model X", asset.serial, asset.last_checkout.strftime("%Y-%m-%d"),
                 "EM dock", "EM toner", "EM office", "EM ram", "EM-RAM-SN", "first day"):
        assert text in html, text
    assert "EM-KEY-123" not in html  # a product key only for those who may see keys
    assert html.count("<summary>History</summary>") == 5
    for kind, item in items.items():
        assert f'href="/account/items/{kind}/{item.pk}/problem/"' in html
    assert "Awaiting your acceptance" not in html


def test_the_product_key_is_shown_to_who_may_see_keys(client):
    person = UserFactory(permissions={"licenses.keys": 1})
    hand_out("license", LicenseFactory(name="Office", serial="KEY-XYZ"), person)
    client.force_login(person)
    assert "KEY-XYZ" in client.get("/account/").content.decode()


def test_the_items_are_those_the_api_lists(client, make_client, superuser):
    person = UserFactory()
    items = one_of_each(person, prefix="API")
    second = hand_out("accessory", items["accessory"], person)  # a second checkout of the same accessory
    assert second.pk == items["accessory"].pk
    gone = AccessoryFactory(name="Deleted dock")
    accessory_out(person, gone)
    Accessory.objects.filter(pk=gone.pk).update(deleted_at=timezone.now())
    AssetFactory(asset_tag="DEL-1", assigned_user=person, deleted_at=timezone.now())
    api = make_client(superuser)
    listed = {kind: api.get(f"/api/v1/users/{person.pk}/{kind}").json()["rows"]
              for kind in ("assets", "accessories", "consumables", "licenses")}
    client.force_login(person)
    html = client.get("/account/").content.decode()
    assert [row["asset_tag"] for row in listed["assets"]] == ["API-LAP"]
    assert [row["name"] for row in listed["accessories"]] == ["API dock", "API dock"]
    assert html.count("1 unit") == 2  # both checkouts on the accessory's card
    for kind in ("accessories", "consumables", "licenses"):
        for row in listed[kind]:
            assert row["name"] in html
    assert "Deleted dock" not in html and "DEL-1" not in html


def test_another_persons_items_are_never_shown(client):
    person, other = UserFactory(), UserFactory()
    one_of_each(person, prefix="MINE")
    one_of_each(other, prefix="THEIRS")
    client.force_login(person)
    html = client.get("/account/").content.decode()
    assert "MINE-LAP" in html and "THEIRS" not in html


def test_company_separation_hides_another_companys_item_as_the_api_does(client, make_client, fmcs_on):
    ours, theirs = CompanyFactory(name="Ours"), CompanyFactory(name="Theirs")
    person = UserFactory(company=ours, permissions={"users.view": 1, "assets.view": 1, "accessories.view": 1})
    one_of_each(person, company=ours, prefix="OURS")
    foreign = AssetFactory(asset_tag="FOREIGN-1", company=theirs, assigned_user=person)
    AccessoryCheckout.objects.create(accessory=AccessoryFactory(name="Foreign dock", company=theirs),
                                     assigned_user=person, assigned_qty=1)
    api = make_client(person)
    assert [row["asset_tag"] for row in api.get(f"/api/v1/users/{person.pk}/assets").json()["rows"]] == ["OURS-LAP"]
    assert [row["name"] for row in api.get(f"/api/v1/users/{person.pk}/accessories").json()["rows"]] == ["OURS dock"]
    client.force_login(person)
    html = client.get("/account/").content.decode()
    assert "OURS-LAP" in html and "OURS dock" in html
    assert "FOREIGN-1" not in html and "Foreign dock" not in html
    assert client.get(f"/account/items/asset/{foreign.pk}/problem/").status_code == 404


def test_history_shows_only_the_rows_with_this_person(client):
    person, other = UserFactory(), UserFactory()
    asset = AssetFactory(asset_tag="HIST-1")
    hand_out("asset", asset, other, note="to the other one")
    from inventory.services.checkout import CHECKOUT_KINDS, item_checkin

    item_checkin(kind=CHECKOUT_KINDS["asset"], item=asset, actor=UserFactory(superuser=True), note="back")
    hand_out("asset", asset, person, note="to me")
    client.force_login(person)
    html = client.get("/account/").content.decode()
    assert "to me" in html and "to the other one" not in html


def _fill(person, count: int, prefix: str):
    for n in range(count):
        asset = AssetFactory(asset_tag=f"{prefix}-A{n}")
        hand_out("asset", asset, person)
        hand_out("accessory", AccessoryFactory(), person)
        hand_out("consumable", ConsumableFactory(), person)
        hand_out("license", LicenseFactory(), person)
        hand_out("component", ComponentFactory(), asset)


def test_the_page_costs_the_same_queries_for_1_or_10_items_of_each_kind(client, django_assert_max_num_queries):
    few, many = UserFactory(), UserFactory()
    _fill(few, 1, "FEW")
    _fill(many, 10, "MANY")
    client.force_login(few)
    client.get("/account/")  # warm caches (site settings, labels)
    with django_assert_max_num_queries(14) as counted:
        assert client.get("/account/").status_code == 200
    budget = len(counted.captured_queries)
    client.force_login(many)
    client.get("/account/")
    with django_assert_max_num_queries(budget):
        page = client.get("/account/")
    assert page.content.decode().count("<summary>History</summary>") == 50
