"""The admin saves, deletes and restores through the same services as the API (issue 9, part 7): it refuses what the
API refuses, with the API's messages, writes nothing when it refuses, and deletes softly where the API does.

Every test drives the real admin pages with a logged-in super user: it GETs a form, POSTs it back with one change, and
checks the answer, the messages and the database."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from oauth2_provider.models import AccessToken

from accounts.admin_permissions import PermissionMapField
from accounts.models import PermissionGroup, PersonalAccessToken, User
from accounts.services import CANNOT_DELETE_YOURSELF, personal_token_issue, user_delete
from activity.models import ActionLog
from companies.models import Company
from companies.services import COMPANY_NOT_EMPTY
from inventory.models import Asset, Manufacturer, StatusLabel
from inventory.services.catalogue import MANUFACTURER_IN_USE, STATUS_LABEL_IN_USE
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    ManufacturerFactory,
    PermissionGroupFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.inventory import checked_out_asset

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def url(model, view: str = "changelist", pk: Any = None) -> str:
    base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
    return {"changelist": base, "add": f"{base}add/", "change": f"{base}{pk}/change/",
            "delete": f"{base}{pk}/delete/", "password": f"{base}{pk}/password/"}[view]


def form_data(client, page: str, **changes: Any) -> dict[str, Any]:
    """The form of an admin page as its browser would post it back, with ``changes`` applied."""
    form = client.get(page).context["adminform"].form
    data: dict[str, Any] = {}
    for bound in form:
        if bound.field.disabled:
            continue
        value = bound.value()
        if isinstance(bound.field, PermissionMapField):  # the table's inputs: permissions[<key>] = 1 | -1
            data.update({f"{bound.html_name}[{key}]": str(raw) for key, raw in (value or {}).items()})
            continue
        if isinstance(bound.field, forms.BooleanField):
            if value:
                data[bound.html_name] = "on"
            continue
        data[bound.html_name] = "" if value is None else value
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def texts(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def form_errors(response) -> str:
    form = response.context["adminform"].form
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def action(client, model, name: str, objs, query: str = "") -> Any:
    """A list action on ``objs``, posted to the change list (``query``: its filter, e.g. ``deleted=yes`` for deleted
    rows, which the default list leaves out)."""
    return client.post(f"{url(model)}?{query}" if query else url(model),
                       {"action": name, ACTION_CHECKBOX_NAME: [obj.pk for obj in objs]}, follow=True)


# --- assets: the limits the API's serializer enforced ----------------------------------------------------------------


def test_asset_add_refuses_a_negative_purchase_cost(admin_client):
    model, status = AssetModelFactory(), StatusLabelFactory()
    resp = admin_client.post(url(Asset, "add"), {"asset_tag": "ADM-1", "model": model.pk, "status": status.pk,
                                                 "purchase_cost": "-5"})
    assert resp.status_code == 200
    assert "The purchase cost must be at least 0." in form_errors(resp)
    assert not Asset.objects.exists() and not ActionLog.objects.exists()


def test_asset_change_refuses_a_200000_month_warranty(admin_client):
    asset = AssetFactory(warranty_months=12)
    page = url(Asset, "change", asset.pk)
    resp = admin_client.post(page, form_data(admin_client, page, warranty_months="200000"))
    assert resp.status_code == 200
    assert "The warranty months may not be greater than 1200." in form_errors(resp)
    asset.refresh_from_db()
    assert asset.warranty_months == 12 and not ActionLog.objects.exists()


def test_asset_change_saves_through_the_service(admin_client):
    asset = AssetFactory(purchase_cost="10.00")
    page = url(Asset, "change", asset.pk)
    resp = admin_client.post(page, form_data(admin_client, page, purchase_cost="12.50", warranty_months="24"))
    assert resp.status_code == 302
    asset.refresh_from_db()
    assert str(asset.purchase_cost) == "12.50" and asset.warranty_months == 24
    log = ActionLog.objects.get()
    assert log.action_type == "update" and log.log_meta["purchase_cost"] == {"old": "10.00", "new": "12.50"}


def test_asset_delete_page_deletes_softly(admin_client):
    asset = AssetFactory()
    resp = admin_client.post(url(Asset, "delete", asset.pk), {"post": "yes"})
    assert resp.status_code == 302
    asset.refresh_from_db()
    assert asset.deleted_at is not None
    assert ActionLog.objects.get().action_type == "delete"


# --- users ------------------------------------------------------------------------------------------------------------


def test_user_change_refuses_an_unknown_permission_key(admin_client):
    user = UserFactory(permissions={"assets.view": 1})
    page = url(User, "change", user.pk)
    resp = admin_client.post(page, form_data(admin_client, page, **{"permissions[junk.key]": "1"}))
    assert resp.status_code == 200
    assert 'The permission "junk.key" does not exist.' in form_errors(resp)
    user.refresh_from_db()
    assert user.permissions == {"assets.view": 1} and not ActionLog.objects.exists()


def test_user_change_saves_through_the_service_and_logs(admin_client):
    user = UserFactory(jobtitle="")
    page = url(User, "change", user.pk)
    resp = admin_client.post(page, form_data(admin_client, page, jobtitle="Engineer",
                                             **{"permissions[assets.view]": "1"}))
    assert resp.status_code == 302, form_errors(resp)
    user.refresh_from_db()
    assert user.jobtitle == "Engineer" and user.permissions == {"assets.view": 1}
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.item_id) == ("update", "user", user.pk)
    assert set(log.log_meta) == {"jobtitle", "permissions"}


def test_super_user_cannot_change_own_permissions_or_groups(admin_client, superuser):
    page = url(User, "change", superuser.pk)
    resp = admin_client.post(page, form_data(admin_client, page, **{"permissions[admin]": "1"}))
    assert resp.status_code == 200 and "Insufficient permissions." in form_errors(resp)
    group = PermissionGroupFactory()
    resp = admin_client.post(page, form_data(admin_client, page, groups=[group.pk]))
    assert resp.status_code == 200 and "Insufficient permissions." in form_errors(resp)
    superuser.refresh_from_db()
    assert superuser.permissions == {"superuser": 1} and not superuser.groups.exists()


def test_user_add_validates_like_the_api_and_logs(admin_client, superuser):
    data = {"username": "newbie", "first_name": "", "last_name": "", "email": "not-an-address",
            "password1": "a long enough secret", "password2": "a long enough secret"}
    resp = admin_client.post(url(User, "add"), data)
    assert resp.status_code == 200
    errors = form_errors(resp)
    assert "The first name field is required." in errors and "The email must be a valid email address." in errors
    assert not User.objects.filter(username="newbie").exists()

    resp = admin_client.post(url(User, "add"), {**data, "first_name": "New", "email": "new@example.com"})
    assert resp.status_code == 302, form_errors(resp)
    user = User.objects.get(username="newbie")
    assert user.created_by == superuser and user.check_password("a long enough secret")
    assert ActionLog.objects.get(item_type="user", item_id=user.pk).action_type == "create"


def test_user_add_may_reuse_a_deleted_users_name(admin_client, superuser):
    """As the API: only live users hold their usernames (Django's own add form refused any match)."""
    gone = UserFactory(username="reused")
    user_delete(actor=superuser, user=gone)
    resp = admin_client.post(url(User, "add"), {"username": "Reused", "first_name": "Again", "email": "",
                                                "password1": "a long enough secret",
                                                "password2": "a long enough secret"})
    assert resp.status_code == 302, form_errors(resp)
    assert User.objects.filter(username__iexact="reused").count() == 2


def test_user_delete_is_soft_logged_and_revokes_tokens(admin_client):
    user = UserFactory()
    record, _raw = personal_token_issue(user=user)
    page = url(User, "delete", user.pk)
    assert admin_client.get(page).status_code == 200  # the confirmation page
    resp = admin_client.post(page, {"post": "yes"})
    assert resp.status_code == 302
    user.refresh_from_db()
    assert user.deleted_at is not None  # still there: a soft delete
    log = ActionLog.objects.get()
    assert (log.action_type, log.item_type, log.item_id) == ("delete", "user", user.pk)
    record.refresh_from_db()
    assert record.revoked and not AccessToken.objects.filter(user=user).exists()
    assert LogEntry.objects.filter(object_id=str(user.pk)).exists()


def test_user_holding_an_asset_cannot_be_deleted(admin_client):
    user = UserFactory()
    checked_out_asset(user)
    record, _raw = personal_token_issue(user=user)
    resp = admin_client.post(url(User, "delete", user.pk), {"post": "yes"})
    assert resp.status_code == 302 and resp.url == url(User, "change", user.pk)
    assert any("This user still has an asset assigned. Please check it in first." in text for text in texts(resp))
    assert not any("deleted successfully" in text for text in texts(resp))
    user.refresh_from_db()
    record.refresh_from_db()
    assert user.deleted_at is None and not record.revoked
    assert not ActionLog.objects.exists() and not LogEntry.objects.exists()


def test_super_user_cannot_delete_themselves(admin_client, superuser):
    resp = admin_client.post(url(User, "delete", superuser.pk), {"post": "yes"}, follow=True)
    assert any(CANNOT_DELETE_YOURSELF in text for text in texts(resp))
    superuser.refresh_from_db()
    assert superuser.deleted_at is None


def test_bulk_delete_and_restore_actions(admin_client):
    free, holder = UserFactory(), UserFactory()
    checked_out_asset(holder)
    resp = action(admin_client, User, "delete_selected_items", [free, holder])
    messages = texts(resp)
    assert any("still has an asset assigned" in text for text in messages)
    assert any(text == "1 users deleted." for text in messages)
    free.refresh_from_db()
    holder.refresh_from_db()
    assert free.deleted_at is not None and holder.deleted_at is None
    assert 'value="delete_selected"' not in resp.content.decode()  # Django's raw bulk delete is not offered

    deleted = admin_client.get(url(User), {"deleted": "yes"})
    assert [row.pk for row in deleted.context["cl"].result_list] == [free.pk]

    resp = action(admin_client, User, "restore_selected", [free], "deleted=yes")
    assert any(text == "1 users restored." for text in texts(resp))
    free.refresh_from_db()
    assert free.deleted_at is None
    assert list(ActionLog.objects.order_by("id").values_list("action_type", flat=True)) == ["delete", "restore"]


def test_deleted_user_cannot_be_changed_until_restored(admin_client, superuser):
    user = UserFactory(jobtitle="")
    user_delete(actor=superuser, user=user)
    page = url(User, "change", user.pk)
    data = form_data(admin_client, page, jobtitle="Ghost")
    # issue 28: a deleted record's page is read-only (the service would refuse too: "restore this user")
    assert "This user was deleted on" in admin_client.get(page).content.decode()
    assert admin_client.post(page, data).status_code == 403
    user.refresh_from_db()
    assert user.jobtitle == ""


def test_password_change_goes_through_the_service(admin_client, superuser):
    user = UserFactory()
    page = url(User, "password", user.pk)
    assert b'name="usable_password"' not in admin_client.get(page).content
    resp = admin_client.post(page, {"password1": "another long secret", "password2": "another long secret"})
    assert resp.status_code == 302
    user.refresh_from_db()
    assert user.check_password("another long secret")
    assert ActionLog.objects.get().log_meta == {"password": {"old": "*", "new": "*"}}

    user_delete(actor=superuser, user=user)
    resp = admin_client.post(page, {"password1": "a third long secret", "password2": "a third long secret"})
    assert resp.status_code == 403  # issue 28: a deleted user is read-only in the admin until restored
    user.refresh_from_db()
    assert user.check_password("another long secret")


# --- permission groups ------------------------------------------------------------------------------------------------


def test_group_add_refuses_unknown_keys_and_duplicate_names(admin_client):
    PermissionGroupFactory(name="Helpdesk")
    resp = admin_client.post(url(PermissionGroup, "add"), {"name": "Auditors", "notes": "",
                                                           "permissions[assets.view]": "1", "permissions[root]": "1"})
    assert resp.status_code == 200 and 'The permission "root" does not exist.' in form_errors(resp)
    resp = admin_client.post(url(PermissionGroup, "add"), {"name": "HELPDESK", "notes": ""})
    assert resp.status_code == 200 and "The name has already been taken." in form_errors(resp)
    assert list(PermissionGroup.objects.values_list("name", flat=True)) == ["Helpdesk"]

    resp = admin_client.post(url(PermissionGroup, "add"), {"name": "Auditors", "notes": "",
                                                           "permissions[assets.view]": "1"})
    assert resp.status_code == 302
    assert PermissionGroup.objects.get(name="Auditors").permissions == {"assets.view": 1}


# --- companies (rule 9) -----------------------------------------------------------------------------------------------


def test_company_with_items_cannot_be_deleted(admin_client):
    company = CompanyFactory()
    AssetFactory(company=company)
    page = url(Company, "delete", company.pk)
    assert admin_client.get(page).status_code == 200
    resp = admin_client.post(page, {"post": "yes"}, follow=True)
    assert resp.status_code == 200
    expected = COMPANY_NOT_EMPTY.format(what="1 asset", which="assets")
    assert any(expected in text for text in texts(resp))
    assert Company.objects.filter(pk=company.pk).exists()
    assert not ActionLog.objects.exists() and not LogEntry.objects.exists()


def test_empty_company_is_deleted_and_logged(admin_client):
    company = CompanyFactory()
    resp = admin_client.post(url(Company, "delete", company.pk), {"post": "yes"})
    assert resp.status_code == 302
    assert not Company.objects.filter(pk=company.pk).exists()
    assert ActionLog.objects.get().action_type == "delete"


def test_company_add_and_change_validate_like_the_api(admin_client, superuser):
    CompanyFactory(name="Acme")
    resp = admin_client.post(url(Company, "add"), {"name": "ACME", "notes": ""})
    assert resp.status_code == 200 and "The name has already been taken." in form_errors(resp)
    resp = admin_client.post(url(Company, "add"), {"name": "Initech", "notes": "", "phone": "123"})
    assert resp.status_code == 200 and "7" in form_errors(resp)
    resp = admin_client.post(url(Company, "add"), {"name": "Initech", "notes": ""})
    assert resp.status_code == 302
    company = Company.objects.get(name="Initech")
    assert company.created_by == superuser
    assert ActionLog.objects.get(item_type="company").action_type == "create"


# --- catalogue --------------------------------------------------------------------------------------------------------


def test_status_label_in_use_cannot_be_deleted(admin_client):
    label = StatusLabelFactory()
    AssetFactory(status=label)
    resp = admin_client.post(url(StatusLabel, "delete", label.pk), {"post": "yes"}, follow=True)
    assert any(STATUS_LABEL_IN_USE.strip() in text for text in texts(resp))
    assert StatusLabel.objects.filter(pk=label.pk).exists()
    assert not ActionLog.objects.exists() and not LogEntry.objects.exists()


def test_unused_status_label_is_deleted_and_logged(admin_client):
    label = StatusLabelFactory()
    resp = admin_client.post(url(StatusLabel, "delete", label.pk), {"post": "yes"})
    assert resp.status_code == 302
    assert not StatusLabel.objects.filter(pk=label.pk).exists()
    assert ActionLog.objects.get().action_type == "delete"


def test_manufacturer_in_use_cannot_be_deleted_by_the_bulk_action(admin_client):
    manufacturer = ManufacturerFactory()
    AssetFactory(model=AssetModelFactory(manufacturer=manufacturer))
    resp = action(admin_client, Manufacturer, "delete_selected_items", [manufacturer])
    assert any(MANUFACTURER_IN_USE.strip() in text for text in texts(resp))
    manufacturer.refresh_from_db()
    assert manufacturer.deleted_at is None and not ActionLog.objects.exists()


def test_manufacturer_soft_delete_restore_and_edit_of_a_deleted_one(admin_client):
    manufacturer = ManufacturerFactory(notes="")
    resp = admin_client.post(url(Manufacturer, "delete", manufacturer.pk), {"post": "yes"})
    assert resp.status_code == 302
    manufacturer.refresh_from_db()
    assert manufacturer.deleted_at is not None
    listed = admin_client.get(url(Manufacturer), {"deleted": "yes"})
    assert [row.pk for row in listed.context["cl"].result_list] == [manufacturer.pk]

    page = url(Manufacturer, "change", manufacturer.pk)
    data = form_data(admin_client, page, notes="edited")
    assert admin_client.post(page, data).status_code == 403  # issue 28: read-only until restored
    manufacturer.refresh_from_db()
    assert manufacturer.notes == ""

    action(admin_client, Manufacturer, "restore_selected", [manufacturer], "deleted=yes")
    manufacturer.refresh_from_db()
    assert manufacturer.deleted_at is None
    assert list(ActionLog.objects.order_by("id").values_list("action_type", flat=True)) == ["delete", "restore"]


def test_catalogue_add_uses_the_api_rules(admin_client):
    resp = admin_client.post(url(Manufacturer, "add"), {"name": "Acme", "url": "ftp://acme.example"})
    assert resp.status_code == 200 and "The url must start with one of the following" in form_errors(resp)
    StatusLabelFactory(name="Ready")
    resp = admin_client.post(url(StatusLabel, "add"), {"name": "READY", "type": "deployable", "notes": ""})
    assert resp.status_code == 200 and "The name must be unique." in form_errors(resp)
    assert not Manufacturer.objects.exists() and StatusLabel.objects.count() == 1

    resp = admin_client.post(url(Manufacturer, "add"), {"name": "Acme", "url": "https://acme.example"})
    assert resp.status_code == 302
    assert ActionLog.objects.get(item_type="manufacturer").action_type == "create"


def test_no_admin_action_offers_djangos_raw_bulk_delete(admin_client):
    from django.contrib import admin

    for model in (User, PermissionGroup, Company, Asset, StatusLabel, Manufacturer):
        request = admin_client.get(url(model)).wsgi_request
        assert "delete_selected" not in admin.site._registry[model].get_actions(request)
    assert PersonalAccessToken  # the token admin keeps its own, already service-backed, delete


def _in_use(kind: str):
    """A catalogue entry of ``kind`` that something still uses, and the API's refusal message."""
    from inventory.services import catalogue as cs
    from tests.factories import CategoryFactory, LocationFactory, SupplierFactory

    if kind == "category":
        category = CategoryFactory()
        AssetModelFactory(category=category)
        return category, cs.CATEGORY_IN_USE.format(type=category.category_type)
    if kind == "supplier":
        supplier = SupplierFactory()
        AssetFactory(supplier=supplier)
        return supplier, cs.SUPPLIER_IN_USE.format(count=1)
    if kind == "location":
        location = LocationFactory()
        AssetFactory(rtd_location=location)
        return location, cs.LOCATION_IN_USE
    asset_model = AssetModelFactory()
    AssetFactory(model=asset_model)
    return asset_model, cs.MODEL_IN_USE


@pytest.mark.parametrize("kind", ["category", "supplier", "location", "model"])
def test_catalogue_entry_in_use_cannot_be_deleted(admin_client, kind):
    entry, message = _in_use(kind)
    model = type(entry)
    resp = admin_client.post(url(model, "delete", entry.pk), {"post": "yes"}, follow=True)
    assert any(message.strip() in text for text in texts(resp))
    fresh = model.objects.get(pk=entry.pk)
    assert getattr(fresh, "deleted_at", None) is None
    assert not ActionLog.objects.exists() and not LogEntry.objects.exists()
