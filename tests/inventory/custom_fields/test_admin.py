"""Custom fields and fieldsets in the Django admin (issue 15 part 1): saved, ordered and deleted through
``inventory.services.custom_fields``, with the API's rules and messages."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from inventory.models import CustomField, CustomFieldset, CustomFieldsetField
from inventory.services.custom_fields import ENCRYPTION_FIXED, FIELD_IN_USE
from tests.factories import CustomFieldFactory, CustomFieldsetFactory, CustomFieldsetFieldFactory
from tests.ops.test_admin_services import form_data, form_errors, texts, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def test_field_add_validates_like_the_api_and_fixes_the_column(admin_client, superuser):
    page = url(CustomField, "add")
    assert admin_client.get(page).status_code == 200
    refused = admin_client.post(page, {"name": "MAC", "element": "text", "format": "FOO"})
    assert "The selected format is invalid." in form_errors(refused)
    assert not CustomField.objects.exists()
    response = admin_client.post(page, {"name": "Wi-Fi MAC", "element": "text", "format": "mac"})
    assert response.status_code == 302, form_errors(response)
    field = CustomField.objects.get()
    assert field.db_column_name == f"_snipeit_wi_fi_mac_{field.pk}" and field.format == "MAC"
    assert field.created_by == superuser
    assert ActionLog.objects.filter(item_type="customfield", item_id=field.pk, action_type="create").exists()


def test_field_change_keeps_the_column_and_refuses_an_encryption_change(admin_client):
    field = CustomFieldFactory(name="IMEI")
    column = field.db_column_name
    page = url(CustomField, "change", field.pk)
    response = admin_client.post(page, form_data(admin_client, page, name="IMEI number"))
    assert response.status_code == 302, form_errors(response)
    field.refresh_from_db()
    assert field.name == "IMEI number" and field.db_column_name == column
    refused = admin_client.post(page, form_data(admin_client, page, field_encrypted="on"))
    assert ENCRYPTION_FIXED in form_errors(refused)
    field.refresh_from_db()
    assert field.field_encrypted is False


def test_field_in_a_fieldset_is_not_deleted(admin_client):
    membership = CustomFieldsetFieldFactory()
    response = admin_client.post(url(CustomField, "delete", membership.field_id), {"post": "yes"}, follow=True)
    assert any(FIELD_IN_USE in text for text in texts(response))
    assert CustomField.objects.filter(pk=membership.field_id).exists()


def _inline(rows: list[tuple[int | str, int | str, bool]], initial: int = 0, ids: list[int] | None = None) -> dict:
    prefix = "memberships"
    data = {f"{prefix}-TOTAL_FORMS": str(len(rows)), f"{prefix}-INITIAL_FORMS": str(initial),
            f"{prefix}-MIN_NUM_FORMS": "0", f"{prefix}-MAX_NUM_FORMS": "1000"}
    for index, (field, order, required) in enumerate(rows):
        data[f"{prefix}-{index}-field"] = str(field)
        data[f"{prefix}-{index}-order"] = str(order)
        if required:
            data[f"{prefix}-{index}-required"] = "on"
        if ids and index < len(ids):
            data[f"{prefix}-{index}-id"] = str(ids[index])
    return data


def test_fieldset_inline_sets_fields_order_and_required_through_the_service(admin_client):
    auto = CustomFieldFactory(name="Auto", auto_add_to_fieldsets=True)
    a, b = CustomFieldFactory(name="A"), CustomFieldFactory(name="B")
    page = url(CustomFieldset, "add")
    assert admin_client.get(page).status_code == 200
    response = admin_client.post(page, {"name": "Phones", **_inline([(b.pk, 2, True), (a.pk, 1, False)])})
    assert response.status_code == 302, response.content[:2000]
    fieldset = CustomFieldset.objects.get()
    rows = list(CustomFieldsetField.objects.filter(fieldset=fieldset).values_list("field__name", "required"))
    assert rows == [("Auto", False), ("A", False), ("B", True)]  # a new set keeps its auto-added field
    CustomFieldsetField.objects.filter(field=auto).delete()
    page = url(CustomFieldset, "change", fieldset.pk)
    assert admin_client.get(page).status_code == 200
    memberships = list(CustomFieldsetField.objects.filter(fieldset=fieldset).order_by("order"))
    data = {"name": "Phones", **_inline([(a.pk, 1, False), (b.pk, 2, True)], initial=2,
                                        ids=[m.pk for m in memberships])}
    data["memberships-0-fieldset"] = data["memberships-1-fieldset"] = str(fieldset.pk)
    data["memberships-1-DELETE"] = "on"
    response = admin_client.post(page, data)
    assert response.status_code == 302, response.content[:2000]
    assert list(fieldset.memberships.values_list("field_id", flat=True)) == [a.pk]


def test_fieldset_in_use_is_not_deleted(admin_client):
    membership = CustomFieldsetFieldFactory(fieldset=CustomFieldsetFactory(name="Used"))
    response = admin_client.post(url(CustomFieldset, "delete", membership.fieldset_id), {"post": "yes"}, follow=True)
    assert any("Fieldset is in use." in text for text in texts(response))
    assert CustomFieldset.objects.filter(pk=membership.fieldset_id).exists()
