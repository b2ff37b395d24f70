"""The asset back office (issue 14): an administrator checks an asset out and in, audits it and prints its label in
the admin without the API, through the same services (log rows, refusals); the asset's history is its action log;
each user's page lists what they hold; company separation limits what the admin reads."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages
from django.test import Client, RequestFactory

from accounts.models import User
from activity.models import ActionLog
from inventory.choices import StatusType
from inventory.models import Asset
from inventory.services import assets as services
from tests.factories import (
    AssetFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.inventory import accessory_out, checked_out_asset, seat_out

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/inventory/asset/"


@pytest.fixture
def admin_client(superuser):
    client = Client()
    client.force_login(superuser)
    return client


def page(asset: Asset, suffix: str) -> str:
    return f"{CHANGELIST}{asset.pk}/{suffix}/"


def texts(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def actions() -> list[tuple[str, str]]:
    return list(ActionLog.objects.order_by("id").values_list("action_type", "note"))


def test_change_page_has_the_buttons(admin_client):
    asset = AssetFactory()
    content = admin_client.get(page(asset, "change")).content.decode()
    for suffix in ("checkout", "checkin", "audit"):
        assert f'href="{page(asset, suffix)}"' in content
    assert f"{CHANGELIST}labels/?ids={asset.pk}" in content
    assert f'href="{page(asset, "history")}"' in content


def test_check_out_in_and_audit_from_the_asset_page(admin_client, superuser):
    asset, holder = AssetFactory(), UserFactory()
    form = admin_client.get(page(asset, "checkout"))
    assert form.status_code == 200
    assert b"admin/autocomplete/" in form.content  # the target pickers are autocomplete widgets

    resp = admin_client.post(page(asset, "checkout"), {"checkout_to_type": "user", "assigned_user": holder.pk,
                                                       "note": "for the trip", "expected_checkin": "2030-01-02"})
    assert resp.status_code == 302 and resp["Location"] == page(asset, "change")
    asset.refresh_from_db()
    assert asset.assigned_user == holder and str(asset.expected_checkin) == "2030-01-02"
    assert texts(admin_client.get(resp["Location"]))[-1] == f"{asset} checked out to {holder}."

    resp = admin_client.post(page(asset, "checkin"), {"note": "back"})
    assert resp.status_code == 302
    asset.refresh_from_db()
    assert asset.assigned_user is None

    resp = admin_client.post(page(asset, "audit"), {"note": "seen", "next_audit_date": "2031-05-06"})
    assert resp.status_code == 302
    asset.refresh_from_db()
    assert str(asset.next_audit_date) == "2031-05-06" and asset.last_audit_date is not None
    assert actions() == [("checkout", "for the trip"), ("checkin from", "back"), ("audit", "seen")]
    assert set(ActionLog.objects.values_list("created_by", flat=True)) == {superuser.pk}


def test_check_out_to_a_location_and_to_an_asset(admin_client):
    asset, place, parent = AssetFactory(), LocationFactory(), AssetFactory()
    admin_client.post(page(asset, "checkout"), {"checkout_to_type": "location", "assigned_location": place.pk})
    asset.refresh_from_db()
    assert asset.assigned_location == place
    other = AssetFactory()
    admin_client.post(page(other, "checkout"), {"checkout_to_type": "asset", "assigned_asset": parent.pk})
    other.refresh_from_db()
    assert other.assigned_asset == parent


def test_checkout_without_its_target_is_a_form_error(admin_client):
    asset = AssetFactory()
    resp = admin_client.post(page(asset, "checkout"), {"checkout_to_type": "user"})
    assert resp.status_code == 200
    assert resp.context["form"].errors["assigned_user"] == ["Choose the user it goes to."]  # beside the picker
    assert not ActionLog.objects.exists()


def test_a_refused_checkout_is_a_form_error_and_writes_nothing(admin_client):
    asset = checked_out_asset(UserFactory())
    resp = admin_client.post(page(asset, "checkout"), {"checkout_to_type": "user", "assigned_user": UserFactory().pk})
    assert resp.status_code == 200
    errors = resp.context["form"].non_field_errors()
    assert list(errors) == ["That asset is not available for checkout!"]  # the service's text, above the fields
    assert b'class="errornote"' in resp.content
    assert not texts(resp) and not ActionLog.objects.exists()


def test_checkin_needs_a_note_when_the_site_requires_one(admin_client, site_settings):
    site_settings.require_checkinout_notes = True
    site_settings.save()
    asset = checked_out_asset(UserFactory())
    resp = admin_client.post(page(asset, "checkin"), {"note": ""})
    assert resp.status_code == 200 and b"This field is required." in resp.content
    resp = admin_client.post(CHANGELIST, {"action": "checkin_selected", ACTION_CHECKBOX_NAME: [asset.pk],
                                          "note": " ", "apply": "1"})
    assert resp.status_code == 200  # the action's form again, refused
    asset.refresh_from_db()
    assert asset.assigned_user is not None and not ActionLog.objects.exists()
    resp = admin_client.post(page(asset, "checkin"), {"note": "returned at the desk"})
    assert resp.status_code == 302
    assert actions() == [("checkin from", "returned at the desk")]


def test_list_actions_report_counts(admin_client):
    free, also_free, taken = AssetFactory(), AssetFactory(), checked_out_asset(UserFactory())
    target = UserFactory()
    form = admin_client.post(CHANGELIST, {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [free.pk]})
    assert form.status_code == 200 and b"admin/autocomplete/" in form.content  # the pickers autocomplete here too
    resp = admin_client.post(CHANGELIST, {"action": "checkout_selected", "user": target.pk, "note": "", "apply": "1",
                                          ACTION_CHECKBOX_NAME: [free.pk, also_free.pk, taken.pk]}, follow=True)
    [message] = texts(resp)
    assert message.startswith(f"2 assets checked out; 1 refused: {taken}: ")
    resp = admin_client.post(CHANGELIST, {"action": "audit_selected", ACTION_CHECKBOX_NAME: [free.pk]}, follow=True)
    assert texts(resp) == ["1 asset audited."]


def test_status_is_edited_through_the_service(admin_client):
    asset = AssetFactory()
    new_status = StatusLabelFactory(name="In repair")
    form = admin_client.get(page(asset, "change")).context["adminform"].form
    data = {name: ("" if value is None else value) for name, value in
            ((bound.html_name, bound.value()) for bound in form) if not isinstance(value, bool)}
    data["status"] = new_status.pk
    resp = admin_client.post(page(asset, "change"), data)
    assert resp.status_code == 302, resp.content
    asset.refresh_from_db()
    assert asset.status == new_status
    log = ActionLog.objects.get()
    assert log.action_type == "update" and log.log_meta["status_id"]["new"] == new_status.pk


def test_history_shows_the_seven_rows_of_the_action_log(admin_client, superuser):
    asset, holder = AssetFactory(), UserFactory()
    for step in range(2):
        services.asset_checkout(asset=asset, target=holder, actor=superuser, note=f"out {step}")
        services.asset_checkin(asset=asset, actor=superuser, note=f"in {step}")
        services.asset_audit(asset=asset, actor=superuser, note=f"audit {step}")
    services.asset_update(asset=asset, actor=superuser, data={"name": "Renamed"})
    assert ActionLog.objects.count() == 7
    resp = admin_client.get(page(asset, "history"))
    content = resp.content.decode()
    assert resp.status_code == 200 and "7 rows of the action log" in content
    assert content.count('class="log-row"') == 7
    assert content.index("audit 1") < content.index("out 0")  # newest first
    assert holder.full_name in content and superuser.full_name in content
    change = admin_client.get(page(asset, "change")).content.decode()
    assert "latest activity" in change.lower() and "audit 1" in change


def test_labels_of_the_selected_assets(admin_client):
    one, two, other = AssetFactory(asset_tag="LBL-1"), AssetFactory(asset_tag="LBL-2"), AssetFactory(asset_tag="NO-3")
    resp = admin_client.post(CHANGELIST, {"action": "print_labels", ACTION_CHECKBOX_NAME: [one.pk, two.pk]})
    assert resp.status_code == 302
    sheet = admin_client.get(resp["Location"]).content.decode()
    assert sheet.count('class="label"') == 2 and sheet.count("<svg") == 2
    assert 'data-tag="LBL-1"' in sheet and 'data-tag="LBL-2"' in sheet and "NO-3" not in sheet
    assert "size: A4" in sheet and "repeat(3, 63.5mm)" in sheet  # Avery L7160 by default
    letter = admin_client.get(f"{CHANGELIST}labels/?ids={one.pk}&sheet=5160").content.decode()
    assert "size: letter" in letter and "repeat(3, 66.7mm)" in letter
    assert admin_client.get(f"{CHANGELIST}labels/?ids=x,{other.pk}&sheet=nope").status_code == 200


def test_filters_and_holder_column(admin_client):
    holder = UserFactory(first_name="Ada", last_name="Lovelace")
    out, free = checked_out_asset(holder, asset_tag="OUT-1"), AssetFactory(asset_tag="FREE-1")
    listed = admin_client.get(f"{CHANGELIST}?assigned=yes").content.decode()
    assert "OUT-1" in listed and "FREE-1" not in listed and "Ada Lovelace" in listed
    listed = admin_client.get(f"{CHANGELIST}?assigned=no").content.decode()
    assert "FREE-1" in listed and "OUT-1" not in listed
    listed = admin_client.get(f"{CHANGELIST}?model__category__id__exact={free.model.category_id}").content.decode()
    assert "FREE-1" in listed and "OUT-1" not in listed
    assert "OUT-1" in admin_client.get(f"{CHANGELIST}?q={out.serial}").content.decode()


def test_user_page_lists_what_they_hold(admin_client):
    holder = UserFactory()
    asset = checked_out_asset(holder, asset_tag="HELD-1")
    row = accessory_out(holder, name="USB dock", qty=2)
    seat = seat_out(holder, name="Office suite")
    content = admin_client.get(f"/admin/accounts/user/{holder.pk}/change/").content.decode()
    assert "what this user holds" in content.lower()
    assert "HELD-1" in content and f"/admin/inventory/asset/{asset.pk}/change/" in content
    assert "USB dock" in content and f"/admin/inventory/accessory/{row.accessory_id}/change/" in content
    assert "Office suite" in content and f"/admin/inventory/license/{seat.license_id}/change/" in content
    empty = admin_client.get(f"/admin/accounts/user/{UserFactory().pk}/change/").content.decode()
    assert "Nothing checked out." in empty


# --- company separation --------------------------------------------------------------------------------------------
# Super users see every company (rule 2); these drive the admin's own reads with a member of one company. The same
# through the real admin, with an administrator of one company signed in: test_admin_company_admins.py.


def request_as(user: User, path: str = "/admin/", **params):
    request = RequestFactory().get(path, params)
    request.user = user
    return request


def test_a_company_member_reads_only_their_companys_rows(fmcs_on, company, other_company):
    member = UserFactory(company=company)
    mine, theirs = AssetFactory(company=company, asset_tag="MINE-1"), AssetFactory(company=other_company)
    mate, stranger = UserFactory(company=company, username="mate"), UserFactory(company=other_company)
    asset_admin, user_admin = admin.site._registry[Asset], admin.site._registry[User]
    request = request_as(member)
    assert list(asset_admin.get_queryset(request)) == [mine]
    # the autocomplete answers are the related admin's search over its get_queryset
    found, _distinct = user_admin.get_search_results(request, user_admin.get_queryset(request), "")
    assert mate in found and stranger not in found and member in found
    # a checkout's pickers
    from inventory.admin.assets import AssetCheckoutForm

    form = AssetCheckoutForm(user=member)
    assert stranger not in form.fields["assigned_user"].queryset
    assert theirs not in form.fields["assigned_asset"].queryset
    # labels
    labels = asset_admin.labels_view(request_as(member, "/admin/inventory/asset/labels/",
                                                ids=f"{mine.pk},{theirs.pk}"))
    content = labels.rendered_content
    assert 'data-tag="MINE-1"' in content and content.count('class="label"') == 1
    # another company's asset has no page here
    assert asset_admin.get_object(request, str(theirs.pk)) is None


def test_autocomplete_endpoint_answers_json(admin_client):
    user = UserFactory(username="findme")
    resp = admin_client.get("/admin/autocomplete/", {"app_label": "inventory", "model_name": "asset",
                                                     "field_name": "assigned_user", "term": "findme"})
    assert resp.status_code == 200
    assert [row["id"] for row in resp.json()["results"]] == [str(user.pk)]


def test_qr_code_inline_svg_has_no_xml_declaration():
    from inventory import labels

    svg = labels.asset_qr_svg_inline(AssetFactory(), "http://testserver/admin/")
    assert svg.startswith("<svg") and re.search(r'viewBox="0 0 \d+ \d+"', svg)


def test_item_admins_and_history_are_limited_to_the_members_company(fmcs_on, company, other_company, superuser):
    from inventory.models import Accessory, LicenseSeat
    from tests.factories import AccessoryFactory, LicenseFactory

    member = UserFactory(company=company)
    mine, theirs = AccessoryFactory(company=company), AccessoryFactory(company=other_company)
    LicenseFactory(company=company, seats=1), LicenseFactory(company=other_company, seats=1)
    request = request_as(member)
    assert list(admin.site._registry[Accessory].get_queryset(request)) == [mine]
    assert {seat.license.company_id for seat in admin.site._registry[LicenseSeat].get_queryset(request)} == {
        company.pk}
    asset = AssetFactory(company=company)
    services.asset_checkout(asset=asset, target=UserFactory(company=company), actor=superuser, note="away")
    services.asset_audit(asset=AssetFactory(company=other_company), actor=superuser, note="theirs")
    asset_admin = admin.site._registry[Asset]
    assert [log.note for log in asset_admin._logs(request, asset)] == ["away"]
    assert theirs not in admin.site._registry[Accessory].get_queryset(request)


def test_checkin_sets_status_and_location_as_the_api_does(admin_client):
    asset = checked_out_asset(UserFactory())
    broken = StatusLabelFactory(name="Needs repair", type=StatusType.UNDEPLOYABLE)
    shelf = LocationFactory(name="Repair shelf")
    resp = admin_client.post(page(asset, "checkin"), {"status": broken.pk, "location": shelf.pk, "note": "cracked"})
    assert resp.status_code == 302
    asset.refresh_from_db()
    assert (asset.status_id, asset.location_id, asset.assigned_user_id) == (broken.pk, shelf.pk, None)
    assert actions()[-1] == ("checkin from", "cracked")


def test_the_action_pages_use_the_admin_form_styles_and_show_one_picker(admin_client):
    asset = AssetFactory()
    resp = admin_client.get(page(asset, "checkout"))
    html = resp.content.decode()
    assert "admin/css/forms.css" in html and "admin/js/calendar.js" in html and "jsi18n" in html
    assert 'data-target-for="user"' in html and 'data-target-for="location"' in html
    assert ":has(input[name=checkout_to_type][value=location]:checked)" in html
    resp = admin_client.post(CHANGELIST, {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [asset.pk]})
    bulk = resp.content.decode()
    assert "admin/css/forms.css" in bulk and 'name="checkout_to_type"' in bulk and 'data-target-for="asset"' in bulk
