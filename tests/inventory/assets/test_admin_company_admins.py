"""Administrators who are not super users in the Django admin (issue 14: "with separation on, a staff user with a
company sees only their company's items in the admin too"). A user holding the ``admin`` key signs in; what they may
do there is ``accounts.permissions.ADMIN_SITE_RIGHTS`` (inventory: everything; the action log and users: view only;
companies, site settings, groups, tokens, webhook deliveries: nothing). Everything here goes through the real admin
with the test client."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from accounts.models import PermissionGroup, User
from activity.models import ActionLog
from inventory.models import Accessory, Asset
from inventory.services import assets as services
from inventory.transfer.columns import ASSET_COLUMNS
from tests.factories import (
    AccessoryFactory,
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    LocationFactory,
    PermissionGroupFactory,
    StatusLabelFactory,
    UserFactory,
)

PASSWORD = "correct horse battery"  # tests/factories/accounts.py
CHANGELIST = "/admin/inventory/asset/"
AUTOCOMPLETE = "/admin/autocomplete/"
pytestmark = pytest.mark.django_db


@pytest.fixture
def company_admin(company) -> User:
    return UserFactory(username="cadmin", company=company, permissions={"admin": 1})


@pytest.fixture
def cadmin_client(company_admin) -> Client:
    client = Client()
    client.force_login(company_admin)
    return client


@pytest.fixture
def two_companies(company, other_company):
    """Per company an asset, a user and a location."""
    return {
        "mine": AssetFactory(company=company, asset_tag="MINE-1"),
        "theirs": AssetFactory(company=other_company, asset_tag="THEIRS-1"),
        "mate": UserFactory(company=company, username="mate"),
        "stranger": UserFactory(company=other_company, username="stranger"),
        "my_place": LocationFactory(company=company, name="My office"),
        "their_place": LocationFactory(company=other_company, name="Their office"),
    }


@pytest.fixture(autouse=True)
def _import_dir(settings, tmp_path):
    settings.CSV_IMPORT_DIR = str(tmp_path / "imports")


def texts(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def autocomplete(client: Client, field_name: str, term: str = "", model_name: str = "asset") -> list[str]:
    response = client.get(AUTOCOMPLETE, {"app_label": "inventory", "model_name": model_name,
                                         "field_name": field_name, "term": term})
    assert response.status_code == 200, response.content
    return sorted(row["text"] for row in response.json()["results"])


def sign_in(client: Client, username: str) -> bool:
    response = client.post("/admin/login/?next=/admin/", {"username": username, "password": PASSWORD})
    return response.status_code == 302 and response["Location"] == "/admin/"


# --- who signs in -----------------------------------------------------------------------------------------------------


def test_an_admin_signs_in_with_the_login_form_and_a_plain_user_does_not(client, company):
    UserFactory(username="boss", company=company, permissions={"admin": 1})
    UserFactory(username="clerk", company=company, permissions={"assets.view": 1, "assets.edit": 1})
    assert sign_in(client, "boss")
    assert client.get("/admin/").status_code == 200
    other = Client()
    assert not sign_in(other, "clerk")
    assert other.get("/admin/").status_code == 302  # to the login page


def test_admin_through_a_group_signs_in_and_an_own_deny_beats_it(client):
    group = PermissionGroupFactory(permissions={"admin": 1})
    granted, denied = UserFactory(username="viagroup"), UserFactory(username="denied", permissions={"admin": -1})
    granted.groups.add(group)
    denied.groups.add(group)
    assert sign_in(client, "viagroup")
    assert not sign_in(Client(), "denied")


def test_a_deactivated_or_deleted_admin_cannot_sign_in(client, company):
    UserFactory(username="gone", company=company, permissions={"admin": 1}, is_active=False)
    UserFactory(username="deleted", company=company, permissions={"admin": 1}, deleted_at=timezone.now())
    assert not sign_in(client, "gone")
    assert not sign_in(client, "deleted")


def test_a_signed_in_admin_who_is_deactivated_is_out_at_the_next_request(cadmin_client, company_admin):
    assert cadmin_client.get("/admin/").status_code == 200
    User.objects.filter(pk=company_admin.pk).update(is_active=False)
    assert cadmin_client.get(CHANGELIST).status_code == 302


def test_a_signed_in_admin_whose_admin_key_is_taken_away_is_out_at_the_next_request(cadmin_client, company_admin):
    assert cadmin_client.get(CHANGELIST).status_code == 200
    User.objects.filter(pk=company_admin.pk).update(permissions={"assets.view": 1})
    assert cadmin_client.get(CHANGELIST).status_code == 302


def test_the_index_shows_inventory_and_hides_what_is_not_theirs(cadmin_client):
    content = cadmin_client.get("/admin/").content.decode()
    assert "/admin/inventory/asset/" in content and "/admin/activity/actionlog/" in content
    assert "/admin/accounts/user/" in content
    assert "/admin/notifications/outboundmail/" in content  # their company's mail log (issue 29)
    for hidden in ("/admin/companies/", "/admin/assetsvc/", "/admin/notifications/webhookdelivery/",
                   "/admin/accounts/permission", "/admin/accounts/personalaccesstoken/"):
        assert hidden not in content, hidden


# --- what they may not do: companies, settings, tokens, groups, users -------------------------------------------------


@pytest.mark.parametrize("path", [
    "/admin/assetsvc/sitesettings/", "/admin/assetsvc/sitesettings/1/change/", "/admin/companies/company/",
    "/admin/companies/company/add/", "/admin/accounts/personalaccesstoken/", "/admin/accounts/personalaccesstoken/add/",
    "/admin/accounts/permissiongroup/", "/admin/accounts/permissiongroup/add/", "/admin/accounts/user/add/",
    "/admin/notifications/webhookdelivery/", "/admin/activity/actionlog/add/",
])
def test_pages_outside_their_rights_answer_403(cadmin_client, site_settings, path):
    assert cadmin_client.get(path).status_code == 403


def test_they_cannot_send_the_test_webhook_or_touch_companies(cadmin_client, site_settings, other_company):
    assert cadmin_client.post("/admin/assetsvc/sitesettings/send-test-webhook/").status_code == 403
    assert cadmin_client.post(f"/admin/companies/company/{other_company.pk}/delete/", {"post": "yes"}).status_code \
        == 403
    assert cadmin_client.post("/admin/assetsvc/sitesettings/1/change/",
                              {"full_multiple_companies_support": ""}).status_code == 403
    site_settings.refresh_from_db()
    assert site_settings.full_multiple_companies_support is False


def test_an_admin_cannot_give_themselves_more_rights(cadmin_client, company_admin, company):
    """No user form at all: the change page is read-only, posting to it, to the password page or to a group
    is refused, and nothing changes."""
    page = cadmin_client.get(f"/admin/accounts/user/{company_admin.pk}/change/")
    content = page.content.decode()
    assert page.status_code == 200 and 'name="_save"' not in content and 'name="permissions' not in content
    # the read-only page leaves the password out: no part of its hash, no link to a page that would be refused
    assert "<strong>hash</strong>" not in content and "../password/" not in content
    posted = cadmin_client.post(f"/admin/accounts/user/{company_admin.pk}/change/", {
        "username": "cadmin", "permissions[superuser]": "1", "is_active": "on", "company": company.pk})
    assert posted.status_code == 403
    assert cadmin_client.post(f"/admin/accounts/user/{company_admin.pk}/password/",
                              {"password1": "x-new-pass-42", "password2": "x-new-pass-42"}).status_code == 403
    assert cadmin_client.post("/admin/accounts/permissiongroup/add/",
                              {"name": "Mine", "permissions[superuser]": "1"}).status_code == 403
    # the user list offers no action that writes (the delete action needs the delete right)
    mate = UserFactory(company=company, username="mate")
    users = cadmin_client.get("/admin/accounts/user/")
    assert users.status_code == 200 and "delete_selected_items" not in users.content.decode()
    cadmin_client.post("/admin/accounts/user/", {"action": "delete_selected_items", ACTION_CHECKBOX_NAME: [mate.pk]})
    assert cadmin_client.post(f"/admin/accounts/user/{mate.pk}/delete/", {"post": "yes"}).status_code == 403
    mate.refresh_from_db()
    assert mate.deleted_at is None
    company_admin.refresh_from_db()
    assert company_admin.permissions == {"admin": 1} and company_admin.deleted_at is None
    assert company_admin.check_password(PASSWORD)
    assert not PermissionGroup.objects.exists()
    assert not company_admin.is_superuser


# --- company separation -------------------------------------------------------------------------------------------


def test_the_asset_list_shows_only_their_company(cadmin_client, fmcs_on, two_companies, company):
    AssetFactory(company=company, asset_tag="MINE-2")
    response = cadmin_client.get(CHANGELIST)
    content = response.content.decode()
    assert response.status_code == 200
    assert "MINE-1" in content and "MINE-2" in content and "THEIRS-1" not in content
    assert response.context["cl"].result_count == 2
    assert re.search(r'class="paginator">\s*2 assets', content)
    # the list's company filter would name every company: left out
    assert "Company B" not in content
    # a search does not reach the other company either
    assert "THEIRS-1" not in cadmin_client.get(CHANGELIST, {"q": "THEIRS"}).content.decode()


def test_another_companys_asset_does_not_exist_for_them(cadmin_client, fmcs_on, two_companies):
    theirs = two_companies["theirs"]
    for suffix in ("change", "history", "checkout", "checkin", "audit", "delete"):
        response = cadmin_client.get(f"{CHANGELIST}{theirs.pk}/{suffix}/")
        assert response.status_code == 302 and response["Location"] == "/admin/", suffix
        assert any("doesn’t exist" in text for text in texts(response)), suffix
    mine = two_companies["mine"]
    assert cadmin_client.get(f"{CHANGELIST}{mine.pk}/change/").status_code == 200
    assert cadmin_client.get(f"{CHANGELIST}{mine.pk}/history/").status_code == 200


def test_autocomplete_answers_only_their_company(cadmin_client, fmcs_on, two_companies, company_admin):
    # labelled as every picker (issue 28): "First Last (username, e-mail)", "TAG – name (serial)"
    assert autocomplete(cadmin_client, "assigned_user") == sorted([company_admin.picker_label,
                                                                   two_companies["mate"].picker_label])
    assert autocomplete(cadmin_client, "assigned_user", "stranger") == []
    assert autocomplete(cadmin_client, "assigned_asset") == [two_companies["mine"].picker_label]
    # locations are not scoped (rule 6 does not name them: companies.checks.UNSCOPED_COMPANY_MODELS), as in the API
    assert autocomplete(cadmin_client, "assigned_location") == ["My office", "Their office"]


def test_checkout_to_another_companys_user_is_refused_and_writes_nothing(cadmin_client, fmcs_on, two_companies):
    mine, stranger, mate = two_companies["mine"], two_companies["stranger"], two_companies["mate"]
    response = cadmin_client.post(f"{CHANGELIST}{mine.pk}/checkout/",
                                  {"checkout_to_type": "user", "assigned_user": stranger.pk})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    # the list action too
    response = cadmin_client.post(CHANGELIST, {"action": "checkout_selected", ACTION_CHECKBOX_NAME: [mine.pk],
                                               "user": stranger.pk, "note": "", "apply": "1"})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    mine.refresh_from_db()
    assert mine.assigned_user is None and not ActionLog.objects.exists()
    # their own user: done
    response = cadmin_client.post(f"{CHANGELIST}{mine.pk}/checkout/", {"checkout_to_type": "user",
                                                                       "assigned_user": mate.pk})
    assert response.status_code == 302
    mine.refresh_from_db()
    assert mine.assigned_user == mate


def test_list_actions_and_labels_skip_another_companys_assets(cadmin_client, fmcs_on, two_companies):
    mine, theirs = two_companies["mine"], two_companies["theirs"]
    response = cadmin_client.post(CHANGELIST, {"action": "audit_selected",
                                               ACTION_CHECKBOX_NAME: [mine.pk, theirs.pk]})
    assert response.status_code == 302
    assert [(log.item_id, log.action_type) for log in ActionLog.objects.all()] == [(mine.pk, "audit")]
    labels = cadmin_client.get(f"{CHANGELIST}labels/", {"ids": f"{mine.pk},{theirs.pk}"}).content.decode()
    assert 'data-tag="MINE-1"' in labels and "THEIRS-1" not in labels


def csv_upload(rows: list[dict[str, str]]) -> SimpleUploadedFile:
    header = [column.header for column in ASSET_COLUMNS]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows([[row.get(name, "") for name in header] for row in rows])
    return SimpleUploadedFile("assets.csv", buffer.getvalue().encode(), content_type="text/csv")


def test_export_gives_only_their_rows_and_import_lands_in_their_company(cadmin_client, fmcs_on, two_companies,
                                                                          company):
    response = cadmin_client.post(CHANGELIST, {"action": "export_selected_csv",
                                               ACTION_CHECKBOX_NAME: list(Asset.objects.values_list("pk", flat=True))})
    body = response.content.decode()
    assert response.status_code == 200 and "MINE-1" in body and "THEIRS-1" not in body
    assert response["X-Exported-Rows"] == "1"

    upload = csv_upload([{"Asset Tag": "IMP-1", "Model name": "Latitude", "Category": "Laptops", "Status": "Ready",
                          "Company": "Company B"}])
    preview = cadmin_client.post(f"{CHANGELIST}import/", {"file": upload})
    assert preview.status_code == 200, preview.content
    done = cadmin_client.post(f"{CHANGELIST}import/confirm/", {"token": preview.context["token"]})
    assert done.status_code == 302
    assert Asset.objects.get(asset_tag="IMP-1").company == company


def test_new_items_get_their_company_and_the_picker_offers_only_it(cadmin_client, fmcs_on, company, other_company):
    add_page = cadmin_client.get(f"{CHANGELIST}add/").content.decode()
    assert "Company A" in add_page and "Company B" not in add_page
    model, status = AssetModelFactory(), StatusLabelFactory()
    data = {"asset_tag": "NEW-1", "model": model.pk, "status": status.pk}
    refused = cadmin_client.post(f"{CHANGELIST}add/", {**data, "company": other_company.pk})
    assert refused.status_code == 200 and "Select a valid choice" in refused.content.decode()
    assert not Asset.objects.filter(asset_tag="NEW-1").exists()
    assert cadmin_client.post(f"{CHANGELIST}add/", data).status_code == 302
    assert Asset.objects.get(asset_tag="NEW-1").company == company

    category = CategoryFactory(category_type="accessory")
    response = cadmin_client.post("/admin/inventory/accessory/add/", {"name": "Dock", "qty": 3,
                                                                      "category": category.pk})
    assert response.status_code == 302, response.content
    assert Accessory.objects.get(name="Dock").company == company


def test_the_user_list_and_action_log_show_only_their_company(cadmin_client, fmcs_on, two_companies, superuser):
    users = cadmin_client.get("/admin/accounts/user/").content.decode()
    assert "mate" in users and "stranger" not in users and "Company B" not in users  # no company filter either
    assert cadmin_client.get(f"/admin/accounts/user/{two_companies['stranger'].pk}/change/").status_code == 302
    services.asset_audit(asset=two_companies["mine"], actor=superuser, note="ours")
    services.asset_audit(asset=two_companies["theirs"], actor=superuser, note="theirs")
    response = cadmin_client.get("/admin/activity/actionlog/")
    assert response.status_code == 200 and response.context["cl"].result_count == 1
    theirs_log = ActionLog.objects.get(item_id=two_companies["theirs"].pk)
    assert cadmin_client.get(f"/admin/activity/actionlog/{theirs_log.pk}/change/").status_code == 302


def test_an_accessory_of_another_company_is_neither_listed_nor_opened(cadmin_client, fmcs_on, company,
                                                                        other_company):
    AccessoryFactory(company=company, name="Our dock")
    theirs = AccessoryFactory(company=other_company, name="Their dock")
    content = cadmin_client.get("/admin/inventory/accessory/").content.decode()
    assert "Our dock" in content and "Their dock" not in content
    assert cadmin_client.get(f"/admin/inventory/accessory/{theirs.pk}/change/").status_code == 302
    assert cadmin_client.get(f"/admin/inventory/accessory/{theirs.pk}/checkout/").status_code == 302


def test_with_separation_off_an_admin_sees_every_company(cadmin_client, site_settings, two_companies,
                                                          other_company, company_admin):
    response = cadmin_client.get(CHANGELIST)
    assert response.context["cl"].result_count == 2
    assert cadmin_client.get(f"{CHANGELIST}{two_companies['theirs'].pk}/change/").status_code == 200
    assert autocomplete(cadmin_client, "assigned_user") == sorted(
        user.picker_label for user in (company_admin, two_companies["mate"], two_companies["stranger"]))
    # rule 7 lets them choose the company then: a plain select of every company (the company admin's autocomplete
    # stays closed to them)
    add_page = cadmin_client.get(f"{CHANGELIST}add/").content.decode()
    assert "Company A" in add_page and "Company B" in add_page
    assert cadmin_client.get("/admin/autocomplete/", {"app_label": "inventory", "model_name": "asset",
                                                      "field_name": "company", "term": ""}).status_code == 403
    model, status = AssetModelFactory(), StatusLabelFactory()
    response = cadmin_client.post(f"{CHANGELIST}add/", {"asset_tag": "NEW-2", "model": model.pk,
                                                        "status": status.pk, "company": other_company.pk})
    assert response.status_code == 302
    assert Asset.objects.get(asset_tag="NEW-2").company == other_company


def test_import_with_update_does_not_reach_another_companys_asset(cadmin_client, fmcs_on, two_companies):
    """The tags of other companies' assets exist (tags are unique everywhere) but are not theirs to update: such a row
    fails with the message a new asset with that tag gets, and the asset is untouched."""
    theirs, mine = two_companies["theirs"], two_companies["mine"]
    upload = csv_upload([{"Asset Tag": "THEIRS-1", "Notes": "changed by the neighbours"},
                         {"Asset Tag": "MINE-1", "Notes": "ours, changed"}])
    preview = cadmin_client.post(f"{CHANGELIST}import/", {"file": upload, "update": "on"})
    assert preview.status_code == 200, preview.content
    assert "The asset tag must be unique." in preview.content.decode()
    done = cadmin_client.post(f"{CHANGELIST}import/confirm/", {"token": preview.context["token"]})
    assert done.status_code == 302
    theirs.refresh_from_db()
    mine.refresh_from_db()
    assert theirs.notes != "changed by the neighbours" and mine.notes == "ours, changed"
    assert not ActionLog.objects.filter(item_id=theirs.pk).exists()
