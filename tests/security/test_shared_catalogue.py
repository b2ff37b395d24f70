"""Issue 25 item 6: shared catalogue records (everything without a company: custom fields, fieldsets, status labels,
categories, manufacturers, suppliers, asset models, locations without a company) are changed only by super users and
users without a company when separation is on. An administrator of one company gets 403 ``Insufficient
permissions.`` from the API and a refusal in the admin, and nothing changes (no value of another company is erased,
no label archived under another company's assets)."""

from __future__ import annotations

import pytest
from django.test import Client

from activity.models import ActionLog
from inventory.models import (
    AssetFieldValue,
    AssetModel,
    Category,
    CustomField,
    CustomFieldset,
    CustomFieldsetField,
    Location,
    Manufacturer,
    StatusLabel,
    Supplier,
)
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CategoryFactory,
    CustomFieldFactory,
    CustomFieldsetFactory,
    LocationFactory,
    ManufacturerFactory,
    StatusLabelFactory,
    SupplierFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
FORBIDDEN = {"status": "error", "message": "Insufficient permissions.", "messages": "Insufficient permissions.",
             "payload": None}


@pytest.fixture
def company_admin(company):
    return UserFactory(company=company, permissions={"admin": 1}, username="cadmin")


@pytest.fixture
def shared():
    field = CustomFieldFactory(name="IMEI", format="ANY")
    fieldset = CustomFieldsetFactory(name="Phones")
    return {
        "field": field,
        "loose_field": CustomFieldFactory(name="Loose"),
        "fieldset": fieldset,
        "label": StatusLabelFactory(name="Ready", type="deployable"),
        "category": CategoryFactory(name="Phones"),
        "manufacturer": ManufacturerFactory(name="Acme"),
        "supplier": SupplierFactory(name="Shop"),
        "model": AssetModelFactory(name="P1"),
        "location": LocationFactory(name="HQ"),
    }


def _forbidden(response):
    assert response.status_code == 403, response.content
    assert response.json() == FORBIDDEN


def test_company_admin_cannot_delete_a_custom_field_with_other_companies_values(fmcs_on, make_client, company_admin,
                                                                                 other_company, shared):
    field = shared["loose_field"]
    theirs = AssetFactory(company=other_company)
    AssetFieldValue.objects.create(asset=theirs, field=field, value="B's value")
    client = make_client(company_admin)
    before = ActionLog.objects.count()

    _forbidden(client.delete(f"/api/v1/fields/{field.pk}"))
    assert CustomField.objects.filter(pk=field.pk).exists()
    assert AssetFieldValue.objects.filter(asset=theirs, field=field, value="B's value").exists()
    assert ActionLog.objects.count() == before


@pytest.mark.parametrize(("path", "body", "model", "key", "kept"), [
    ("fields/{field}", {"format": "NUMERIC"}, CustomField, "field", {"format": "ANY"}),
    ("fieldsets/{fieldset}", {"name": "Renamed"}, CustomFieldset, "fieldset", {"name": "Phones"}),
    ("statuslabels/{label}", {"type": "archived"}, StatusLabel, "label", {"type": "deployable"}),
    ("categories/{category}", {"name": "Renamed"}, Category, "category", {"name": "Phones"}),
    ("manufacturers/{manufacturer}", {"name": "Renamed"}, Manufacturer, "manufacturer", {"name": "Acme"}),
    ("suppliers/{supplier}", {"name": "Renamed"}, Supplier, "supplier", {"name": "Shop"}),
    ("models/{model}", {"name": "Renamed"}, AssetModel, "model", {"name": "P1"}),
    ("locations/{location}", {"name": "Renamed"}, Location, "location", {"name": "HQ"}),
])
def test_company_admin_cannot_change_shared_records(fmcs_on, make_client, company_admin, shared, path, body, model,
                                                    key, kept):
    client = make_client(company_admin)
    url = "/api/v1/" + path.format(**{name: obj.pk for name, obj in shared.items()})
    _forbidden(client.patch(url, body, format="json"))
    _forbidden(client.delete(url))
    row = model._base_manager.filter(pk=shared[key].pk).values(*kept).first()
    assert row == kept


def test_company_admin_cannot_change_a_shared_fieldsets_fields(fmcs_on, make_client, company_admin, shared):
    client = make_client(company_admin)
    field, fieldset = shared["field"], shared["fieldset"]
    _forbidden(client.post(f"/api/v1/fields/{field.pk}/associate", {"fieldset_id": fieldset.pk}, format="json"))
    assert not CustomFieldsetField.objects.filter(fieldset=fieldset).exists()
    CustomFieldsetField.objects.create(fieldset=fieldset, field=field, order=1)
    _forbidden(client.post(f"/api/v1/fields/{field.pk}/disassociate", {"fieldset_id": fieldset.pk}, format="json"))
    assert CustomFieldsetField.objects.filter(fieldset=fieldset, field=field).exists()


def test_company_admin_may_change_their_own_companys_location(fmcs_on, make_client, company_admin, company):
    location = LocationFactory(name="A office", company=company)
    body = make_client(company_admin).patch(f"/api/v1/locations/{location.pk}", {"name": "A HQ"},
                                            format="json").json()
    assert body["status"] == "success", body
    assert Location.objects.get(pk=location.pk).name == "A HQ"


def test_company_admin_may_still_create_catalogue_records(fmcs_on, make_client, company_admin):
    body = make_client(company_admin).post("/api/v1/categories", {"name": "Tablets", "category_type": "asset"},
                                           format="json").json()
    assert body["status"] == "success", body


@pytest.mark.parametrize("who", ["super user", "no company", "separation off"])
def test_others_may_change_shared_records(make_client, site_settings, company, shared, who):
    if who == "super user":
        actor = UserFactory(company=company, superuser=True)
    else:
        actor = UserFactory(company=None if who == "no company" else company, permissions={"admin": 1})
    site_settings.full_multiple_companies_support = who != "separation off"
    site_settings.save()
    client = make_client(actor)
    label = shared["label"]
    body = client.patch(f"/api/v1/statuslabels/{label.pk}", {"type": "archived"}, format="json").json()
    assert body["status"] == "success", body
    assert StatusLabel.objects.get(pk=label.pk).type == "archived"
    assert client.delete(f"/api/v1/fields/{shared['loose_field'].pk}").json()["status"] == "success"
    assert not CustomField.objects.filter(pk=shared["loose_field"].pk).exists()


# --- the admin (same services) ----------------------------------------------------------------------------------


@pytest.fixture
def cadmin_client(company_admin) -> Client:
    client = Client()
    client.force_login(company_admin)
    return client


def test_admin_does_not_offer_changing_a_shared_status_label(fmcs_on, cadmin_client, shared):
    label = shared["label"]
    url = f"/admin/inventory/statuslabel/{label.pk}/change/"
    page = cadmin_client.get(url)
    assert page.status_code == 200
    assert b'name="_save"' not in page.content  # read-only view
    response = cadmin_client.post(url, {"name": label.name, "type": "archived"})
    assert response.status_code == 403
    assert StatusLabel.objects.get(pk=label.pk).type == "deployable"
    assert cadmin_client.post(f"/admin/inventory/statuslabel/{label.pk}/delete/", {"post": "yes"}).status_code == 403
    assert StatusLabel.objects.filter(pk=label.pk).exists()


def test_admin_bulk_delete_of_shared_fields_is_refused(fmcs_on, cadmin_client, shared):
    field = shared["loose_field"]
    response = cadmin_client.post("/admin/inventory/customfield/", {
        "action": "delete_selected_items", "_selected_action": [field.pk]}, follow=True)
    assert response.status_code == 200
    assert CustomField.objects.filter(pk=field.pk).exists()
    assert b"Insufficient permissions" in response.content


def test_admin_lets_a_company_admin_change_their_own_location(fmcs_on, cadmin_client, company):
    location = LocationFactory(name="A office", company=company)
    page = cadmin_client.get(f"/admin/inventory/location/{location.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' in page.content


def test_available_actions_tell_a_company_admin_they_cannot_change_shared_records(fmcs_on, make_client, company_admin,
                                                                                   company, shared):
    client = make_client(company_admin)
    for path in (f"statuslabels/{shared['label'].pk}", f"categories/{shared['category'].pk}",
                 f"models/{shared['model'].pk}", f"fields/{shared['loose_field'].pk}",
                 f"fieldsets/{shared['fieldset'].pk}", f"locations/{shared['location'].pk}"):
        actions = client.get(f"/api/v1/{path}").json()["available_actions"]
        assert actions["update"] is False and actions["delete"] is False, path
    own = LocationFactory(name="A office", company=company)
    actions = client.get(f"/api/v1/locations/{own.pk}").json()["available_actions"]
    assert actions["update"] is True and actions["delete"] is True
    listed = client.get("/api/v1/statuslabels").json()["rows"]
    assert [row["available_actions"]["update"] for row in listed] == [False]
